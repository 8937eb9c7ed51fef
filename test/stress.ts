/**
 * `npm run test:stress`: the integration and end-to-end suites while every core is kept busy by a bounded CPU
 * hog (one spinning child process per core, each ending itself after `--max-minutes`, all killed at the end),
 * so a test that races the scripted model or the workbench shows up here rather than on a busy CI machine.
 *
 *   node test/stress.ts [--hogs N] [--max-minutes M] [--only integration|e2e]
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { onExitCleanup } from './workbench/cleanup.ts';
import { REPO_ROOT } from './workbench/install.ts';

const SUITES: Readonly<Record<string, readonly string[]>> = {
  integration: ['run', 'test:integration'],
  e2e: ['run', 'test:e2e'],
};

/** Starts one child that spins until `maxMs` passed (so it ends even if this process is killed hard). */
function startHog(maxMs: number): ChildProcess {
  const code = `const end = Date.now() + ${maxMs}; let x = 0; while (Date.now() < end) x = (x * 31 + 7) % 1000003;`;
  return spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
}

function main(): number {
  const { values } = parseArgs({ options: { hogs: { type: 'string' }, 'max-minutes': { type: 'string' }, only: { type: 'string' } } });
  const hogCount = Number(values.hogs ?? os.availableParallelism());
  const maxMs = Number(values['max-minutes'] ?? 40) * 60_000;
  const suites = values.only ? [values.only] : Object.keys(SUITES);
  for (const s of suites) if (!SUITES[s]) throw new Error(`unknown suite ${s} (integration, e2e)`);

  const hogs = Array.from({ length: hogCount }, () => startHog(maxMs));
  const killHogs = (): void => {
    for (const h of hogs) if (h.exitCode === null && h.signalCode === null) h.kill('SIGKILL');
  };
  const unregister = onExitCleanup(killHogs);
  console.log(`stress: ${hogCount} CPU hog(s) spinning (pids ${hogs.map((h) => h.pid).join(', ')}), each for at most ${maxMs / 60_000} min`);
  const results: string[] = [];
  let failed = 0;
  try {
    for (const suite of suites) {
      const started = Date.now();
      console.log(`\n=== stress: npm ${SUITES[suite]!.join(' ')} under load`);
      const r = spawnSync('npm', [...SUITES[suite]!], { cwd: REPO_ROOT, stdio: 'inherit' });
      const ok = r.status === 0;
      if (!ok) failed++;
      results.push(`${ok ? 'PASS' : 'FAIL'} ${suite} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
  } finally {
    killHogs();
    unregister();
  }
  console.log(`\nstress (${hogCount} hogs on ${os.availableParallelism()} cores):`);
  for (const line of results) console.log(`  ${line}`);
  return failed ? 1 : 0;
}

process.exit(main());

/**
 * End-to-end suite: plays every case in test/e2e/cases/*.json through the runner in a shared workbench (a
 * fresh Pi agent dir, workspace and page per case) and checks each run's output.
 *
 *   node test/e2e/suite.ts [--vsix FILE] [--grep SUBSTRING[,SUBSTRING…]] [--jobs N]
 *
 * `--jobs N` (or PI_PANEL_E2E_JOBS) plays the cases in N lanes at once, each with a workbench of its own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../workbench/install.ts';
import { chatsOnce } from './check.ts';
import { packagedVsix, resolveScenario, runScenario, startHarness } from './run.ts';
import type { Action, Harness } from './run.ts';

const CASES_DIR = path.join(REPO_ROOT, 'test', 'e2e', 'cases');
const RESULTS_DIR = path.join(REPO_ROOT, 'test-results', 'e2e');
/** The shared checker beside the repo, which the cases are written for; the project's own implementation of its format otherwise. */
const SHARED_CHECKER = path.resolve(REPO_ROOT, '..', 'shared', 'tools', 'check-e2e-output.mjs');
const OWN_CHECKER = path.join(REPO_ROOT, 'test', 'e2e', 'check.ts');

interface CaseFile {
  readonly prompt: string;
  readonly scenario: unknown;
  readonly actions?: Action[];
  readonly timeoutMs?: number;
  /** Pi settings.json entries for the run. */
  readonly piSettings?: Record<string, unknown>;
  /** A folder (relative to the case file) copied into the workspace before the workbench opens it. */
  readonly files?: string;
  /** VS Code user settings for the run: an object, or a JSON file relative to the case file. */
  readonly settings?: Record<string, unknown> | string;
  /** Open the workspace in Restricted Mode (a workbench of its own, with workspace trust on). */
  readonly untrusted?: boolean;
  /** Make the workspace a Git repository with its files committed before the workbench opens it. */
  readonly git?: boolean;
  /** Display language of the workbench (`--locale`, e.g. `zh-cn`): a workbench of its own. */
  readonly locale?: string;
  /** Start Pi with an agent dir without models or keys (`--empty-agent-dir`): the first run. */
  readonly emptyAgentDir?: boolean;
  readonly expect: Record<string, unknown>;
}

function check(outDir: string, caseFile: string): { ok: boolean; output: string } {
  const checker = fs.existsSync(SHARED_CHECKER) ? SHARED_CHECKER : OWN_CHECKER;
  const r = spawnSync(process.execPath, [checker, outDir, caseFile], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

/**
 * Expectations beyond the shared checker's format: `composerContains` (cancel returns queued texts to the composer),
 * `chats[N].containsOnce` (check.ts `chatsOnce`).
 */
function extraChecks(outDir: string, expect: Record<string, unknown>): string[] {
  const fails: string[] = [];
  // The shared checker reads the rest of `chats`; the project's own checker checks this one too.
  if (fs.existsSync(SHARED_CHECKER)) for (const p of chatsOnce(outDir, expect.chats as Parameters<typeof chatsOnce>[1])) fails.push(`FAIL: ${p}`);
  const composer = fs.existsSync(path.join(outDir, 'composer.txt')) ? fs.readFileSync(path.join(outDir, 'composer.txt'), 'utf8') : '';
  for (const s of (expect.composerContains as string[] | undefined) ?? [])
    if (!composer.includes(s)) fails.push(`FAIL: composer lacks ${JSON.stringify(s)} (has ${JSON.stringify(composer.slice(0, 120))})`);
  // `secretLacks`: a key typed during the run is in none of what the run wrote (transcript, notifications, status bar,
  // session file, console, composer, the extension's log); only Pi's auth.json may hold it.
  const secret = expect.secretLacks as string | undefined;
  if (secret)
    for (const f of fs.readdirSync(outDir))
      if (!/\.png$/.test(f) && f !== 'result.json' && fs.readFileSync(path.join(outDir, f), 'utf8').includes(secret)) fails.push(`FAIL: ${f} holds the key`);
  return fails;
}

/** One case's verdict: whether it passed, and what to print under its name when not. */
interface CaseOutcome {
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * A lane plays cases one after another in its own workbench (a code-server and a browser of its own), restarting
 * it when a case needs another kind (Restricted Mode, a display language) or left it unwell.
 */
class Lane {
  private _harness: Harness | undefined;
  private _untrusted = false;
  private _locale: string | undefined;
  private readonly _vsix: string;

  constructor(vsix: string) {
    this._vsix = vsix;
  }

  async play(file: string): Promise<CaseOutcome> {
    const name = path.basename(file, '.json');
    const caseFile = path.join(CASES_DIR, file);
    const out = path.join(RESULTS_DIR, name);
    fs.rmSync(out, { recursive: true, force: true });
    try {
      const spec = JSON.parse(fs.readFileSync(caseFile, 'utf8')) as CaseFile;
      const scenario = await resolveScenario(spec.scenario, path.dirname(caseFile));
      const untrusted = spec.untrusted === true;
      if (this._harness && (this._untrusted !== untrusted || this._locale !== spec.locale)) await this.close();
      this._untrusted = untrusted;
      this._locale = spec.locale;
      const harness = (this._harness ??= await startHarness(this._vsix, { untrusted, ...(spec.locale ? { locale: spec.locale } : {}) }));
      const base = path.dirname(caseFile);
      const result = await runScenario(harness, {
        scenario,
        prompt: spec.prompt,
        out,
        actions: spec.actions ?? [],
        timeoutMs: spec.timeoutMs,
        piSettings: spec.piSettings,
        files: spec.files ? path.resolve(base, spec.files) : undefined,
        git: spec.git === true,
        emptyAgentDir: spec.emptyAgentDir === true,
        vscodeSettings:
          typeof spec.settings === 'string'
            ? (JSON.parse(fs.readFileSync(path.resolve(base, spec.settings), 'utf8')) as Record<string, unknown>)
            : spec.settings,
      });
      const verdict = check(out, caseFile);
      const extra = extraChecks(out, spec.expect);
      // A run that could not even load the workbench may have left the server unwell: start afresh.
      if (result.errors.some((e) => /workbench|Timeout .*exceeded|Target .*closed/i.test(e)) && !result.runState) await this.close();
      return { ok: verdict.ok && extra.length === 0, detail: [verdict.output, ...extra].join('\n') };
    } catch (err) {
      await this.close();
      return { ok: false, detail: (err as Error).stack ?? String(err) };
    }
  }

  async close(): Promise<void> {
    const harness = this._harness;
    this._harness = undefined;
    await harness?.close();
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { vsix: { type: 'string' }, grep: { type: 'string' }, jobs: { type: 'string' } } });
  const files = fs
    .readdirSync(CASES_DIR)
    .filter((f) => f.endsWith('.json') && (!values.grep || values.grep.split(',').some((g) => f.includes(g))))
    .sort();
  if (!files.length) {
    console.log('no e2e cases matched');
    console.log('0 passed, 0 failed');
    return 1;
  }
  const jobs = Math.max(1, Math.min(files.length, Number(values.jobs ?? process.env.PI_PANEL_E2E_JOBS ?? 1) || 1));
  const vsix = values.vsix ? path.resolve(values.vsix) : packagedVsix(true);
  console.log(
    `e2e: ${files.length} case(s) in ${jobs} lane(s), extension ${path.relative(REPO_ROOT, vsix)}, results in ${path.relative(REPO_ROOT, RESULTS_DIR)}/`,
  );
  const started = Date.now();
  // Cases that need a workbench of their own kind go last, so a lane restarts its workbench as rarely as it can.
  const kind = (f: string) => {
    const spec = JSON.parse(fs.readFileSync(path.join(CASES_DIR, f), 'utf8')) as CaseFile;
    return `${spec.untrusted === true ? 1 : 0}:${spec.locale ?? ''}`;
  };
  const queue = [...files].sort((a, b) => kind(a).localeCompare(kind(b)) || a.localeCompare(b));
  let passed = 0;
  let failed = 0;
  const lanes = Array.from({ length: jobs }, () => new Lane(vsix));
  try {
    await Promise.all(
      lanes.map(async (lane) => {
        for (let file = queue.shift(); file; file = queue.shift()) {
          const t0 = Date.now();
          const { ok, detail } = await lane.play(file);
          if (ok) passed++;
          else failed++;
          console.log(`${ok ? 'PASS' : 'FAIL'} ${path.basename(file, '.json')} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
          if (!ok) for (const line of detail.split('\n')) if (line.trim()) console.log(`    ${line}`);
        }
      }),
    );
  } finally {
    await Promise.all(lanes.map((l) => l.close()));
  }
  console.log(`e2e suite took ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots and outputs under ${path.relative(REPO_ROOT, RESULTS_DIR)}/<case>/`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);

/**
 * Records real Pi event streams for reducer tests: runs the built `dist/pi/pi.cjs` against the scripted
 * model for each case and writes `test/fixtures/events/<case>.json` (a JSON array of the events, each
 * deep-copied inside the listener because Pi mutates event objects after delivering them).
 *
 * Usage: `npm run build && node scripts/recordEvents.ts [case ...]` (default: every case).
 * Runs itself again in a minimal environment so no provider keys or user config leak into the recording.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { PiModule } from '../src/pi/piEntry.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { loadScenario } from '../test/scriptedModel/scenario.ts';
import { startScriptedModel } from '../test/scriptedModel/server.ts';

const repoRoot = resolve(dirname(process.argv[1] ?? '.'), '..');
const scenariosDir = join(repoRoot, 'test', 'fixtures', 'scenarios');
const eventsDir = join(repoRoot, 'test', 'fixtures', 'events');

type Session = Awaited<ReturnType<PiModule['createAgentSession']>>['session'];

interface RecordCase {
  /** Output file name (without .json). */
  readonly name: string;
  readonly scenario: string;
  readonly prompt: string;
  readonly retry?: { readonly maxRetries: number; readonly baseDelayMs: number };
  /** Runs while the prompt is in flight; the default just waits for it. */
  readonly drive?: (session: Session, run: Promise<void>, notes: string[]) => Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Cancels the way the panel does: clear the queue first, then abort (the other way round, queued work would start while abort waits). */
async function cancel(session: Session, notes: string[]): Promise<void> {
  const cleared = session.clearQueue();
  notes.push(`clearQueue() returned ${JSON.stringify(cleared)}`);
  const started = Date.now();
  await session.abort();
  notes.push(`abort() resolved in ${Date.now() - started} ms`);
}

const cases: RecordCase[] = [
  { name: 'plain-text', scenario: 'plain-text', prompt: 'Say hello.' },
  { name: 'thinking-then-text', scenario: 'thinking-then-text', prompt: 'Think, then greet me.' },
  { name: 'tool-then-answer', scenario: 'tool-then-answer', prompt: 'Run a command.' },
  { name: 'parallel-tools', scenario: 'parallel-tools', prompt: 'Run two commands in parallel.' },
  { name: 'blocked-tool', scenario: 'blocked-tool', prompt: 'Use a tool that does not exist.' },
  { name: 'retry-500-twice', scenario: 'retry-500-twice', prompt: 'Answer despite errors.' },
  { name: 'retries-exhausted', scenario: 'retries-exhausted', prompt: 'This will fail.' },
  { name: 'hostile-markdown', scenario: 'hostile-markdown', prompt: 'Show me hostile markdown.' },
  { name: 'demo', scenario: 'demo', prompt: 'Give me a tour.' },
  {
    name: 'long-stream-cancel',
    scenario: 'long-stream',
    prompt: 'Talk for a long time.',
    drive: async (session, run, notes) => {
      await sleep(1000);
      try {
        await session.prompt('A prompt while streaming, without streamingBehavior.');
        notes.push('prompt() while streaming did not throw');
      } catch (error) {
        const message = (error as Error).message;
        notes.push(`prompt() while streaming threw: ${message}`);
        writeFileSync(join(eventsDir, 'prompt-while-streaming-error.txt'), message + '\n');
      }
      await cancel(session, notes);
      await run;
    },
  },
  {
    name: 'long-stream-followup-cancel',
    scenario: 'long-stream',
    prompt: 'Talk for a long time.',
    drive: async (session, run, notes) => {
      await sleep(400);
      notes.push(`followUp() returned ${JSON.stringify(await session.followUp('And then summarise.'))}`);
      await sleep(600);
      await cancel(session, notes);
      await run;
    },
  },
  {
    name: 'bash-sleep-cancel',
    scenario: 'bash-sleep',
    prompt: 'Run a long command.',
    drive: async (session, run, notes) => {
      await sleep(1000);
      await cancel(session, notes);
      await run;
    },
  },
  {
    name: 'retry-cancelled',
    scenario: 'retries-exhausted',
    prompt: 'This will be cancelled while waiting to retry.',
    retry: { maxRetries: 3, baseDelayMs: 3000 },
    drive: async (session, run, notes) => {
      await sleep(500);
      await cancel(session, notes);
      await run;
    },
  },
];

function deepCopy(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message } : v)));
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) return false;
    await sleep(20);
  }
  return true;
}

async function recordCase(pi: PiModule, c: RecordCase): Promise<void> {
  const scenario = await loadScenario(join(scenariosDir, `${c.scenario}.json`));
  const model = await startScriptedModel({ scenario });
  const temp = mkdtempSync(join(tmpdir(), `pi-record-${c.name}-`));
  const notes: string[] = [];
  try {
    const agentDir = await makePiAgentDir({ baseUrl: model.url, dir: join(temp, 'agent'), retry: c.retry });
    const cwd = join(temp, 'workspace');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'README.md'), '# Scratch workspace\n');
    const { session } = await pi.createAgentSession({ cwd, agentDir, sessionManager: pi.SessionManager.inMemory() });
    const events: unknown[] = [];
    // Subscribed before prompting; copies in the callback since Pi mutates events after delivery.
    const unsubscribe = session.subscribe((event) => {
      events.push(deepCopy(event));
    });
    const started = Date.now();
    const run = session.prompt(c.prompt);
    run.catch(() => undefined);
    if (c.drive) await c.drive(session, run, notes);
    try {
      await run;
    } catch (error) {
      notes.push(`prompt() rejected: ${(error as Error).message}`);
    }
    const settled = await waitFor(() => events.some((e) => (e as { type: string }).type === 'agent_settled'), 5000);
    if (!settled) notes.push('no agent_settled within 5 s after prompt() resolved');
    unsubscribe();
    session.dispose();
    const file = join(eventsDir, `${c.name}.json`);
    const text = JSON.stringify(events, null, 1) + '\n';
    writeFileSync(file, text);
    const types = events.map((e) => {
      const ev = e as { type: string; assistantMessageEvent?: { type: string }; message?: { role?: string } };
      if (ev.type === 'message_update') return `mu:${ev.assistantMessageEvent?.type}`;
      if (ev.type === 'message_start' || ev.type === 'message_end') return `${ev.type}(${ev.message?.role})`;
      return ev.type;
    });
    console.log(
      `\n== ${c.name}: ${events.length} events, ${(text.length / 1024).toFixed(0)} KB, ${model.requests.length} request(s), ${Date.now() - started} ms`,
    );
    for (const note of notes) console.log(`   note: ${note}`);
    console.log(`   ${types.join(' ')}`);
  } finally {
    await model.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

/** With no model in models.json and no keys, prompt() throws before any request; keep its text. */
async function recordNoModelError(pi: PiModule): Promise<void> {
  const temp = mkdtempSync(join(tmpdir(), 'pi-record-nomodel-'));
  try {
    const agentDir = join(temp, 'agent');
    const cwd = join(temp, 'workspace');
    mkdirSync(agentDir);
    mkdirSync(cwd);
    const { session } = await pi.createAgentSession({ cwd, agentDir, sessionManager: pi.SessionManager.inMemory() });
    const events: string[] = [];
    session.subscribe((e) => {
      events.push(e.type);
    });
    let message = 'prompt() did not throw';
    try {
      await session.prompt('Hello?');
    } catch (error) {
      message = (error as Error).message;
    }
    writeFileSync(join(eventsDir, 'no-model-error.txt'), message + '\n');
    console.log(`\n== no-model-error: ${JSON.stringify(message)}; events before the throw: ${JSON.stringify(events)}`);
    session.dispose();
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  mkdirSync(eventsDir, { recursive: true });
  const requirePi = createRequire(join(repoRoot, 'package.json'));
  const pi = requirePi(join(repoRoot, 'dist', 'pi', 'pi.cjs')) as PiModule;
  console.log(`Pi ${pi.VERSION} from ${pi.getPackageDir()}`);
  for (const c of cases) {
    if (only.length && !only.includes(c.name)) continue;
    await recordCase(pi, c);
  }
  if (!only.length || only.includes('no-model-error')) await recordNoModelError(pi);
}

if (process.env.PI_RECORD_CLEAN_ENV !== '1') {
  // A clean environment: no provider keys, a throwaway HOME, so recordings do not depend on this machine.
  const home = mkdtempSync(join(tmpdir(), 'pi-record-home-'));
  const result = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', PI_RECORD_CLEAN_ENV: '1', PI_OFFLINE: '1' },
  });
  rmSync(home, { recursive: true, force: true });
  process.exitCode = result.status ?? 1;
} else {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

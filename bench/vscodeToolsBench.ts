/**
 * The VS Code tools in the real workbench (issue 37; a report, not a test): code-server's built-in TypeScript
 * server on a small project where `greet` has over 500 references. The scripted model warms the server up with
 * one `vscode_diagnostics` call, then calls each read-only tool `--rounds` times; each call's time is its tool
 * card's `data-duration-ms` (the worker's execute: the request to the host and VS Code's answer). Printed: p50
 * and p95 per tool, and the size of the `vscode_references` answer the model got for the 500 references.
 *
 * Usage: node bench/vscodeToolsBench.ts [--rounds 10]
 */

import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { tempDir } from '../test/support/tempDir.ts';
import { numberArg, quantile } from './stats.ts';
import { root } from './benchChat.ts';

const ROUNDS = numberArg('rounds', 10);
const USES = 500;

const calls: [string, Record<string, unknown>][] = [
  ['vscode_definition', { path: 'src/main.ts', line: 3, column: 13 }],
  ['vscode_references', { path: 'src/greet.ts', line: 1, column: 17 }],
  ['vscode_hover', { path: 'src/main.ts', line: 3, column: 13 }],
  ['vscode_symbols', { path: 'src/greet.ts' }],
  ['vscode_symbols', { query: 'greet' }],
  ['vscode_diagnostics', { paths: ['src/main.ts'] }],
  ['vscode_definition', { symbol: 'greet' }],
];

const work = tempDir('pi-bench-vstools-');
const files = join(work, 'files');
cpSync(join(root, 'test', 'fixtures', 'workspaces', 'typescript'), files, { recursive: true });
writeFileSync(
  join(files, 'src', 'many.ts'),
  `import { greet } from './greet';\n\n${Array.from({ length: USES }, (_, i) => `greet('user ${i}');`).join('\n')}\n`,
);

const step = (id: string, name: string, args: Record<string, unknown>) => ({
  chunks: [{ toolCall: { id, name, arguments: args } }],
  finish: 'tool_calls' as const,
});
const steps: Scenario['steps'][number][] = [step('warm', 'vscode_diagnostics', { paths: ['src/greet.ts', 'src/main.ts', 'src/many.ts'] })];
for (let r = 0; r < ROUNDS; r++) for (const [i, [name, args]] of calls.entries()) steps.push(step(`c${r}_${i}`, name, args));
steps.push({ chunks: [{ text: 'Done.' }], finish: 'stop' });
const scenarioFile = join(work, 'scenario.json');
writeFileSync(scenarioFile, JSON.stringify({ name: 'vscode-tools-bench', steps }));

const out = join(work, 'out');
const run = spawnSync(
  process.execPath,
  [
    '--disable-warning=MODULE_TYPELESS_PACKAGE_JSON',
    join(root, 'test', 'e2e', 'run.ts'),
    '--scenario',
    scenarioFile,
    '--prompt',
    'Bench the VS Code tools.',
    '--out',
    out,
    '--files',
    files,
    '--timeout-ms',
    String(120_000 + ROUNDS * calls.length * 5000),
  ],
  { stdio: ['ignore', 'inherit', 'inherit'], cwd: root },
);
if (run.status !== 0) console.log(`(the run exited with ${run.status}; reporting what it wrote)`);

const html = readFileSync(join(out, 'panel.html'), 'utf8');
const byTool = new Map<string, number[]>();
let errors = 0;
for (const m of html.matchAll(/<[^>]*data-tool-call-id="(c[^"]*)"[^>]*>/g)) {
  const tag = m[0];
  const name = /data-tool-name="([^"]*)"/.exec(tag)?.[1] ?? '?';
  const ms = Number(/data-duration-ms="(\d+)"/.exec(tag)?.[1]);
  if (/data-status="error"/.test(tag)) errors++;
  if (!Number.isFinite(ms)) continue;
  byTool.set(name, [...(byTool.get(name) ?? []), ms]);
}
const warm = /<[^>]*data-tool-call-id="warm"[^>]*data-duration-ms="(\d+)"/.exec(html)?.[1];
console.log(`\nVS Code tools in code-server (TypeScript server), ${ROUNDS} rounds; warm-up vscode_diagnostics: ${warm ?? '?'} ms; failed calls: ${errors}`);
console.log('tool                  n    p50 ms   p95 ms');
for (const [name, xs] of [...byTool.entries()].sort())
  console.log(`${name.padEnd(20)} ${String(xs.length).padStart(3)} ${String(quantile(xs, 0.5)).padStart(8)} ${String(quantile(xs, 0.95)).padStart(8)}`);

// The model's view of the 500 references: the tool message answering the first vscode_references call.
const requests = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n');
const messages = (JSON.parse(requests.at(-1)!) as { messages?: { role: string; tool_call_id?: string; content?: unknown }[] }).messages ?? [];
const refs = messages.find((m) => m.role === 'tool' && m.tool_call_id === 'c0_1');
const text = typeof refs?.content === 'string' ? refs.content : JSON.stringify(refs?.content ?? '');
console.log(`\nvscode_references on greet (${USES + 5} references): ${text.length} characters (~${Math.round(text.length / 4)} tokens) reach the model`);
console.log(`  its note: ${/\[\d+ more references not shown[^\]]*\]/.exec(text)?.[0] ?? '(none)'}`);

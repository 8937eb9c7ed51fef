/** Writes long Pi session files for tests and benches: the shape of a real conversation with tools, in Pi's JSONL format. */

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionDirFor } from '../../src/worker/piSessions.ts';
import { lorem } from './wireStream.ts';

/** Writes a Pi session file of `count` messages (user / assistant with a tool call / tool result / assistant). */
export function writeSession(cwd: string, agentDir: string, count: number): string {
  const dir = sessionDirFor(cwd, agentDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `2026-01-01T00-00-00-000Z_bench-${count}.jsonl`);
  const lines: string[] = [JSON.stringify({ type: 'session', version: 3, id: `bench-${count}`, timestamp: new Date(0).toISOString(), cwd })];
  let parent: string | null = null;
  const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const base = { api: 'openai-completions', provider: 'scripted', model: 'scripted-model', usage };
  for (let i = 0; i < count; i++) {
    const n = Math.floor(i / 4);
    const ts = 1_700_000_000_000 + i;
    const message =
      i % 4 === 0
        ? { role: 'user', content: `Question ${n}: what is in src/${n}?`, timestamp: ts }
        : i % 4 === 1
          ? {
              role: 'assistant',
              content: [
                { type: 'text', text: `Let me look at src/${n}.` },
                { type: 'toolCall', id: `call_${n}`, name: 'bash', arguments: { command: `ls src/${n}` } },
              ],
              ...base,
              stopReason: 'toolUse',
              timestamp: ts,
            }
          : i % 4 === 2
            ? {
                role: 'toolResult',
                toolCallId: `call_${n}`,
                toolName: 'bash',
                content: [{ type: 'text', text: `a.ts\nb.ts\n${n}.ts` }],
                isError: false,
                timestamp: ts,
              }
            : { role: 'assistant', content: [{ type: 'text', text: `src/${n} holds three files. ${lorem(200)}` }], ...base, stopReason: 'stop', timestamp: ts };
    const id = i.toString(16).padStart(8, '0');
    lines.push(JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date(ts).toISOString(), message }));
    parent = id;
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

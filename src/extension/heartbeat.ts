/**
 * A test-only probe of the extension host's main thread, started when `PI_PANEL_HEARTBEAT_FILE` is set: a
 * 10 ms interval notes how late each tick came (the thread was busy meanwhile) and appends them to that file
 * a few times a second, after a 'heartbeat started' mark to line the ticks up with. With `PI_PANEL_HEARTBEAT_PROFILE`
 * set too, the thread is CPU-profiled until `<file>.stop` appears, then the profile is written to
 * `<file>.cpuprofile`. The workbench bench (`bench/firstReplyBench.ts`) reads both; nothing reads them in use.
 */

import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';
import type { IDisposable } from '../shared/disposable.ts';

const TICK_MS = 10;
const FLUSH_MS = 250;

/** One line of the file: a tick (`gap`: ms since the one before) or a mark; `t` is wall-clock ms. */
export type HeartbeatLine = { readonly t: number; readonly gap: number } | { readonly t: number; readonly mark: string };

const now = (): number => performance.timeOrigin + performance.now();

/** Starts the probe if the environment asks for it. */
export function startHeartbeatFromEnv(env: NodeJS.ProcessEnv = process.env): IDisposable | undefined {
  const file = env.PI_PANEL_HEARTBEAT_FILE;
  return file ? startHeartbeat(file, !!env.PI_PANEL_HEARTBEAT_PROFILE) : undefined;
}

function startHeartbeat(file: string, profile: boolean): IDisposable {
  const lines: HeartbeatLine[] = [{ t: now(), mark: 'heartbeat started' }];
  let last = performance.now();
  const tick = setInterval(() => {
    const at = performance.now();
    lines.push({ t: performance.timeOrigin + at, gap: at - last });
    last = at;
  }, TICK_MS);
  let session: Session | undefined;
  if (profile) {
    session = new Session();
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.setSamplingInterval', { interval: 500 });
    session.post('Profiler.start');
  }
  const stopProfile = () => {
    const s = session;
    session = undefined;
    s?.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(`${file}.cpuprofile`, JSON.stringify(result.profile));
      s.disconnect();
    });
  };
  const flush = setInterval(() => {
    if (lines.length)
      appendFileSync(
        file,
        lines
          .splice(0)
          .map((l) => JSON.stringify(l) + '\n')
          .join(''),
      );
    if (session && existsSync(`${file}.stop`)) stopProfile();
  }, FLUSH_MS);
  return {
    dispose() {
      clearInterval(tick);
      clearInterval(flush);
      stopProfile();
    },
  };
}

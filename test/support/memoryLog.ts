/** A `Logger` that keeps its lines, for tests that check what was logged. */

import type { Logger } from '../../src/shared/wire/workerProtocol.ts';

export class MemoryLog implements Logger {
  readonly lines: string[] = [];
  info(m: string) {
    this.lines.push(`info ${m}`);
  }
  warn(m: string) {
    this.lines.push(`warn ${m}`);
  }
  error(m: string) {
    this.lines.push(`error ${m}`);
  }
}

/** A hand-driven stand-in for Pi's AgentSession: records calls in order and emits the events a test gives it. */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import type { AgentSessionLike } from '../../src/worker/agentSession.ts';

export class FakeSession {
  readonly calls: string[] = [];
  steering: string[] = [];
  followUps: string[] = [];
  isStreaming = false;
  isCompacting = false;
  model: { provider: string; id: string } | undefined = { provider: 'fake', id: 'model' };
  thinkingLevel = 'medium';
  messages: unknown[] = [];
  sessionFile: string | undefined;
  disposed = false;
  /** When set, `prompt()` rejects with it before anything runs (no key, for example). */
  promptError: Error | undefined;
  /** When set, `prompt()` waits for it before the run starts, as Pi's input hooks and auth check make it wait. */
  preflight: Promise<void> | undefined;
  private _listeners = new Set<(e: AgentSessionEvent) => void>();
  private _resolvePrompt: (() => void) | undefined;

  subscribe(listener: (e: AgentSessionEvent) => void): () => void {
    this.calls.push('subscribe');
    this._listeners.add(listener);
    return () => {
      this.calls.push('unsubscribe');
      this._listeners.delete(listener);
    };
  }

  emit(event: unknown): void {
    for (const l of [...this._listeners]) l(event as AgentSessionEvent);
  }

  get listenerCount(): number {
    return this._listeners.size;
  }

  prompt(text: string, options?: { streamingBehavior?: string; images?: readonly unknown[] }): Promise<void> {
    this.calls.push(`prompt:${text}${options?.streamingBehavior ? `:${options.streamingBehavior}` : ''}${pictures(options?.images)}`);
    if (this.promptError) return Promise.reject(this.promptError);
    const preflight = this.preflight;
    this.preflight = undefined;
    return preflight ? preflight.then(() => this._start(text, options)) : this._start(text, options);
  }

  private _start(text: string, options?: { streamingBehavior?: string }): Promise<void> {
    if (this.isStreaming && !options?.streamingBehavior) return Promise.reject(new Error('Agent is already processing.'));
    this.isStreaming = true;
    this.emit({ type: 'agent_start' });
    this.emit({ type: 'message_start', message: { role: 'user', content: text, timestamp: 0 } });
    this.emit({ type: 'message_end', message: { role: 'user', content: text, timestamp: 0 } });
    return new Promise((resolve) => (this._resolvePrompt = resolve));
  }

  steer(text: string, images?: readonly unknown[]): Promise<'queued'> {
    this.calls.push(`steer:${text}${pictures(images)}`);
    this.steering.push(text);
    this.emit({ type: 'queue_update', steering: [...this.steering], followUp: [...this.followUps] });
    return Promise.resolve('queued');
  }

  followUp(text: string, images?: readonly unknown[]): Promise<'queued'> {
    this.calls.push(`followUp:${text}${pictures(images)}`);
    this.followUps.push(text);
    this.emit({ type: 'queue_update', steering: [...this.steering], followUp: [...this.followUps] });
    return Promise.resolve('queued');
  }

  clearQueue(): { steering: string[]; followUp: string[] } {
    this.calls.push('clearQueue');
    const out = { steering: this.steering, followUp: this.followUps };
    this.steering = [];
    this.followUps = [];
    this.emit({ type: 'queue_update', steering: [], followUp: [] });
    return out;
  }

  /** Like Pi: if queued work were still there, it would start now; abort waits for settle. */
  abort(): Promise<void> {
    this.calls.push(`abort(queued=${this.steering.length + this.followUps.length})`);
    this.settle(true);
    return Promise.resolve();
  }

  /** Ends the run as Pi does: agent_end then agent_settled, and resolves the pending prompt. */
  settle(aborted = false): void {
    if (!this.isStreaming) return;
    this.isStreaming = false;
    this.emit({ type: 'agent_end', messages: [], willRetry: false });
    this.emit({ type: 'agent_settled', aborted });
    this._resolvePrompt?.();
    this._resolvePrompt = undefined;
  }

  compact(): Promise<never> {
    this.calls.push('compact');
    return Promise.reject(new Error('Nothing to compact'));
  }

  abortCompaction(): void {
    this.calls.push('abortCompaction');
  }

  dispose(): void {
    this.calls.push('dispose');
    this.disposed = true;
    this._listeners.clear();
  }

  /** Typed as the controller sees it. */
  asSession(): AgentSessionLike {
    return this as unknown as AgentSessionLike;
  }
}

/** How a call's images show in `calls`: nothing without any, `+N images` with. */
function pictures(images: readonly unknown[] | undefined): string {
  return images?.length ? `+${images.length} images` : '';
}

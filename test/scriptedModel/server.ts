/** A loopback HTTP server speaking OpenAI chat-completions streaming, replaying a scenario step per request. */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isStatusStep, isStreamStep } from './scenario.ts';
import type { Chunk, Scenario, StreamStep } from './scenario.ts';

export const MODEL_ID = 'scripted-model';

export interface ScriptedModelOptions {
  readonly scenario: Scenario;
  /** 0 or absent: any free port. */
  readonly port?: number;
  /** Loopback only; anything else is refused. */
  readonly host?: string;
  /** Append every chat-completions request body as one JSON line to this file. */
  readonly requestsFile?: string;
}

export interface ScriptedModel {
  /** Base URL for Pi's provider config, e.g. `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  readonly port: number;
  /** Each chat-completions request body received, in order (parsed JSON, or the raw text if not JSON). */
  readonly requests: unknown[];
  /** Called with each request body as it arrives, with the index of the step it consumes. */
  onRequest?: (body: unknown, stepIndex: number) => void;
  /** Called right after each text or thinking delta is written to the stream (benches time the way to the screen from here). */
  onDelta?: (piece: string) => void;
  /** Opens gate `name`: a stream held at `{ "hold": name }` goes on, and later holds of that name pass. */
  release(name: string): void;
  /** Resolves once a stream has reached `{ "hold": name }` and is waiting there (or passed it, released). */
  held(name: string): Promise<void>;
  /** Whether a stream has reached `{ "hold": name }`. */
  hasHeld(name: string): boolean;
  /** Stops listening and drops every open connection, hanging ones included. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Splits `text` into pieces of `size` characters (code points, so surrogate pairs stay whole). */
export function splitText(text: string, size: number | undefined): string[] {
  if (text === '') return [];
  if (!size) return [text];
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** One named gate: reached by a stream's hold, opened by the test. */
class Gate {
  private _reached = false;
  private _open = false;
  private readonly _onReached: (() => void)[] = [];
  private readonly _onOpen: (() => void)[] = [];

  get reached(): boolean {
    return this._reached;
  }

  reach(): void {
    this._reached = true;
    this._onReached.splice(0).forEach((f) => f());
  }

  open(): void {
    this._open = true;
    this._onOpen.splice(0).forEach((f) => f());
  }

  whenReached(): Promise<void> {
    return this._reached ? Promise.resolve() : new Promise((r) => this._onReached.push(r));
  }

  /** Resolves when opened or when `gone` aborts. */
  whenOpen(gone: AbortSignal): Promise<void> {
    if (this._open || gone.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this._onOpen.push(resolve);
      gone.addEventListener('abort', () => resolve(), { once: true });
    });
  }
}

/** Gates by name, created on first mention (by a hold or by the test). */
class Gates {
  private readonly _gates = new Map<string, Gate>();
  get(name: string): Gate {
    let gate = this._gates.get(name);
    if (!gate) this._gates.set(name, (gate = new Gate()));
    return gate;
  }
}

/** Writes the SSE frames for one stream step; stops early if the client goes away. */
async function streamStep(
  res: ServerResponse,
  step: StreamStep,
  stepIndex: number,
  gone: AbortSignal,
  gates: Gates,
  sent: (piece: string) => void,
): Promise<void> {
  const id = `chatcmpl-scripted-${stepIndex}`;
  const created = Math.floor(Date.now() / 1000);
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    if (gone.aborted) return;
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: MODEL_ID, choices, ...extra })}\n\n`);
  };
  const delta = (d: Record<string, unknown>): void => frame([{ index: 0, delta: d, finish_reason: null }]);

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  delta({ role: 'assistant', content: '' });

  let toolIndex = 0;
  for (const chunk of step.chunks as readonly Chunk[]) {
    if ('hold' in chunk) {
      const gate = gates.get(chunk.hold);
      gate.reach();
      await gate.whenOpen(gone);
      if (gone.aborted) return;
      continue;
    }
    const delayMs = chunk.delayMs ?? 0;
    if ('text' in chunk) {
      for (const piece of splitText(chunk.text, chunk.split)) {
        await sleep(delayMs, gone);
        delta({ content: piece });
        sent(piece);
      }
    } else if ('thinking' in chunk) {
      for (const piece of splitText(chunk.thinking, chunk.split)) {
        await sleep(delayMs, gone);
        delta({ reasoning_content: piece });
        sent(piece);
      }
    } else {
      const call = chunk.toolCall;
      const index = toolIndex++;
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      await sleep(delayMs, gone);
      delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
      for (const piece of splitText(args, chunk.split)) {
        await sleep(delayMs, gone);
        delta({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
    }
    if (gone.aborted) return;
  }
  if (step.hang) return; // left open: the caller waits for the client to go away
  const finish = step.finish ?? (toolIndex > 0 ? 'tool_calls' : 'stop');
  frame([{ index: 0, delta: {}, finish_reason: finish }]);
  if (step.usage) {
    const { prompt_tokens, completion_tokens } = step.usage;
    frame([], { usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } });
  }
  if (!gone.aborted) res.end('data: [DONE]\n\n');
}

/** Starts the scripted model; resolves once it listens. */
export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new Error(`scripted model listens on loopback only, not "${host}"`);
  const { scenario } = options;
  const requests: unknown[] = [];
  const sockets = new Set<Socket>();
  const gates = new Gates();
  let next = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    // Test control: open a gate, or ask whether a stream waits at one (for tests in another process).
    const control = /^\/(?:v1\/)?control\/(release|held)\/([\w.-]+)$/.exec(path);
    if (control) {
      const [, verb, name] = control as unknown as [string, string, string];
      if (verb === 'release' && req.method === 'POST') {
        gates.get(name).open();
        sendJson(res, 200, { released: name });
      } else if (verb === 'held' && req.method === 'GET') sendJson(res, 200, { held: gates.get(name).reached });
      else sendJson(res, 405, { error: { message: `scripted model: ${req.method} not allowed on ${path}` } });
      return;
    }
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      sendJson(res, 200, { object: 'list', data: [{ id: MODEL_ID, object: 'model', created: 0, owned_by: 'scripted' }] });
      return;
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      sendJson(res, 404, { error: { message: `scripted model: no route for ${req.method} ${req.url}` } });
      return;
    }
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    requests.push(body);
    if (options.requestsFile) appendFileSync(options.requestsFile, JSON.stringify(body) + '\n');
    const stepIndex = next++;
    model.onRequest?.(body, stepIndex);

    const step = scenario.steps[stepIndex];
    if (!step) {
      sendText(res, 500, `scenario exhausted: "${scenario.name}" has ${scenario.steps.length} step(s), this is request ${stepIndex + 1}`);
      return;
    }
    // Aborted when the client disconnects (or close() destroys the socket).
    const goneController = new AbortController();
    res.on('close', () => goneController.abort());
    const gone = goneController.signal;

    if (isStatusStep(step)) {
      await sleep(step.delayMs ?? 0, gone);
      if (!gone.aborted) sendText(res, step.status, step.body ?? '');
      return;
    }
    if (isStreamStep(step)) {
      await streamStep(res, step, stepIndex, gone, gates, (piece) => model.onDelta?.(piece));
      if (step.hang && !gone.aborted) await new Promise((resolve) => gone.addEventListener('abort', resolve, { once: true }));
      return;
    }
    // A bare hang: headers not even sent; the socket stays open until the client leaves.
    await new Promise((resolve) => gone.addEventListener('abort', resolve, { once: true }));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendText(res, 500, `scripted model error: ${String(error)}`);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host === 'localhost' ? '127.0.0.1' : host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '::1' ? '[::1]' : '127.0.0.1';

  const model: ScriptedModel = {
    url: `http://${urlHost}:${port}/v1`,
    port,
    requests,
    release: (name) => gates.get(name).open(),
    held: (name) => gates.get(name).whenReached(),
    hasHeld: (name) => gates.get(name).reached,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
  return model;
}

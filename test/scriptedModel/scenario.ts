/**
 * Scenario format for the scripted model (an OpenAI chat-completions streaming server; each request plays the
 * next step): types, validation and loading.
 *
 * Besides text, thinking and tool-call chunks, a stream step may hold: `{ "hold": "name" }` among its chunks pauses the stream there,
 * after everything before it was sent, until the test releases gate `name` (`model.release(name)` in
 * process, or `POST /control/release/name`), or the client goes away (a cancel). `model.held(name)`
 * (`GET /control/held/name`) says when the stream has reached it, which only the current request can make
 * true, so a test can cancel, steer or hide mid-stream without racing the stream's timing. A gate released
 * before the stream reaches it does not stop it.
 */
import { readFile } from 'node:fs/promises';

/** A streamed piece of text (`content`) or thinking (`reasoning_content`). */
export interface TextChunk {
  readonly text: string;
  /** Characters per delta; default: the whole string in one delta. */
  readonly split?: number;
  /** Pause before each delta, in milliseconds. */
  readonly delayMs?: number;
}

export interface ThinkingChunk {
  readonly thinking: string;
  readonly split?: number;
  readonly delayMs?: number;
}

/** One tool call; several in one step are parallel calls. */
export interface ToolCallChunk {
  readonly toolCall: {
    readonly id: string;
    readonly name: string;
    /** An object is sent as its JSON text; a string is sent verbatim (e.g. deliberately broken JSON). */
    readonly arguments: Readonly<Record<string, unknown>> | string;
  };
  /** Characters of the arguments JSON per delta; default: all in one delta. */
  readonly split?: number;
  readonly delayMs?: number;
}

/** Pause the stream here until the test releases the gate `hold` (or the client goes away). */
export interface HoldChunk {
  readonly hold: string;
}

export type Chunk = TextChunk | ThinkingChunk | ToolCallChunk | HoldChunk;

export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/** A streamed answer. With `hang`, the chunks are sent and then the stream stays open without `finish`. */
export interface StreamStep {
  readonly chunks: readonly Chunk[];
  /** OpenAI `finish_reason`; default `tool_calls` if the step has tool calls, else `stop`. */
  readonly finish?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  readonly usage?: Usage;
  readonly hang?: boolean;
}

/** An HTTP error answer. */
export interface StatusStep {
  readonly status: number;
  readonly body?: string;
  readonly delayMs?: number;
}

/** Keep the connection open, sending nothing, until the client goes away. */
export interface HangStep {
  readonly hang: true;
}

export type Step = StreamStep | StatusStep | HangStep;

export interface Scenario {
  readonly name: string;
  readonly description?: string;
  readonly steps: readonly Step[];
}

/** Thrown for a scenario that does not match the format; the message names the offending path. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

export function isStatusStep(step: Step): step is StatusStep {
  return 'status' in step;
}

export function isStreamStep(step: Step): step is StreamStep {
  return 'chunks' in step;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(where: string, message: string): never {
  throw new ScenarioError(`${where}: ${message}`);
}

function checkKeys(value: Json, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      fail(where, `unknown key "${key}" (allowed: ${allowed.join(', ')})`);
    }
  }
}

function checkPositiveInt(value: unknown, where: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    fail(where, `must be a positive integer, got ${JSON.stringify(value)}`);
  }
}

function checkDelay(value: unknown, where: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(where, `must be a non-negative number of milliseconds, got ${JSON.stringify(value)}`);
  }
}

function validateChunk(chunk: unknown, where: string): void {
  if (!isObject(chunk)) fail(where, 'a chunk must be an object');
  checkPositiveInt(chunk.split, `${where}.split`);
  checkDelay(chunk.delayMs, `${where}.delayMs`);
  const kinds = ['text', 'thinking', 'toolCall', 'hold'].filter((k) => k in chunk);
  if (kinds.length !== 1) {
    fail(where, `a chunk needs exactly one of "text", "thinking", "toolCall", "hold" (found ${kinds.length ? kinds.join(', ') : 'none'})`);
  }
  if ('hold' in chunk) {
    checkKeys(chunk, ['hold'], where);
    if (typeof chunk.hold !== 'string' || !/^[\w.-]+$/.test(chunk.hold)) fail(`${where}.hold`, 'must be a gate name (letters, digits, _ . -)');
  } else if ('text' in chunk) {
    checkKeys(chunk, ['text', 'split', 'delayMs'], where);
    if (typeof chunk.text !== 'string') fail(`${where}.text`, 'must be a string');
  } else if ('thinking' in chunk) {
    checkKeys(chunk, ['thinking', 'split', 'delayMs'], where);
    if (typeof chunk.thinking !== 'string') fail(`${where}.thinking`, 'must be a string');
  } else {
    checkKeys(chunk, ['toolCall', 'split', 'delayMs'], where);
    const call = chunk.toolCall;
    if (!isObject(call)) fail(`${where}.toolCall`, 'must be an object');
    checkKeys(call, ['id', 'name', 'arguments'], `${where}.toolCall`);
    if (typeof call.id !== 'string' || call.id === '') fail(`${where}.toolCall.id`, 'must be a non-empty string');
    if (typeof call.name !== 'string' || call.name === '') fail(`${where}.toolCall.name`, 'must be a non-empty string');
    if (!isObject(call.arguments) && typeof call.arguments !== 'string') {
      fail(`${where}.toolCall.arguments`, 'must be an object or a string');
    }
  }
}

function validateUsage(usage: unknown, where: string): void {
  if (usage === undefined) return;
  if (!isObject(usage)) fail(where, 'must be an object');
  checkKeys(usage, ['prompt_tokens', 'completion_tokens'], where);
  for (const key of ['prompt_tokens', 'completion_tokens']) {
    const n = usage[key];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) fail(`${where}.${key}`, 'must be a non-negative integer');
  }
}

function validateStep(step: unknown, where: string): void {
  if (!isObject(step)) fail(where, 'a step must be an object');
  if ('status' in step) {
    checkKeys(step, ['status', 'body', 'delayMs'], where);
    const status = step.status;
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
      fail(`${where}.status`, `must be an HTTP status code, got ${JSON.stringify(status)}`);
    }
    if (step.body !== undefined && typeof step.body !== 'string') fail(`${where}.body`, 'must be a string');
    checkDelay(step.delayMs, `${where}.delayMs`);
    return;
  }
  if ('chunks' in step) {
    checkKeys(step, ['chunks', 'finish', 'usage', 'hang'], where);
    if (!Array.isArray(step.chunks)) fail(`${where}.chunks`, 'must be an array');
    step.chunks.forEach((c, i) => validateChunk(c, `${where}.chunks[${i}]`));
    const finishes = ['stop', 'tool_calls', 'length', 'content_filter'];
    if (step.finish !== undefined && !finishes.includes(step.finish as string)) {
      fail(`${where}.finish`, `must be one of ${finishes.join(', ')}, got ${JSON.stringify(step.finish)}`);
    }
    if (step.hang !== undefined && typeof step.hang !== 'boolean') fail(`${where}.hang`, 'must be a boolean');
    validateUsage(step.usage, `${where}.usage`);
    return;
  }
  if ('hang' in step) {
    checkKeys(step, ['hang'], where);
    if (step.hang !== true) fail(`${where}.hang`, 'must be true');
    return;
  }
  fail(where, 'a step needs "chunks", "status" or "hang"');
}

/** Checks an untrusted value against the scenario format; throws a ScenarioError naming the bad path. */
export function validateScenario(value: unknown, source = 'scenario'): Scenario {
  if (!isObject(value)) fail(source, 'must be a JSON object');
  checkKeys(value, ['name', 'description', 'steps'], source);
  if (typeof value.name !== 'string' || value.name === '') fail(`${source}.name`, 'must be a non-empty string');
  if (value.description !== undefined && typeof value.description !== 'string') fail(`${source}.description`, 'must be a string');
  if (!Array.isArray(value.steps) || value.steps.length === 0) fail(`${source}.steps`, 'must be a non-empty array');
  value.steps.forEach((s, i) => validateStep(s, `${source}.steps[${i}]`));
  return value as unknown as Scenario;
}

/** Reads and validates a scenario file. */
export async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(`${path}: cannot read scenario (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`${path}: invalid JSON (${(error as Error).message})`);
  }
  return validateScenario(value, path);
}

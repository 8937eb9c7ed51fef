/** The host's check of every message from the webview: a separate, less trusted context whose messages are never used unchecked. */

import { parseImageAttachments } from '../images.ts';
import { isBuiltin } from '../slashCommands.ts';
import { MAX_FIND_CHARS } from '../transcript/find.ts';
import { MAX_PAGE_ROWS } from '../transcript/paging.ts';
import { MAX_PICTURE_ROWS } from '../savedPicture.ts';
import { isViewCommand, parseCommand, type Parsed, type ViewCommandName } from './commands.ts';
import { MAX_SVG_CHARS } from './limits.ts';
import { MAX_DROPPED_URIS, MAX_PROMPT_CHARS, MAX_SESSION_NAME, VIEW_COMMANDS, type ViewCommand, type WebviewToHost } from './webviewProtocol.ts';

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1e7;
const isSessionFile = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 4096 && v.endsWith('.jsonl');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A Pi provider id (`anthropic`, `custom`) or a model's `provider/id`: short, printable, no spaces. */
const isModelName = (v: unknown): v is string => typeof v === 'string' && /^[\w.:@/+-]{1,200}$/.test(v);

const isPath = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 4096 && !v.includes('\0');

export type { Parsed };

/** The messages checked here; the commands' own checks are in their table (`COMMANDS`). */
type OwnType = Exclude<WebviewToHost['type'], ViewCommandName>;

type Message<K extends WebviewToHost['type']> = Extract<WebviewToHost, { type: K }>;

/** One message type's check: given an object whose `type` is that type, the typed message or a reason. */
type Check<K extends OwnType> = (raw: Record<string, unknown>) => Parsed<Message<K>>;

const bare =
  <K extends OwnType>(type: K) =>
  (): Parsed<{ type: K }> => ({ ok: true, msg: { type } });

const sessionFile =
  <K extends 'openSession' | 'deleteSession'>(type: K): Check<K> =>
  (raw) => {
    if (!isSessionFile(raw.file)) return { ok: false, reason: `${type}.file is not a session file path` };
    return { ok: true, msg: { type, file: raw.file } as Message<K> };
  };

/** Every message type's check but the commands': a type added to `WebviewToHost` without one here does not compile. */
const CHECKS: { readonly [K in OwnType]: Check<K> } = {
  ready: bare('ready'),
  listCommands: bare('listCommands'),
  cancel: bare('cancel'),
  forceIdle: bare('forceIdle'),
  showLog: bare('showLog'),
  focused: bare('focused'),
  continueInterrupted: bare('continueInterrupted'),
  pickFile: bare('pickFile'),
  showTree: bare('showTree'),
  send: (raw) => {
    if (typeof raw.text !== 'string') return { ok: false, reason: 'send.text is not a string' };
    if (raw.mode !== 'prompt' && raw.mode !== 'steer' && raw.mode !== 'followUp') return { ok: false, reason: 'send.mode is not prompt, steer or followUp' };
    if (raw.text.length > MAX_PROMPT_CHARS) return { ok: false, reason: `send.text is longer than ${MAX_PROMPT_CHARS} characters` };
    if (raw.images === undefined) return { ok: true, msg: { type: 'send', text: raw.text, mode: raw.mode } };
    const images = parseImageAttachments(raw.images);
    if (!images.ok) return { ok: false, reason: `send.${images.reason}` };
    return { ok: true, msg: { type: 'send', text: raw.text, mode: raw.mode, ...(images.images.length ? { images: images.images } : {}) } };
  },
  listSessions: (raw) => {
    if (typeof raw.query !== 'string' || raw.query.length > 500) return { ok: false, reason: 'listSessions.query is not a string of sensible length' };
    if (!isCount(raw.offset)) return { ok: false, reason: 'listSessions.offset is not a count' };
    return { ok: true, msg: { type: 'listSessions', query: raw.query, offset: raw.offset } };
  },
  openSession: sessionFile('openSession'),
  deleteSession: sessionFile('deleteSession'),
  renameSession: (raw) => {
    if (!isSessionFile(raw.file)) return { ok: false, reason: 'renameSession.file is not a session file path' };
    if (typeof raw.name !== 'string' || !raw.name.trim() || raw.name.length > MAX_SESSION_NAME)
      return { ok: false, reason: `renameSession.name is not a non-empty string of at most ${MAX_SESSION_NAME} characters` };
    return { ok: true, msg: { type: 'renameSession', file: raw.file, name: raw.name } };
  },
  runCommand: (raw) => {
    if (!VIEW_COMMANDS.includes(raw.command as ViewCommand)) return { ok: false, reason: 'runCommand.command is not one the view may run' };
    return { ok: true, msg: { type: 'runCommand', command: raw.command as ViewCommand } };
  },
  slash: (raw) => {
    if (typeof raw.name !== 'string' || !isBuiltin(raw.name)) return { ok: false, reason: 'slash.name is not a built-in command' };
    if (typeof raw.args !== 'string' || raw.args.length > MAX_PROMPT_CHARS) return { ok: false, reason: 'slash.args is not a string of sensible length' };
    // `/name` is a rename: the same cap as the Sessions list's.
    if (raw.name === 'name' && raw.args.trim().length > MAX_SESSION_NAME)
      return { ok: false, reason: `slash /name takes a title of at most ${MAX_SESSION_NAME} characters` };
    return { ok: true, msg: { type: 'slash', name: raw.name, args: raw.args } };
  },
  composerImages: (raw) => {
    const images = parseImageAttachments(raw.images);
    if (!images.ok) return { ok: false, reason: `composerImages.${images.reason}` };
    return { ok: true, msg: { type: 'composerImages', images: images.images } };
  },
  loadEarlier: (raw) => {
    // A row only the main thread shows has an id between two whole ones (see `hostRowId` in reduce.ts).
    if (typeof raw.before !== 'number' || !Number.isFinite(raw.before) || raw.before <= 0)
      return { ok: false, reason: 'loadEarlier.before is not a message id' };
    if (!Number.isSafeInteger(raw.count) || (raw.count as number) < 1 || (raw.count as number) > MAX_PAGE_ROWS)
      return { ok: false, reason: `loadEarlier.count is not a whole number from 1 to ${MAX_PAGE_ROWS}` };
    return { ok: true, msg: { type: 'loadEarlier', before: raw.before as number, count: raw.count as number } };
  },
  loadAround: (raw) => {
    if (typeof raw.id !== 'number' || !Number.isFinite(raw.id) || raw.id <= 0) return { ok: false, reason: 'loadAround.id is not a message id' };
    if (!Number.isSafeInteger(raw.count) || (raw.count as number) < 1 || (raw.count as number) > MAX_PAGE_ROWS)
      return { ok: false, reason: `loadAround.count is not a whole number from 1 to ${MAX_PAGE_ROWS}` };
    return { ok: true, msg: { type: 'loadAround', id: raw.id as number, count: raw.count as number } };
  },
  savedPicture: (raw) => {
    // Checked node by node when it is drawn (`pictureHtml`); here only its size.
    if (!Array.isArray(raw.rows) || raw.rows.length > MAX_PICTURE_ROWS) return { ok: false, reason: 'savedPicture.rows is not a list of rows' };
    return { ok: true, msg: { type: 'savedPicture', rows: raw.rows as unknown[] } };
  },
  openLink: (raw) => {
    if (typeof raw.href !== 'string' || raw.href.length > 8192) return { ok: false, reason: 'openLink.href is not a string of sensible length' };
    return { ok: true, msg: { type: 'openLink', href: raw.href } };
  },
  insertCode: (raw) => {
    if (typeof raw.text !== 'string' || raw.text.length > MAX_PROMPT_CHARS) return { ok: false, reason: 'insertCode.text is not a string of sensible length' };
    return { ok: true, msg: { type: 'insertCode', text: raw.text } };
  },
  find: (raw) => {
    if (typeof raw.query !== 'string' || raw.query.length > MAX_FIND_CHARS) return { ok: false, reason: 'find.query is not a string of sensible length' };
    if (!Number.isSafeInteger(raw.seq)) return { ok: false, reason: 'find.seq is not a whole number' };
    return { ok: true, msg: { type: 'find', query: raw.query, seq: raw.seq as number } };
  },
  openSvg: (raw) => {
    if (typeof raw.svg !== 'string' || raw.svg.length > MAX_SVG_CHARS || !raw.svg.startsWith('<svg'))
      return { ok: false, reason: 'openSvg.svg is not an SVG of sensible length' };
    return { ok: true, msg: { type: 'openSvg', svg: raw.svg } };
  },
  openFile: (raw) => {
    if (!isPath(raw.path)) return { ok: false, reason: 'openFile.path is not a path' };
    const line = raw.line;
    if (line !== undefined && !(typeof line === 'number' && Number.isInteger(line) && line > 0))
      return { ok: false, reason: 'openFile.line is not a line number' };
    return {
      ok: true,
      msg: { type: 'openFile', path: raw.path, ...(line !== undefined ? { line } : {}), ...(raw.firstChange === true ? { firstChange: true } : {}) },
    };
  },
  dropUris: (raw) => {
    if (!Array.isArray(raw.uris) || raw.uris.length > MAX_DROPPED_URIS || !raw.uris.every((u) => typeof u === 'string' && u.length > 0 && u.length <= 8192))
      return { ok: false, reason: `dropUris.uris is not a list of at most ${MAX_DROPPED_URIS} URIs` };
    return { ok: true, msg: { type: 'dropUris', uris: raw.uris as string[] } };
  },
  openDiff: (raw) => {
    if (!isPath(raw.path)) return { ok: false, reason: 'openDiff.path is not a path' };
    if (raw.runId !== undefined && (typeof raw.runId !== 'string' || raw.runId.length > 100)) return { ok: false, reason: 'openDiff.runId is not a run id' };
    return { ok: true, msg: { type: 'openDiff', path: raw.path, ...(raw.runId !== undefined ? { runId: raw.runId } : {}) } };
  },
  undo: (raw) => {
    if (raw.path !== undefined && !isPath(raw.path)) return { ok: false, reason: 'undo.path is not a path' };
    if (raw.runId !== undefined && (typeof raw.runId !== 'string' || raw.runId.length > 100)) return { ok: false, reason: 'undo.runId is not a run id' };
    return {
      ok: true,
      msg: { type: 'undo', ...(raw.path !== undefined ? { path: raw.path } : {}), ...(raw.runId !== undefined ? { runId: raw.runId } : {}) },
    };
  },
  signIn: (raw) => {
    if (!isModelName(raw.provider)) return { ok: false, reason: 'signIn.provider is not a provider id' };
    if (raw.method !== 'oauth' && raw.method !== 'apiKey' && raw.method !== 'custom')
      return { ok: false, reason: 'signIn.method is not oauth, apiKey or custom' };
    return { ok: true, msg: { type: 'signIn', provider: raw.provider, method: raw.method } };
  },
  pickModel: (raw) => {
    if (!isModelName(raw.model) || !raw.model.includes('/')) return { ok: false, reason: 'pickModel.model is not provider/id' };
    if (raw.scope !== 'chat' && raw.scope !== 'default') return { ok: false, reason: 'pickModel.scope is not chat or default' };
    return { ok: true, msg: { type: 'pickModel', model: raw.model, scope: raw.scope } };
  },
  favouriteModel: (raw) => {
    if (!isModelName(raw.model) || !raw.model.includes('/')) return { ok: false, reason: 'favouriteModel.model is not provider/id' };
    if (typeof raw.on !== 'boolean') return { ok: false, reason: 'favouriteModel.on is not a boolean' };
    return { ok: true, msg: { type: 'favouriteModel', model: raw.model, on: raw.on } };
  },
  signOut: (raw) => {
    if (!isModelName(raw.provider)) return { ok: false, reason: 'signOut.provider is not a provider id' };
    return { ok: true, msg: { type: 'signOut', provider: raw.provider } };
  },
};

/**
 * Checks a message from the webview. Returns it typed, or a reason it was rejected; the webview is
 * a separate, less trusted context and its messages are never used unchecked.
 */
export function parseWebviewMessage(raw: unknown): Parsed<WebviewToHost> {
  if (!isObject(raw) || typeof raw.type !== 'string') return { ok: false, reason: 'not an object with a string "type"' };
  // An own key only: `constructor` or `__proto__` must not find a check.
  if (isViewCommand(raw.type)) return parseCommand(raw.type, raw);
  if (!Object.hasOwn(CHECKS, raw.type)) return { ok: false, reason: `unknown message type ${JSON.stringify(raw.type).slice(0, 40)}` };
  return (CHECKS[raw.type as OwnType] as Check<OwnType>)(raw);
}

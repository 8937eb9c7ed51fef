/** The webview's one line to the extension host: `post()` funnel and UI-state persistence. */

import type { WebviewToHost } from '../shared/wire/webviewProtocol.ts';

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api: VsCodeApi = acquireVsCodeApi();

/** An editor tab's chat key (from the page): kept in the state VS Code hands the tab back after a window reload. */
const chatKey = document.body.dataset.chatKey;
if (chatKey) {
  const kept = api.getState();
  api.setState({ ...(typeof kept === 'object' && kept !== null ? kept : {}), chatKey });
}

/** Sends an intent to the host. Never awaited; the host validates everything it receives. */
export function post(msg: WebviewToHost): void {
  api.postMessage(msg);
}

/** UI state only (scroll, collapsed blocks, draft, input history); the transcript itself comes from the host. */
export interface UiState {
  readonly draft: string;
  readonly history: readonly string[];
  /** Keys `messageId:contentIndex` of blocks whose open/closed state the user chose. */
  readonly toggled: Readonly<Record<string, boolean>>;
  /** Whether the view followed the newest message, and how far from the bottom it was otherwise. */
  readonly follow: boolean;
  readonly fromBottom: number;
  /** A picture of the rows on screen (savedRender.ts), drawn at once when the view is shown again; checked when drawn. */
  readonly render?: unknown;
  /** The composer had the focus when the page lost it: a page made again gives it back (composerFocus.ts). */
  readonly composerFocus?: boolean;
}

const emptyUi: UiState = { draft: '', history: [], toggled: {}, follow: true, fromBottom: 0 };

export function loadUiState(): UiState {
  const raw = api.getState();
  if (typeof raw !== 'object' || raw === null) return emptyUi;
  const r = raw as Record<string, unknown>;
  const toggled = Object.create(null) as Record<string, boolean>;
  if (typeof r.toggled === 'object' && r.toggled !== null) {
    for (const [k, v] of Object.entries(r.toggled)) if (typeof v === 'boolean') toggled[k] = v;
  }
  return {
    draft: typeof r.draft === 'string' ? r.draft : '',
    history: Array.isArray(r.history) ? r.history.filter((h): h is string => typeof h === 'string').slice(-100) : [],
    toggled,
    follow: r.follow !== false,
    fromBottom: typeof r.fromBottom === 'number' && Number.isFinite(r.fromBottom) ? r.fromBottom : 0,
    render: r.render,
    composerFocus: r.composerFocus === true,
  };
}

let pending: UiState | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Keys kept in `toggled`, newest last; older choices are forgotten. */
const MAX_TOGGLED = 500;
/** History entries longer than this are not kept across reloads (a pasted file is not worth the state). */
const MAX_HISTORY_ENTRY = 10_000;

/** Saves UI state, coalesced: typing and scrolling call this often. */
export function saveUiState(state: UiState): void {
  const keys = Object.keys(state.toggled);
  const toggled = keys.length > MAX_TOGGLED ? Object.fromEntries(keys.slice(-MAX_TOGGLED).map((k) => [k, state.toggled[k]!])) : state.toggled;
  pending = { ...state, toggled, history: state.history.filter((h) => h.length <= MAX_HISTORY_ENTRY) };
  if (timer !== undefined) return;
  timer = setTimeout(() => {
    timer = undefined;
    if (pending) api.setState(chatKey ? { ...pending, chatKey } : pending);
  }, 200);
}

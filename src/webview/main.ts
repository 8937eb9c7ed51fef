/**
 * The chat webview's entry: receives snapshots and batches from the host, runs the shared reducer,
 * and renders once per animation frame (latest state wins). User intents go out through `post()`.
 */

import type { HostToWebview, SendMode, SessionInfoView, WireEvent } from '../shared/protocol.ts';
import { runPhase, type RunState } from '../shared/runState.ts';
import { initialTranscript, prependRows, reduceOne, type MessageView, type TranscriptState } from '../shared/transcript.ts';
import { Composer, QueueStrip } from './composer.ts';
import { h, setAttr, setHidden, setText } from './dom.ts';
import { markdownBody } from './markdown.ts';
import { ScrollAnchor } from './scroll.ts';
import { PAGE_ROWS, TranscriptView } from './transcriptView.ts';
import { loadUiState, post, saveUiState } from './vscodeApi.ts';

const saved = loadUiState();
const toggled: Record<string, boolean> = { ...saved.toggled };

let state: TranscriptState = initialTranscript;
let session: SessionInfoView = { ready: false };
let frame = 0;
/** Id of the row a `loadEarlier` asked for rows before, while its reply is awaited (0: none). */
let loadingBefore = 0;
/** Highest message id already announced to screen readers (or present when the view opened). */
let announced = 0;

const app = document.getElementById('app') ?? document.body.appendChild(h('div', { id: 'app' }));

// The model and thinking level are pickers: they run the palette commands in the host.
const model = h('button', { type: 'button', class: 'model header-picker', 'data-action': 'select-model', 'aria-label': 'Select model' });
const level = h('button', {
  type: 'button',
  class: 'thinking-level header-picker',
  'data-action': 'set-thinking-level',
  'aria-label': 'Set thinking level',
  hidden: true,
});
const context = h('span', { class: 'context-usage', title: "How full the model's context window is" });
const title = h('span', { class: 'session-name' });
const header = h('header', { class: 'header' }, model, level, context, title);
header.addEventListener('click', (e) => {
  const action = (e.target as Element).closest('[data-action]')?.getAttribute('data-action');
  if (action === 'select-model') post({ type: 'runCommand', command: 'selectModel' });
  else if (action === 'set-thinking-level') post({ type: 'runCommand', command: 'setThinkingLevel' });
});

const transcript = new TranscriptView(
  {
    isOpen: (key) => toggled[key],
    setOpen: (key, open) => {
      toggled[key] = open;
      persist();
    },
  },
  markdownBody,
);
const working = h('div', { class: 'working', hidden: true, 'aria-hidden': 'true' }, h('span', { class: 'spinner' }), 'Working…');
const content = h('div', { class: 'scroll-content' }, transcript.earlier, transcript.el, working);
const scroller = h('main', { class: 'scroller', tabindex: '0', 'aria-label': 'Conversation' }, content);
const anchor = new ScrollAnchor(scroller, content, saved.follow);
const statusText = h('span', { class: 'status-text' });
// Offered when a run has gone quiet: cancel it and send the last prompt again.
const stalledRetry = h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': 'retry-last', hidden: true }, 'Cancel and retry');
const statusLine = h('div', { class: 'status-line', role: 'status', hidden: true }, statusText, stalledRetry);
const announcer = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
const queue = new QueueStrip();

const composer = new Composer(
  {
    send: (text: string, mode: SendMode) => {
      post({ type: 'send', text, mode });
      anchor.toBottom();
    },
    cancel: () => post({ type: 'cancel' }),
    changed: () => persist(),
  },
  saved.draft,
  saved.history,
);

app.replaceChildren(header, h('div', { class: 'scroll-area' }, scroller, anchor.jump), statusLine, queue.el, composer.el, announcer);
anchor.onChange = () => persist();

function persist(): void {
  saveUiState({ draft: composer.draft, history: composer.history, toggled, follow: anchor.following, fromBottom: anchor.fromBottom });
}

// One delegated handler for everything clickable inside the transcript.
content.addEventListener('click', (e) => {
  const target = e.target as Element;
  const link = target.closest('a');
  if (link) {
    e.preventDefault();
    const href = link.getAttribute('data-href');
    if (href) post({ type: 'openLink', href });
    return;
  }
  const actionEl = target.closest('[data-action]');
  if (!actionEl) return;
  switch (actionEl.getAttribute('data-action')) {
    case 'load-earlier':
      showEarlier();
      return;
    case 'force-idle':
      post({ type: 'forceIdle' });
      return;
    case 'show-log':
      post({ type: 'showLog' });
      return;
    case 'retry-last':
      post({ type: 'retryLast' });
      return;
    case 'toggle-block': {
      const block = actionEl.closest('[data-block]');
      const row = actionEl.closest('[data-msg-id]');
      if (!block || !row) return;
      const key = `${row.getAttribute('data-msg-id')}:${block.getAttribute('data-content-index')}`;
      toggled[key] = actionEl.getAttribute('aria-expanded') !== 'true';
      transcript.refreshPart(actionEl);
      persist();
      return;
    }
    case 'tool-show-all': {
      const card = actionEl.closest('[data-tool-call-id]');
      if (!card) return;
      const key = `tool:${card.getAttribute('data-tool-call-id')}`;
      toggled[key] = !toggled[key];
      transcript.refreshPart(actionEl);
      return;
    }
    case 'result-show-all': {
      const row = actionEl.closest('[data-msg-id]');
      if (!row) return;
      const key = `result:${row.getAttribute('data-msg-id')}`;
      toggled[key] = !toggled[key];
      transcript.refreshPart(actionEl);
      return;
    }
    case 'copy-code':
    case 'insert-code': {
      const code = actionEl.closest('.code-block')?.querySelector('code')?.textContent ?? '';
      if (actionEl.getAttribute('data-action') === 'insert-code') post({ type: 'insertCode', text: code });
      else void copyText(code, actionEl);
      return;
    }
    default:
      return;
  }
});
// Links are activated by keyboard too; middle clicks never open anything.
content.addEventListener('auxclick', (e) => {
  if ((e.target as Element).closest('a')) e.preventDefault();
});
content.addEventListener('keydown', (e) => {
  const link = (e.target as Element).closest?.('a[data-href]');
  if (link && e.key === 'Enter') {
    e.preventDefault();
    post({ type: 'openLink', href: link.getAttribute('data-href')! });
  }
});

/** How close to the top (px) a scroll counts as reaching it. */
const TOP_SLACK_PX = 4;
// Reaching the top pages in earlier rows, as the "show earlier" button does.
scroller.addEventListener(
  'scroll',
  () => {
    if (scroller.scrollTop <= TOP_SLACK_PX && !transcript.earlier.hidden) showEarlier();
  },
  { passive: true },
);

/** Shows older rows: those the state holds but the DOM does not, else the host's previous page. */
function showEarlier(): void {
  if (transcript.first > 0) anchor.keepPosition(() => transcript.showEarlier());
  else requestEarlier();
}

/** Asks the host for the page before the first row held, once at a time. */
function requestEarlier(): void {
  const first = state.messages[0];
  if (loadingBefore || transcript.remote <= 0 || !first) return;
  loadingBefore = first.id;
  post({ type: 'loadEarlier', before: first.id, count: PAGE_ROWS });
}

/** Puts a `loadEarlier` reply above the rows on screen, keeping what the user sees in place. */
function onEarlier(msg: Extract<HostToWebview, { type: 'earlier' }>): void {
  const asked = loadingBefore;
  loadingBefore = 0;
  // A reply to an older question, or for a transcript replaced since (a reset, a snapshot), is dropped.
  if (msg.before !== asked || state.messages[0]?.id !== msg.before || !Array.isArray(msg.messages)) return;
  const next = prependRows(state, msg.messages, msg.tools ?? {});
  if (next === state) return;
  state = next;
  transcript.remote = typeof msg.earlier === 'number' ? msg.earlier : 0;
  anchor.keepPosition(() => {
    transcript.expectPrepend();
    transcript.render(state, false);
  });
}

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !e.defaultPrevented && runPhase(state.run) !== 'idle') {
    e.preventDefault();
    post({ type: 'cancel' });
  }
});

async function copyText(text: string, button: Element): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Copy failed';
  }
  setTimeout(() => {
    button.textContent = 'Copy';
  }, 1500);
}

const warned = new Set<string>();
function warnOnce(what: string): void {
  if (warned.has(what)) return;
  warned.add(what);
  console.warn(`[pi webview] ${what}`);
}

/**
 * Joins runs of deltas to the same block into one: the reducer then copies the transcript once per run
 * instead of once per delta (a frame at 2,000 deltas/s carries about 30 of them).
 */
function coalesce(events: readonly WireEvent[]): WireEvent[] {
  const out: WireEvent[] = [];
  for (const ev of events) {
    const last = out[out.length - 1];
    if (ev.type === 'delta' && last?.type === 'delta' && last.index === ev.index && typeof ev.text === 'string') {
      out[out.length - 1] = { type: 'delta', index: ev.index, text: last.text + ev.text };
    } else out.push(ev);
  }
  return out;
}

/** Applies wire events one by one; an event this version does not know is skipped, never fatal. */
function applyEvents(events: readonly WireEvent[]): void {
  let s = state;
  for (const ev of coalesce(events)) {
    try {
      const next = reduceOne(s, ev);
      if (next) s = next;
      else warnOnce(`ignored unknown event ${String((ev as { type?: unknown }).type)}`);
    } catch (err) {
      warnOnce(`failed to apply ${String((ev as { type?: unknown }).type)}: ${String(err)}`);
    }
  }
  state = s;
}

function onMessage(raw: unknown): void {
  if (typeof raw !== 'object' || raw === null || typeof (raw as { type?: unknown }).type !== 'string') return;
  const msg = raw as HostToWebview;
  switch (msg.type) {
    case 'snapshot':
      loadingBefore = 0;
      transcript.remote = typeof msg.earlier === 'number' ? msg.earlier : 0;
      state = msg.state;
      session = msg.session ?? session;
      announced = lastFinalId(state.messages);
      schedule();
      return;
    case 'batch':
      if (Array.isArray(msg.events)) {
        // A new session: nothing earlier to page in.
        if (msg.events.some((ev) => ev?.type === 'reset')) {
          transcript.remote = 0;
          loadingBefore = 0;
        }
        applyEvents(msg.events);
      }
      schedule();
      return;
    case 'earlier':
      onEarlier(msg);
      schedule();
      return;
    case 'session':
      session = msg.session;
      schedule();
      return;
    case 'restoreInput':
      if (Array.isArray(msg.texts)) composer.restore(msg.texts.filter((t): t is string => typeof t === 'string'));
      return;
    case 'focusComposer':
      composer.focus();
      return;
    default:
      warnOnce(`ignored unknown message ${String((msg as { type: string }).type)}`);
  }
}

function schedule(): void {
  if (!frame) frame = requestAnimationFrame(render);
}

let renderedSession: SessionInfoView | undefined;
let renderedRun: RunState | undefined;
let retryTimer: ReturnType<typeof setInterval> | undefined;

function render(): void {
  frame = 0;
  const phase = runPhase(state.run);
  setAttr(document.body, 'data-run-state', phase);
  transcript.render(state, anchor.following);
  composer.setRunning(phase !== 'idle');
  queue.update(state.queue);
  setHidden(working, !(state.run.active && state.openIndex < 0 && phase === 'running'));
  if (session !== renderedSession) {
    renderedSession = session;
    transcript.collapseThinking = session.collapseThinking ?? true;
    setText(model, session.model ?? (session.ready ? 'No model configured' : 'Starting Pi…'));
    setAttr(model, 'title', session.modelId ? `${session.modelId} (click to change)` : 'Select a model');
    setText(context, session.contextPercent !== undefined ? `context ${session.contextPercent}%` : '');
  }
  const thinking = state.thinkingLevel ?? session.thinkingLevel;
  setText(level, thinking ? `thinking: ${thinking}` : '');
  setHidden(level, !thinking);
  setText(title, state.sessionName ?? '');
  if (state.run !== renderedRun) {
    renderedRun = state.run;
    renderStatus();
  }
  announceFinished(state.messages);
}

/** The inline status line: retry countdown, compaction, cancelling, no response. */
function renderStatus(): void {
  const r = state.run;
  let text = '';
  if (r.cancelling && (r.active || r.compaction)) text = 'Cancelling…';
  else if (r.compaction) text = `Compacting the conversation (${r.compaction.reason})…`;
  else if (r.retry) {
    const wait = Math.max(0, Math.ceil((r.retry.nextAt - Date.now()) / 1000));
    text = r.retry.waiting
      ? `Provider error: ${r.retry.errorMessage} — retry ${r.retry.attempt}/${r.retry.maxAttempts} in ${wait} s`
      : `Retrying (attempt ${r.retry.attempt}/${r.retry.maxAttempts})…`;
  } else if (r.stalled && r.active) {
    const secs = Math.max(1, Math.round((Date.now() - (r.stalledSince ?? r.since)) / 1000));
    text = `No response from Pi for ${secs} s. Cancel the run, or cancel and retry.`;
  } else if (!r.active && r.retryFailure) text = `Retries failed: ${r.retryFailure.message}`;
  else if (!r.active && r.lastCompaction && !r.lastCompaction.ok)
    text = r.lastCompaction.aborted ? 'Compaction cancelled.' : `Compaction failed: ${r.lastCompaction.errorMessage ?? 'unknown error'}`;
  setText(statusText, text);
  setHidden(stalledRetry, !(r.stalled && r.active && !r.cancelling));
  setHidden(statusLine, text === '');
  const ticking = r.retry?.waiting === true || (r.stalled && r.active);
  if (ticking && retryTimer === undefined) retryTimer = setInterval(renderStatus, 1000);
  else if (!ticking && retryTimer !== undefined) {
    clearInterval(retryTimer);
    retryTimer = undefined;
  }
}

function lastFinalId(messages: readonly MessageView[]): number {
  let id = 0;
  for (const m of messages) {
    if (!m.final) break;
    id = m.id;
  }
  return id;
}

/** Tells screen readers about finished replies and notices, once each, never about every delta. */
function announceFinished(messages: readonly MessageView[]): void {
  let i = messages.length;
  while (i > 0 && messages[i - 1]!.id > announced) i--;
  const parts: string[] = [];
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    if (!m.final) break;
    announced = m.id;
    if (m.role === 'assistant') {
      const text = m.blocks
        .filter((b) => b?.kind === 'text')
        .map((b) => b!.text)
        .join(' ')
        .trim();
      const stop = m.stopReason === 'aborted' ? ' (cancelled)' : m.stopReason === 'error' ? ` Error: ${m.errorMessage ?? ''}` : '';
      if (text || stop) parts.push(`Pi: ${text.slice(0, 400)}${stop}`);
    } else if (m.role === 'notice') parts.push(m.blocks[0]?.text.slice(0, 400) ?? '');
  }
  if (parts.length) announcer.textContent = parts.join('\n');
}

window.addEventListener('message', (e: MessageEvent) => onMessage(e.data));
if (saved.follow === false) requestAnimationFrame(() => anchor.restore(false, saved.fromBottom));
post({ type: 'ready' });

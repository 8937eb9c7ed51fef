/**
 * The chat webview's entry: receives snapshots and batches from the host, runs the shared reducer,
 * and renders once per animation frame (latest state wins). User intents go out through `post()`.
 */

import { showBidiControls } from '../shared/bidi.ts';
import type { HostToWebview, SessionInfoView, ViewMode } from '../shared/wire/webviewProtocol.ts';
import { isKnownEvent, type WireEvent } from '../shared/wire/events.ts';
import { statsLine } from '../shared/sessions.ts';
import { runPhase, type RunState } from '../shared/run/runState.ts';
import { summaryRetryText } from '../shared/run/runCondition.ts';
import { initialTranscript, reduceOne } from '../shared/transcript/reduce.ts';
import { prependRows } from '../shared/transcript/paging.ts';
import type { MessageView, TranscriptState, UserRow } from '../shared/transcript/rows.ts';
import { Announcer, markFocus, restoreFocus, spokenText } from './a11y.ts';
import { isCodeChip } from '../shared/chips.ts';
import { Composer, QueueStrip } from './composer.ts';
import { isImageMimeType, parseImageAttachments, type ImageAttachment } from '../shared/images.ts';
import { ImageViewer } from './images.ts';
import { DialogList, ShellLive, WidgetStrip } from './extensionUi.ts';
import { h, setAttr, setHidden, setText } from './dom.ts';
import { renderMarkdown, safeHref } from './markdown.ts';
import { markdownBody } from './markdownStream.ts';
import { ScrollAnchor } from './scroll.ts';
import { SessionsView } from './sessionsView.ts';
import { SessionTreeView } from './sessionTree.ts';
import { PAGE_ROWS, TranscriptView } from './transcriptView.ts';
import { loadUiState, post, saveUiState } from './vscodeApi.ts';

const saved = loadUiState();
// Keys embed tool-call ids, which the endpoint chooses: no prototype to find members on.
const toggled: Record<string, boolean> = Object.assign(Object.create(null) as Record<string, boolean>, saved.toggled);

let state: TranscriptState = initialTranscript;
let session: SessionInfoView = { ready: false };
let frame = 0;
/** Id of the row a `loadEarlier` asked for rows before, while its reply is awaited (0: none). */
let loadingBefore = 0;
/** Highest message id already announced to screen readers (or present when the view opened). */
let announced = 0;

const app = document.getElementById('app') ?? document.body.appendChild(h('div', { id: 'app' }));

// The model and thinking level are pickers: they run the palette commands in the host. Their visible
// text (the model name, the level) is their accessible name; what they do is their description (title).
const model = h('button', { type: 'button', class: 'model header-picker', 'data-action': 'select-model', title: 'Select a model' });
const level = h('button', {
  type: 'button',
  class: 'thinking-level header-picker',
  'data-action': 'set-thinking-level',
  title: 'Set the thinking level',
  hidden: true,
});
const context = h('span', { class: 'context-usage', title: "How full the model's context window is" });
const title = h('span', { class: 'session-name' });
const showSessions = h('button', { type: 'button', class: 'header-picker', 'data-action': 'show-sessions', 'aria-label': 'Show sessions' }, 'Sessions');
const showTree = h('button', { type: 'button', class: 'header-picker', 'data-action': 'show-tree', 'aria-label': "Show this session's branches" }, 'Branches');
const header = h('header', { class: 'header' }, model, level, context, title, showSessions, showTree);
header.addEventListener('click', (e) => {
  const action = (e.target as Element).closest('[data-action]')?.getAttribute('data-action');
  if (action === 'select-model') post({ type: 'runCommand', command: 'selectModel' });
  else if (action === 'set-thinking-level') post({ type: 'runCommand', command: 'setThinkingLevel' });
  else if (action === 'show-sessions') setMode('sessions');
  else if (action === 'show-tree') setMode('tree');
});

const transcript = new TranscriptView(
  {
    isOpen: (key) => toggled[key],
    cwd: () => session.cwd,
    setOpen: (key, open) => {
      toggled[key] = open;
      persist();
    },
  },
  markdownBody,
);
const workingText = h('span', { class: 'working-text' }, 'Working…');
const working = h('div', { class: 'working', hidden: true, 'aria-hidden': 'true' }, h('span', { class: 'spinner' }), workingText);
const dialogs = new DialogList({ answer: (id, value) => post(value === undefined ? { type: 'answerDialog', id } : { type: 'answerDialog', id, value }) });
const widgets = new WidgetStrip();
const shell = new ShellLive();
const content = h('div', { class: 'scroll-content' }, transcript.earlier, transcript.el, shell.el, dialogs.el, working);
const scroller = h('main', { class: 'scroller', tabindex: '0', 'aria-label': 'Conversation' }, content);
const anchor = new ScrollAnchor(scroller, content, saved.follow);
const statusText = h('span', { class: 'status-text' });
// Offered when a run has gone quiet: cancel it and send the last prompt again.
const stalledRetry = h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': 'retry-last', hidden: true }, 'Cancel and retry');
// Not a live region itself: its countdown ticks every second. Changes of state are told by `statusAnnouncer`.
const statusLine = h('div', { class: 'status-line', hidden: true }, statusText, stalledRetry);
const announcer = new Announcer('announce-replies');
const statusAnnouncer = new Announcer('announce-status');
const queue = new QueueStrip();
const imageViewer = new ImageViewer();

const composer = new Composer(
  {
    send: (text, mode, images) => {
      post({ type: 'send', text, mode, ...(images?.length ? { images } : {}) });
      anchor.toBottom();
    },
    cancel: () => post({ type: 'cancel' }),
    pickFile: () => post({ type: 'pickFile' }),
    changed: () => {
      persist();
      reportComposerText();
    },
    slash: (name, args) => post({ type: 'slash', name, args }),
    bash: (command, excluded) => {
      post({ type: 'bash', command, excluded });
      anchor.toBottom();
    },
    requestCommands: () => post({ type: 'listCommands' }),
    imagesChanged: (images) => post({ type: 'composerImages', images }),
  },
  saved.draft,
  saved.history,
);

const sessionsView = new SessionsView(post, () => setMode('chat'));
const treeView = new SessionTreeView(post, () => setMode('chat'));
const chatArea = h('div', { class: 'scroll-area' }, scroller, anchor.jump);
app.replaceChildren(
  header,
  chatArea,
  sessionsView.el,
  treeView.el,
  statusLine,
  widgets.el,
  queue.el,
  composer.el,
  announcer.el,
  statusAnnouncer.el,
  imageViewer.el,
);
let mode: ViewMode = 'chat';

/** Shows the chat, the Sessions list or the tree in the view's body; the header stays. */
function setMode(next: ViewMode): void {
  mode = next;
  setHidden(chatArea, next !== 'chat');
  setHidden(sessionsView.el, next !== 'sessions');
  setHidden(treeView.el, next !== 'tree');
  setHidden(composer.el, next !== 'chat');
  setAttr(showSessions, 'aria-pressed', String(next === 'sessions'));
  setAttr(showTree, 'aria-pressed', String(next === 'tree'));
  if (next === 'sessions') {
    sessionsView.reload();
    sessionsView.focus();
  } else if (next === 'tree') post({ type: 'showTree' });
  else composer.focus();
}

let composerTimer: ReturnType<typeof setTimeout> | undefined;
/** Set by the host while Pi's extensions are bound. */
let trackComposer = false;
/** Lets an extension's `getEditorText()` read the draft; at most a few times a second while typing. */
function reportComposerText(): void {
  if (!trackComposer || composerTimer !== undefined) return;
  composerTimer = setTimeout(() => {
    composerTimer = undefined;
    post({ type: 'composerText', text: composer.draft });
  }, 300);
}
anchor.onChange = () => persist();

function persist(): void {
  saveUiState({ draft: composer.draft, history: composer.history, toggled, follow: anchor.following, fromBottom: anchor.fromBottom });
}

// One delegated handler for everything clickable inside the transcript and the status line. A link's
// click (mouse, or Enter on a focused link) stops here: VS Code's webview would otherwise open any
// `<a href>` itself from its window listener, and only the host decides what opens.
for (const area of [content, statusLine]) area.addEventListener('click', onClick);
function onClick(e: MouseEvent): void {
  const target = e.target as Element;
  const link = target.closest('a');
  if (link) {
    e.preventDefault();
    e.stopPropagation();
    const href = safeHref(link.getAttribute('href') ?? '');
    if (href) post({ type: 'openLink', href });
    return;
  }
  const actionEl = target.closest('[data-action]');
  if (!actionEl) return;
  switch (actionEl.getAttribute('data-action')) {
    case 'open-image':
      imageViewer.open(actionEl as HTMLElement);
      return;
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
    case 'continue-interrupted':
      post({ type: 'continueInterrupted' });
      return;
    case 'edit-resend':
    case 'fork-here': {
      const row = userRow(actionEl);
      if (!row) return;
      const edit = actionEl.getAttribute('data-action') === 'edit-resend';
      // The host answers an edit with the message's text (`setInput`); its images come back from the row.
      if (edit) editing = { text: row.text, images: attachmentsOf(row.media) };
      post({ type: edit ? 'editResend' : 'forkHere', fromEnd: row.fromEnd, text: row.text });
      return;
    }
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
    case 'tool-args-show-all': {
      const card = actionEl.closest('[data-tool-call-id]');
      if (!card) return;
      const key = `args:${card.getAttribute('data-tool-call-id')}`;
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
    case 'open-file':
    case 'open-diff':
    case 'undo-file':
    case 'undo-all': {
      const path = actionEl.getAttribute('data-path') ?? undefined;
      const action = actionEl.getAttribute('data-action');
      // The row's run: Undo acts only on the last run, and says so for an older row.
      const runId = actionEl.closest('[data-run-id]')?.getAttribute('data-run-id') ?? undefined;
      if (action === 'undo-all') post({ type: 'undo', ...(runId ? { runId } : {}) });
      else if (!path) return;
      else if (action === 'open-file') post({ type: 'openFile', path, firstChange: true });
      else if (action === 'open-diff') post({ type: 'openDiff', path });
      else post({ type: 'undo', path, ...(runId ? { runId } : {}) });
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
}
// Middle clicks never open anything.
content.addEventListener('auxclick', (e) => {
  if ((e.target as Element).closest('a')) {
    e.preventDefault();
    e.stopPropagation();
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

/** The user row an action sits in, named as the host expects: how many user rows follow it, and its text (and images). */
function userRow(el: Element): { fromEnd: number; text: string; media?: UserRow['media'] } | undefined {
  const id = Number(el.closest('[data-msg-id]')?.getAttribute('data-msg-id'));
  const users = state.messages.filter((m): m is UserRow => m.role === 'user');
  const i = users.findIndex((m) => m.id === id);
  if (i < 0) return undefined;
  return { fromEnd: users.length - 1 - i, text: users[i]!.blocks.map((b) => b?.text ?? '').join(''), media: users[i]!.media };
}

/** A message being edited ("Edit and resend"): its text, and its images to put back as chips. */
let editing: { text: string; images: ImageAttachment[] } | undefined;

/** The images of a row the composer can attach again (those the view has the bytes of). */
function attachmentsOf(media: UserRow['media']): ImageAttachment[] {
  const out: ImageAttachment[] = [];
  for (const v of media ?? []) if (v.data && isImageMimeType(v.mimeType)) out.push({ mimeType: v.mimeType, data: v.data });
  return out;
}

async function copyText(text: string, button: Element): Promise<void> {
  const label = button.getAttribute('aria-label');
  let said: string;
  try {
    await navigator.clipboard.writeText(text);
    said = 'Copied';
  } catch {
    said = 'Copy failed';
  }
  // The name changes with the visible text, and the change is announced (a name change alone is not).
  button.textContent = said;
  button.setAttribute('aria-label', said);
  statusAnnouncer.say(said === 'Copied' ? 'Copied to the clipboard' : 'Copy failed');
  setTimeout(() => {
    button.textContent = 'Copy';
    if (label !== null) button.setAttribute('aria-label', label);
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
      if (isKnownEvent(ev)) s = reduceOne(s, ev);
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
      // Another session, or another point of this one: the tree on screen is out of date.
      if (mode === 'tree' && Array.isArray(msg.events) && msg.events.some((e) => e?.type === 'reset')) post({ type: 'showTree' });
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
      if (Array.isArray(msg.texts)) {
        const images = msg.images === undefined ? undefined : parseImageAttachments(msg.images);
        composer.restore(
          msg.texts.filter((t): t is string => typeof t === 'string'),
          images?.ok ? images.images : [],
        );
      }
      return;
    case 'addChip':
      if (isCodeChip(msg.chip)) composer.addChip(msg.chip);
      return;
    case 'focusComposer':
      composer.focus();
      return;
    case 'trackComposer':
      trackComposer = msg.on === true;
      if (trackComposer) reportComposerText();
      return;
    case 'commands':
      if (Array.isArray(msg.commands)) composer.slashMenu.setCommands(msg.commands.filter((c) => typeof c?.name === 'string'));
      return;
    case 'editorText':
      if (typeof msg.text === 'string') composer.setText(msg.text, msg.paste === true);
      return;
    case 'setInput':
      if (typeof msg.text !== 'string') return;
      if (mode !== 'chat') setMode('chat');
      composer.textarea.value = '';
      composer.restore([msg.text], editing?.text === msg.text ? editing.images : []);
      editing = undefined;
      composer.focus();
      return;
    case 'showMode':
      if (msg.mode === 'chat' || msg.mode === 'sessions' || msg.mode === 'tree') setMode(msg.mode);
      return;
    case 'sessions':
      if (msg.page && Array.isArray(msg.page.sessions)) sessionsView.show(msg.page);
      return;
    case 'sessionTree':
      if (Array.isArray(msg.nodes)) {
        treeView.show(msg.nodes);
        if (mode === 'tree' && !treeView.el.contains(document.activeElement)) treeView.focus();
      }
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
  // A streaming block re-renders its tail: a focused link or Copy button there is replaced by its twin.
  const focus = markFocus(content);
  transcript.render(state, anchor.following);
  restoreFocus(content, focus);
  composer.setRunning(phase !== 'idle');
  queue.update(state.queue);
  setHidden(working, !(state.run.active && state.openIndex < 0 && phase === 'running') || state.ui?.workingHidden === true || state.ui?.shell !== undefined);
  setText(workingText, state.ui?.workingMessage ?? 'Working…');
  dialogs.render(state.ui);
  widgets.render(state.ui);
  shell.render(state.ui);
  announceDialogs();
  if (session !== renderedSession) {
    renderedSession = session;
    transcript.collapseThinking = session.collapseThinking ?? true;
    setText(model, showBidiControls(session.model ?? (session.ready ? 'No model configured' : 'Starting Pi…')));
    setAttr(model, 'title', session.modelId ? `${session.modelId}: select a model` : 'Select a model');
    setText(context, session.contextPercent !== undefined ? `context ${session.contextPercent}%` : '');
    setAttr(context, 'title', session.stats ? statsLine(session.stats) : "How full the model's context window is");
    setAttr(title, 'title', session.stats ? `${state.sessionName ?? 'This session'}\n${statsLine(session.stats)}` : undefined);
  }
  const thinking = state.thinkingLevel ?? session.thinkingLevel;
  setText(level, thinking ? `thinking: ${thinking}` : '');
  setHidden(level, !thinking);
  setText(title, showBidiControls(state.sessionName ?? ''));
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
  else if (r.dialogs) text = 'Pi is waiting for you: answer the question in the chat.';
  else if (r.summaryRetry) text = summaryRetryText(r.summaryRetry, Date.now());
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
  const retryHad = document.activeElement === stalledRetry;
  setHidden(stalledRetry, !(r.stalled && r.active && !r.cancelling));
  // "Cancel and retry" hides once used: focus goes to the composer rather than the page body.
  if (retryHad && stalledRetry.hidden) composer.focus();
  setHidden(statusLine, text === '');
  // Announced when the state changes (a new attempt, a stall, compaction), never on a countdown tick.
  const kind = statusKind(r);
  if (kind !== announcedStatus) {
    announcedStatus = kind;
    if (text) statusAnnouncer.say(text);
  }
  const ticking = r.retry?.waiting === true || r.summaryRetry?.waiting === true || (r.stalled && r.active);
  if (ticking && retryTimer === undefined) retryTimer = setInterval(renderStatus, 1000);
  else if (!ticking && retryTimer !== undefined) {
    clearInterval(retryTimer);
    retryTimer = undefined;
  }
}

let announcedStatus = '';

/** What the status line says, without its clock: the same while only the seconds change. */
function statusKind(r: RunState): string {
  if (r.cancelling && (r.active || r.compaction)) return 'cancelling';
  if (r.summaryRetry) return `summaryRetry:${r.summaryRetry.waiting}:${r.summaryRetry.attempt}:${r.summaryRetry.errorMessage}`;
  if (r.compaction) return `compacting:${r.compaction.reason}`;
  if (r.retry) return `retry:${r.retry.waiting}:${r.retry.attempt}:${r.retry.errorMessage}`;
  if (r.stalled && r.active) return 'stalled';
  if (!r.active && r.retryFailure) return `retryFailed:${r.retryFailure.message}`;
  if (!r.active && r.lastCompaction && !r.lastCompaction.ok) return `compactionFailed:${String(r.lastCompaction.aborted)}:${r.lastCompaction.errorMessage}`;
  return '';
}

const announcedDialogs = new Set<string>();
/** A new question is announced once: screen-reader users learn that Pi waits for them. */
function announceDialogs(): void {
  for (const d of state.ui?.dialogs ?? []) {
    if (announcedDialogs.has(d.id)) continue;
    announcedDialogs.add(d.id);
    announcer.say(`Pi is waiting for you: ${d.title}`);
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

/** Characters of a reply rendered again to be announced: enough for the 400 that are said. */
const ANNOUNCE_SOURCE_CHARS = 4000;

/**
 * The start of a reply's markdown, for its announcement: rendering a whole long reply again (a 3,000-item
 * list) would cost the frame that finishes it hundreds of milliseconds. It ends at a blank line or a space,
 * and keeps the reply's link reference definitions so links in it read as links.
 */
function replyStart(text: string): string {
  if (text.length <= ANNOUNCE_SOURCE_CHARS) return text;
  const half = ANNOUNCE_SOURCE_CHARS / 2;
  const blank = text.lastIndexOf('\n\n', ANNOUNCE_SOURCE_CHARS);
  const space = text.lastIndexOf(' ', ANNOUNCE_SOURCE_CHARS);
  const cut = blank > half ? blank : space > half ? space : ANNOUNCE_SOURCE_CHARS;
  const definitions = text.match(/^ {0,3}\[[^\]\n]+\]:.*$/gm) ?? [];
  return `${text.slice(0, cut)}\n\n${definitions.join('\n')}`;
}

/** Tells screen readers about finished replies (as rendered, not as markdown) and notices, once each, never about every delta. */
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
        .map((b) => spokenText(renderMarkdown(replyStart(b!.text), false)))
        .join('\n')
        .trim();
      const stop = m.stopReason === 'aborted' ? ' (cancelled)' : m.stopReason === 'error' ? ` Error: ${m.errorMessage ?? ''}` : '';
      if (text || stop) parts.push(`Pi: ${text.slice(0, 400)}${stop}`);
    } else if (m.role === 'notice') parts.push(m.blocks[0]?.text.slice(0, 400) ?? '');
  }
  if (parts.length) announcer.say(parts.join('\n'));
}

window.addEventListener('message', (e: MessageEvent) => onMessage(e.data));
if (saved.follow === false) requestAnimationFrame(() => anchor.restore(false, saved.fromBottom));
post({ type: 'ready' });

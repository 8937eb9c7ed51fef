/** The wire between the extension host and the chat webview: event batches and snapshots in, user intents out. */

import type { CodeChip } from '../chips.ts';
import type { ImageAttachment } from '../images.ts';
import type { BuiltinName, SlashCommand } from '../slashCommands.ts';
import type { SessionPage, SessionStatsView, TreeNodeView } from '../sessions.ts';
import type { ContextBreakdownView } from '../contextGauge.ts';
import type { FindMatch } from '../transcript/find.ts';
import type { MessageView, ToolCardView, TranscriptState } from '../transcript/rows.ts';
import type { CommandMessage } from './commands.ts';
import type { ModelCatalog, ModelScope, ProviderView } from '../modelCatalog.ts';
import type { WireEvent } from './events.ts';

/** Facts about the session the webview shows around the transcript. */
export interface SessionInfoView {
  /** What to call the model: its display name, or provider/id. */
  readonly model?: string;
  /** provider/id of the model. */
  readonly modelId?: string;
  readonly thinkingLevel?: string;
  readonly cwd?: string;
  readonly ready: boolean;
  /** Fold a thinking block once the answer starts (setting `piPanel.collapseThinking`). */
  readonly collapseThinking?: boolean;
  /** How full the model's context window is, 0–100, when Pi knows. */
  readonly contextPercent?: number;
  /** The session's name (`/name`), when it has one. */
  readonly name?: string;
  /** The session's token and cost totals. */
  readonly stats?: SessionStatsView;
  /** What fills the context window, for the header's gauge and its breakdown. */
  readonly context?: ContextBreakdownView;
  /** No model has credentials: the view shows the welcome, with `providers` to sign in to. */
  readonly noModel?: boolean;
  readonly providers?: readonly ProviderView[];
}

/** Palette commands the view may ask for (each is `piPanel.<name>`). */
export const VIEW_COMMANDS = [
  'selectModel',
  'setThinkingLevel',
  'compact',
  'resumeSession',
  'exportTranscript',
  'exportJsonl',
  'importSession',
  'copyLastAnswer',
  'renameSession',
  'togglePlanMode',
  'openPlan',
  'actOnPlan',
  'applyWorktree',
  'discardWorktree',
  'openWorktreeWindow',
  'keepAllChanges',
  'reviewChanges',
] as const;
/** One of `VIEW_COMMANDS`. */
export type ViewCommand = (typeof VIEW_COMMANDS)[number];

/** Messages from the host to the webview. */
export type HostToWebview =
  /** `state` holds the newest rows; `earlier` rows precede them on the host (`loadEarlier` pages them in). */
  | { readonly type: 'snapshot'; readonly state: TranscriptState; readonly session: SessionInfoView; readonly earlier?: number }
  /** The reply to `loadEarlier`: the rows just before the row `before`, and how many rows remain before those. */
  | {
      readonly type: 'earlier';
      readonly before: number;
      readonly messages: readonly MessageView[];
      readonly tools: Readonly<Record<string, ToolCardView>>;
      readonly earlier: number;
    }
  | { readonly type: 'batch'; readonly events: readonly WireEvent[] }
  | { readonly type: 'session'; readonly session: SessionInfoView }
  /** Texts (and their images) taken back from the queue on cancel: the composer gets them so nothing typed is lost. */
  | { readonly type: 'restoreInput'; readonly texts: readonly string[]; readonly images?: readonly ImageAttachment[] }
  | { readonly type: 'focusComposer' }
  /** Code the user handed Pi (Add Selection / Add File / the `@` picker): a chip in the composer; `prompt` fills an empty composer. */
  | { readonly type: 'addChip'; readonly chip: CodeChip; readonly prompt?: string }
  /** An extension sets the composer's text (`setEditorText`) or pastes into it at the cursor (`pasteToEditor`). */
  | { readonly type: 'editorText'; readonly text: string; readonly paste: boolean }
  /** Whether to report the composer's text (`composerText`): only while an extension could read it. */
  | { readonly type: 'trackComposer'; readonly on: boolean }
  /** The commands the slash menu offers: the panel's built-ins, then Pi's (extensions, prompt templates, skills). */
  | { readonly type: 'commands'; readonly commands: readonly SlashCommand[] }
  /** The composer's text becomes `text` ("Edit and resend"). */
  | { readonly type: 'setInput'; readonly text: string }
  /** Switches what the view shows: the chat, the Sessions list or the session's tree. */
  | { readonly type: 'showMode'; readonly mode: ViewMode }
  | { readonly type: 'sessions'; readonly page: SessionPage }
  /** Which of the listed sessions another chat has open now, by file ("the sidebar", "Chat 2"): the list on screen updates its marks. */
  | { readonly type: 'sessionsOpenIn'; readonly openIn: Readonly<Record<string, string>> }
  | { readonly type: 'sessionTree'; readonly nodes: readonly TreeNodeView[] }
  /** Pi: Find in Chat: the find box opens (with `text`, searching for it). */
  | { readonly type: 'openFind'; readonly text?: string }
  /** The reply to `find` number `seq`: the rows of the whole session holding the text. */
  | { readonly type: 'found'; readonly seq: number; readonly matches: readonly FindMatch[]; readonly total: number }
  /**
   * The reply to `loadAround`: the page of rows around the row `id` (rows with ids up to about `id + count/2`),
   * how many rows precede it and how many follow it on the host.
   */
  | {
      readonly type: 'around';
      readonly id: number;
      readonly messages: readonly MessageView[];
      readonly tools: Readonly<Record<string, ToolCardView>>;
      readonly earlier: number;
      readonly later: number;
    }
  /** The model picker's catalog: it opens (or refreshes while open). */
  | { readonly type: 'models'; readonly catalog: ModelCatalog }
  /** The chat's changes not yet kept or undone: the Changes rows mark their files and offer Keep all and Review. */
  | { readonly type: 'reviewPending'; readonly pending: PendingSummary }
  /** A worktree chat's branch was renamed (from its first prompt): the strip under the header names the new one. */
  | { readonly type: 'worktreeBranch'; readonly branch: string };

/** A chat's pending changes: per workspace-relative file how many, and "`left` of `total` changes left". */
export interface PendingSummary {
  readonly files: Readonly<Record<string, number>>;
  readonly left: number;
  readonly total: number;
}

/** What the view shows. */
export type ViewMode = 'chat' | 'sessions' | 'tree';

/** How a prompt goes to Pi: a new prompt, steering the run, or a follow-up after it. */
export type SendMode = 'prompt' | 'steer' | 'followUp';

/** Messages from the webview to the host, checked by `parseWebviewMessage` before use. */
export type WebviewToHost =
  | { readonly type: 'ready' }
  /** `images` go with the text (Pi's `ImageContent`); with images the text may be empty. */
  | { readonly type: 'send'; readonly text: string; readonly mode: SendMode; readonly images?: readonly ImageAttachment[] }
  | { readonly type: 'cancel' }
  | { readonly type: 'forceIdle' }
  | { readonly type: 'openLink'; readonly href: string }
  /** A code block's text, to insert at the cursor of the active editor. */
  | { readonly type: 'insertCode'; readonly text: string }
  /** A drawn diagram's SVG, to open in an untitled editor. */
  | { readonly type: 'openSvg'; readonly svg: string }
  | { readonly type: 'showLog' }
  /** The view got focus: commands act on this chat until another or a text editor gets it. */
  | { readonly type: 'focused' }
  /** Continue on a reply shown as interrupted: Pi goes on from the text it never saved. */
  | { readonly type: 'continueInterrupted' }
  /** Runs one of the allow-listed palette commands (the header's model and thinking pickers). */
  | { readonly type: 'runCommand'; readonly command: ViewCommand }
  /** Opens a workspace file; `line` (1-based) or, with `firstChange`, the first line the last run changed. */
  | { readonly type: 'openFile'; readonly path: string; readonly line?: number; readonly firstChange?: boolean }
  /** Opens the diff editor: the file before the run's first change to it ↔ now. */
  | { readonly type: 'openDiff'; readonly path: string; readonly runId?: string }
  /** Undoes the last run's change to one file, or (no path) to all its files. */
  | { readonly type: 'undo'; readonly path?: string; readonly runId?: string }
  /** `@` in the composer: open the workspace file picker. */
  | { readonly type: 'pickFile' }
  /** Files or folders dropped on the composer (Shift held), as the workbench's URI list gives them: each becomes a chip. */
  | { readonly type: 'dropUris'; readonly uris: readonly string[] }
  /** The images attached in the composer, whenever they change: the host keeps them for a re-created view. */
  | { readonly type: 'composerImages'; readonly images: readonly ImageAttachment[] }
  /** The slash menu opened: the host answers with `commands`. */
  | { readonly type: 'listCommands' }
  /** One of the panel's built-in slash commands, with what followed its name. */
  | { readonly type: 'slash'; readonly name: BuiltinName; readonly args: string }
  /** A page of the Sessions list (`offset` 0 starts over, for a new search). */
  | { readonly type: 'listSessions'; readonly query: string; readonly offset: number }
  | { readonly type: 'openSession'; readonly file: string }
  | { readonly type: 'renameSession'; readonly file: string; readonly name: string }
  | { readonly type: 'deleteSession'; readonly file: string }
  /** The commands the host passes to the worker untouched (Edit and resend, Fork here, Restore, …): see `COMMANDS`. */
  | CommandMessage
  | { readonly type: 'showTree' }
  /** Asks for up to `count` rows before the row with id `before` (the first the view holds). */
  | { readonly type: 'loadEarlier'; readonly before: number; readonly count: number }
  /** Find in chat: which rows of the whole session hold `query` (answered by `found` with the same `seq`). */
  | { readonly type: 'find'; readonly query: string; readonly seq: number }
  /** Find in chat moves to a row far from those held: the page of `count` rows around row `id` (answered with `around`). */
  | { readonly type: 'loadAround'; readonly id: number; readonly count: number }
  /** The view's picture of the rows on screen (see savedPicture.ts): the host draws it into the page of the view re-created next. */
  | { readonly type: 'savedPicture'; readonly rows: readonly unknown[] }
  /** The welcome's buttons: sign in with an account, enter a provider's API key, or add a custom OpenAI-compatible endpoint. */
  | { readonly type: 'signIn'; readonly provider: string; readonly method: SignInMethod }
  /** A model picked in the picker, for this chat or as the default. */
  | { readonly type: 'pickModel'; readonly model: string; readonly scope: ModelScope }
  /** A model starred or unstarred in the picker. */
  | { readonly type: 'favouriteModel'; readonly model: string; readonly on: boolean }
  /** The picker's Sign out of a provider. */
  | { readonly type: 'signOut'; readonly provider: string };

/** How the welcome signs in to a provider. */
export type SignInMethod = 'oauth' | 'apiKey' | 'custom';

/** Longest session name the host accepts. */
export const MAX_SESSION_NAME = 200;

/** Most URIs one drop on the composer may carry. */
export const MAX_DROPPED_URIS = 100;

export { MAX_PROMPT_CHARS } from './limits.ts';

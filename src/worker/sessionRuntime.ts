/**
 * The panel's use of Pi's `AgentSessionRuntime`: new, resume, fork and import replace the session inside the
 * runtime, which hands the new one to the controller's single rebind path. Also the read-outs of a session the
 * view shows (its tree, the user entry behind a row, its totals) and the saved-sessions list.
 */

import { readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { AgentSession, ExtensionCommandContextActions, SessionInfo } from '@earendil-works/pi-coding-agent';
import type { PiModule } from '../pi/piEntry.ts';
import { matchesQuery, SESSION_PAGE_SIZE, type SessionPage, type SessionStatsView, type TreeNodeView } from '../shared/sessions.ts';

/** Where a fork starts (`before` or `at` the entry) and what a Pi extension that asked runs in the new session. */
export type ForkOptions = NonNullable<Parameters<ExtensionCommandContextActions['fork']>[1]>;
/** A Pi extension's `ctx.newSession` options: the parent file, a setup of the empty session, what runs in it. */
export type NewSessionOptions = NonNullable<Parameters<ExtensionCommandContextActions['newSession']>[0]>;
/** A Pi extension's `ctx.switchSession` options: what runs in the session switched to. */
export type SwitchSessionOptions = NonNullable<Parameters<ExtensionCommandContextActions['switchSession']>[1]>;

/** The part of Pi's `AgentSessionRuntime` the controller uses. */
export interface SessionRuntimeLike<S> {
  readonly session: S;
  setRebindSession(rebind?: (session: S) => Promise<void>): void;
  newSession(options?: NewSessionOptions): Promise<{ cancelled: boolean }>;
  switchSession(sessionPath: string, options?: SwitchSessionOptions & { cwdOverride?: string }): Promise<{ cancelled: boolean }>;
  fork(entryId: string, options?: ForkOptions): Promise<{ cancelled: boolean; selectedText?: string }>;
  importFromJsonl(inputPath: string, cwdOverride?: string): Promise<{ cancelled: boolean }>;
  dispose(): Promise<void>;
}

/** What the session read-outs and the tree need of a live session (Pi's `AgentSession` has all of it). */
export type SessionOps = Pick<
  AgentSession,
  'navigateTree' | 'setSessionName' | 'getSessionStats' | 'exportToJsonl' | 'getLastAssistantText' | 'sessionName'
> & {
  readonly sessionManager: Pick<AgentSession['sessionManager'], 'getTree' | 'getBranch' | 'getLeafId' | 'getEntry'> &
    Partial<Pick<AgentSession['sessionManager'], 'getCwd'>>;
};

/** What the tree read-outs need: the session's entries. */
export type SessionTree = Pick<SessionOps, 'sessionManager'>;

/** A message entry's role and one-line text. */
function describe(entry: { type: unknown; message?: unknown }): { kind: TreeNodeView['kind']; text: string } {
  if (entry.type !== 'message') return { kind: 'other', text: typeof entry.type === 'string' ? entry.type.replace(/_/g, ' ') : '' };
  const m = (entry.message ?? {}) as { role?: unknown; content?: unknown };
  const text = contentText(m.content).replace(/\s+/g, ' ').trim().slice(0, 140);
  if (m.role === 'user') return { kind: 'user', text };
  if (m.role === 'assistant') return { kind: 'assistant', text };
  return { kind: 'other', text: `${typeof m.role === 'string' ? m.role : 'message'}${text ? `: ${text}` : ''}` };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  // A crafted file may hold objects where text belongs: `String()` of `{"toString":1}` throws.
  const text = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
  return content
    .map((c: { type?: unknown; text?: unknown; name?: unknown }) =>
      c?.type === 'text' ? text(c.text, '') : c?.type === 'toolCall' ? `[${text(c.name, 'tool')}]` : '',
    )
    .filter(Boolean)
    .join(' ');
}

/**
 * The session's tree, depth-first, as the view lists it: user and assistant messages (the points one can
 * move to), each with its depth, label and whether it is on the current branch. Nothing is dropped: every
 * branch in the file is here.
 */
export function treeView(session: SessionTree): TreeNodeView[] {
  const manager = session.sessionManager;
  const leaf = manager.getLeafId();
  const onPath = new Set(manager.getBranch().map((e) => e.id));
  const out: TreeNodeView[] = [];
  type Node = ReturnType<typeof manager.getTree>[number];
  // Iterative: a long session is a deep chain.
  const stack: { node: Node; depth: number; starts: boolean }[] = manager
    .getTree()
    .map((node) => ({ node, depth: 0, starts: false }))
    .reverse();
  while (stack.length) {
    const { node, depth, starts } = stack.pop()!;
    const d = describe(node.entry as { type: unknown; message?: unknown });
    // The view names a point by its entry id: an entry whose id is not text cannot be moved to.
    const shown = d.kind !== 'other' && !(d.kind === 'assistant' && !d.text) && typeof node.entry.id === 'string';
    const branches = node.children.length > 1;
    if (shown) {
      out.push({
        id: node.entry.id,
        depth,
        kind: d.kind,
        text: d.text || '(empty)',
        ...(typeof node.label === 'string' && node.label ? { label: node.label } : {}),
        onPath: onPath.has(node.entry.id),
        isLeaf: node.entry.id === leaf,
        ...(starts ? { branchStart: true } : {}),
      });
    }
    // A chain stays at one depth; only a fork indents its branches. A hidden entry passes "starts a branch" on.
    for (let i = node.children.length - 1; i >= 0; i--)
      stack.push({ node: node.children[i]!, depth: branches ? depth + 1 : depth, starts: branches || (!shown && starts && i === 0) });
  }
  return out;
}

/**
 * `entryId` when it names a user message on the current branch (the rows the view shows), else undefined: a
 * row of another branch, another session or a crafted message is never moved to, and nothing is guessed.
 */
export function userEntryId(session: SessionTree, entryId: string): string | undefined {
  const entry = session.sessionManager.getBranch().find((e) => e.id === entryId);
  return entry?.type === 'message' && (entry.message as { role?: string }).role === 'user' ? entryId : undefined;
}

/** The last entry of the exchange a user message starts (before the next user message), to fork after it. */
export function exchangeEndId(session: SessionTree, userId: string): string {
  const branch = session.sessionManager.getBranch();
  const start = branch.findIndex((e) => e.id === userId);
  if (start < 0) return userId;
  let end = start;
  for (let i = start + 1; i < branch.length; i++) {
    const e = branch[i]!;
    if (e.type === 'message' && (e.message as { role?: string }).role === 'user') break;
    end = i;
  }
  const id: unknown = branch[end]!.id;
  return typeof id === 'string' ? id : userId;
}

/** The session's totals (`getSessionStats`), flattened for the view. */
export function statsView(session: Partial<SessionOps>): SessionStatsView | undefined {
  try {
    const s = session.getSessionStats?.();
    if (!s) return undefined;
    const p = s.contextUsage?.percent;
    return {
      input: s.tokens.input,
      output: s.tokens.output,
      cacheRead: s.tokens.cacheRead,
      cacheWrite: s.tokens.cacheWrite,
      cost: s.cost,
      ...(typeof p === 'number' && Number.isFinite(p) ? { contextPercent: Math.round(p) } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * The last listing per sessions folder, with the fingerprint of the files it was read from. It keeps what
 * the list shows, not every session's text: a search reads the files again (`searchSessionInfos`).
 */
const listings = new Map<string, { readonly key: string; readonly infos: readonly SessionInfo[] }>();

/** Names, sizes and times of the folder's session files: reading them all costs far more than this. */
async function folderKey(sessionDir: string): Promise<string> {
  let names: string[];
  try {
    names = (await readdir(sessionDir)).filter((n) => n.endsWith('.jsonl')).sort();
  } catch {
    return '';
  }
  const parts = await Promise.all(
    names.map(async (n) => {
      try {
        const st = await stat(path.join(sessionDir, n));
        return `${n}:${st.size}:${st.mtimeMs}`;
      } catch {
        return `${n}:gone`;
      }
    }),
  );
  return parts.join('|');
}

/**
 * The saved sessions of `cwd`, newest first, through Pi's `SessionManager.list`. A folder whose files did not
 * change since the last call is not read again; the worker warms this while idle so the list opens at once.
 */
export async function listSessionInfos(pi: PiModule, cwd: string, sessionDir: string): Promise<readonly SessionInfo[]> {
  const key = await folderKey(sessionDir);
  const cached = listings.get(sessionDir);
  if (cached && cached.key === key) return cached.infos;
  const infos = (await readSessionInfos(pi, cwd, sessionDir)).map(listed);
  listings.set(sessionDir, { key, infos });
  return infos;
}

/** Characters of a session's first message the list keeps (the view shows fewer). */
const FIRST_MESSAGE_CHARS = 300;

/** What the listing keeps of a session: its text goes (a search reads it again), its first message is cut. */
function listed(s: SessionInfo): SessionInfo {
  return { ...s, firstMessage: s.firstMessage.slice(0, FIRST_MESSAGE_CHARS), allMessagesText: '' };
}

/** Pi's list of the saved sessions, newest first, each with all its text. */
async function readSessionInfos(pi: PiModule, cwd: string, sessionDir: string): Promise<SessionInfo[]> {
  return [...(await pi.SessionManager.list(cwd, sessionDir))].sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** The saved sessions whose name or text matches `query`, newest first: read on demand, nothing kept. */
async function searchSessionInfos(pi: PiModule, cwd: string, sessionDir: string, query: string): Promise<SessionInfo[]> {
  const out: SessionInfo[] = [];
  for (const s of await readSessionInfos(pi, cwd, sessionDir)) if (matchesQuery(`${s.name ?? ''}\n${s.allMessagesText}`, query)) out.push(listed(s));
  return out;
}

/** Model and totals of a session file, read once per version of the file. */
const facts = new Map<string, { readonly version: string; readonly model?: string; readonly stats: SessionStatsView }>();

/** The model a session last used and its token and cost totals, from its file (Pi's list does not carry them). */
async function sessionFacts(file: string): Promise<{ model?: string; stats: SessionStatsView } | undefined> {
  try {
    const st = await stat(file);
    const version = `${st.size}:${st.mtimeMs}`;
    const known = facts.get(file);
    if (known?.version === version) return known;
    let model: string | undefined;
    const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      // Only the lines that can matter are parsed.
      if (!line.includes('"model_change"') && !line.includes('"assistant"')) continue;
      let e: { type?: string; provider?: string; modelId?: string; message?: Record<string, unknown> };
      try {
        e = JSON.parse(line) as typeof e;
      } catch {
        continue;
      }
      if (e.type === 'model_change' && e.provider && e.modelId) model = `${e.provider}/${e.modelId}`;
      const m = e.message;
      if (e.type !== 'message' || m?.role !== 'assistant') continue;
      if (typeof m.provider === 'string' && typeof m.model === 'string') model = `${m.provider}/${m.model}`;
      const u = m.usage as { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; cost?: { total?: number } } | undefined;
      t.input += u?.input ?? 0;
      t.output += u?.output ?? 0;
      t.cacheRead += u?.cacheRead ?? 0;
      t.cacheWrite += u?.cacheWrite ?? 0;
      t.cost += u?.cost?.total ?? 0;
    }
    const result = { version, ...(model ? { model } : {}), stats: t };
    facts.set(file, result);
    return result;
  } catch {
    return undefined;
  }
}

/** One page of the workspace's saved sessions matching `query`, newest first. */
export async function listSessionPage(
  pi: PiModule,
  cwd: string,
  sessionDir: string,
  params: { query: string; offset: number; limit?: number; current?: string },
): Promise<SessionPage> {
  const matching = params.query ? await searchSessionInfos(pi, cwd, sessionDir, params.query) : await listSessionInfos(pi, cwd, sessionDir);
  const offset = Math.max(0, Math.min(params.offset, matching.length));
  const page = matching.slice(offset, offset + (params.limit ?? SESSION_PAGE_SIZE));
  const pageFacts = await Promise.all(page.map((s) => sessionFacts(s.path)));
  return {
    sessions: page.map((s, i) => {
      const f = pageFacts[i];
      return {
        path: s.path,
        ...(s.name ? { name: s.name } : {}),
        firstMessage: s.firstMessage.slice(0, FIRST_MESSAGE_CHARS),
        modified: s.modified.getTime(),
        messageCount: s.messageCount,
        ...(f?.model ? { model: f.model } : {}),
        ...(f ? { stats: f.stats } : {}),
      };
    }),
    offset,
    total: matching.length,
    query: params.query,
    ...(params.current ? { current: params.current } : {}),
  };
}

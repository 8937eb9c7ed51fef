/**
 * The project's own checker of one end-to-end run against a case file, used only when the shared
 * checker (../shared/tools/check-e2e-output.mjs) is not beside the repo. Same case format:
 * expect.{stopReasons, stopReasonsLast, toolCards, panelContains, panelLacks, panelContainsOnce,
 * statusMatches, thinking, hostileFree, maxElapsedMs, files, notificationsMatch, notificationsLack,
 * editorsMatch, requestsMatch, requestsLack, noAssistantOk, sessionOnScreen, chatContains, chatLacks, chats}; always result.ok, idle,
 * and (unless `sessionOnScreen` is false) Pi's finished assistant texts on screen (in any chat: panel.txt and the editor chats' chat-N.txt).
 *
 *   node test/e2e/check.ts OUT_DIR CASE.json
 */
import fs from 'node:fs';
import path from 'node:path';

interface Expect {
  stopReasons?: string[];
  stopReasonsLast?: string;
  toolCards?: Record<string, string>;
  panelContains?: string[];
  panelLacks?: string[];
  panelContainsOnce?: string[];
  statusMatches?: string[];
  thinking?: boolean;
  hostileFree?: boolean;
  /** false: skip the check that Pi's persisted text is on screen (a drawn diagram or formula replaces its source; a branched session shows one branch; a long session is shown in part). */
  sessionOnScreen?: boolean;
  maxElapsedMs?: number;
  /** Workspace path -> sha256 hex, or null for "must not exist" (files.json). */
  files?: Record<string, string | null>;
  notificationsMatch?: string[];
  notificationsLack?: string[];
  editorsMatch?: string[];
  requestsMatch?: string[];
  requestsLack?: string[];
  /** The run may end before any assistant message (Cancel while Pi starts, a lone `!` command). */
  noAssistantOk?: boolean;
  /** Editor chat N's text (chat-N.txt) holds each string, or (`chatLacks`) none of them. */
  chatContains?: Record<string, string[]>;
  chatLacks?: Record<string, string[]>;
  /**
   * Editor chat N: its text (chat-N.txt, which must exist) holds or lacks strings, and its run state in result.json.
   * Beyond the shared checker's format: `containsOnce`, strings its text holds exactly once (see `chatsOnce`).
   */
  chats?: Record<string, { contains?: string[]; lacks?: string[]; containsOnce?: string[]; runState?: string }>;
}

/** A case's regex, with the `(?i)` prefix meaning case-insensitive. */
function rx(pattern: string): RegExp {
  const insensitive = pattern.startsWith('(?i)');
  return new RegExp(insensitive ? pattern.slice(4) : pattern, insensitive ? 'i' : '');
}

export const fold = (s: string): string => s.replace(/\s+/g, ' ');

/** How many times `s` is in `text` (folded), as `…ContainsOnce` counts. */
const timesIn = (text: string, s: string): number => text.split(fold(s)).length - 1;

/** Returns one message per problem found in the run in `outDir`. */
export function checkRun(outDir: string, expect: Expect): string[] {
  const file = (name: string): string => {
    try {
      return fs.readFileSync(path.join(outDir, name), 'utf8');
    } catch {
      return '';
    }
  };
  const problems: string[] = [];
  let result: { ok?: boolean; runState?: string; elapsedMs?: number; errors?: string[] } = {};
  try {
    result = JSON.parse(file('result.json'));
  } catch {
    problems.push('result.json missing or not JSON');
  }
  if (result.ok !== true) problems.push(`result not ok: ${(result.errors ?? []).join('; ').slice(0, 200)}`);
  if (result.runState !== 'idle') problems.push(`ended in run state ${result.runState}`);
  if (expect.maxElapsedMs !== undefined && !((result.elapsedMs ?? Infinity) <= expect.maxElapsedMs))
    problems.push(`took ${result.elapsedMs} ms, over ${expect.maxElapsedMs}`);

  const html = file('panel.html');
  const text = fold(file('panel.txt'));
  if (!html) problems.push('panel.html is empty or missing');

  const stopReasons = Array.from(html.matchAll(/data-stop-reason="([^"]*)"/g), (m) => m[1]);
  if (expect.stopReasons && stopReasons.join('|') !== expect.stopReasons.join('|'))
    problems.push(`stop reasons were [${stopReasons}], expected [${expect.stopReasons}]`);
  if (expect.stopReasonsLast && stopReasons[stopReasons.length - 1] !== expect.stopReasonsLast)
    problems.push(`last stop reason ${stopReasons[stopReasons.length - 1]}, expected ${expect.stopReasonsLast}`);

  if (expect.toolCards) {
    const cards = new Map<string, string | undefined>();
    for (const tag of html.match(/<[^>]*\sdata-tool-call-id="[^"]*"[^>]*>/g) ?? []) {
      const id = /data-tool-call-id="([^"]*)"/.exec(tag)![1];
      if (!cards.has(id) || cards.get(id) === undefined) cards.set(id, /data-status="([^"]*)"/.exec(tag)?.[1]);
    }
    for (const [id, want] of Object.entries(expect.toolCards)) {
      if (!cards.has(id)) problems.push(`tool card ${id} missing`);
      else if (cards.get(id) !== want) problems.push(`tool card ${id} is ${cards.get(id)}, expected ${want}`);
    }
    const extra = [...cards.keys()].filter((id) => !(id in expect.toolCards!));
    if (extra.length) problems.push(`unexpected tool cards ${extra.join(', ')}`);
  }

  for (const s of expect.panelContains ?? []) if (!text.includes(fold(s))) problems.push(`panel text lacks ${JSON.stringify(s)}`);
  for (const s of expect.panelLacks ?? []) if (text.includes(fold(s))) problems.push(`panel text has ${JSON.stringify(s)}`);
  for (const s of expect.panelContainsOnce ?? []) {
    const count = timesIn(text, s);
    if (count !== 1) problems.push(`${JSON.stringify(s)} is on the panel ${count} times, expected once`);
  }
  for (const [n, strings] of Object.entries(expect.chatContains ?? {})) {
    const chat = fold(file(`chat-${n}.txt`));
    for (const str of strings) if (!chat.includes(fold(str))) problems.push(`chat ${n} text lacks ${JSON.stringify(str)}`);
  }
  for (const [n, strings] of Object.entries(expect.chatLacks ?? {})) {
    const chat = fold(file(`chat-${n}.txt`));
    for (const str of strings) if (chat.includes(fold(str))) problems.push(`chat ${n} text has ${JSON.stringify(str)}`);
  }
  for (const [n, want] of Object.entries(expect.chats ?? {})) {
    // As the shared checker: a chat named here must have left its text (a chat closed by the run has none).
    if (!fs.existsSync(path.join(outDir, `chat-${n}.txt`))) {
      problems.push(`chat-${n}.txt missing`);
      continue;
    }
    const chat = fold(file(`chat-${n}.txt`));
    for (const str of want.contains ?? []) if (!chat.includes(fold(str))) problems.push(`chat ${n} text lacks ${JSON.stringify(str)}`);
    for (const str of want.lacks ?? []) if (chat.includes(fold(str))) problems.push(`chat ${n} text has ${JSON.stringify(str)}`);
    const info = (result as { chats?: { id: string; runState?: string }[] }).chats?.find((c) => c.id === `editor-${n}`);
    if (want.runState && info?.runState !== want.runState) problems.push(`chat ${n} runState ${info?.runState} != ${want.runState}`);
  }
  problems.push(...chatsOnce(outDir, expect.chats));
  if (expect.thinking && !html.includes('data-block="thinking"')) problems.push('no thinking block on the panel');

  const status = file('status.jsonl');
  for (const pattern of expect.statusMatches ?? []) {
    const insensitive = pattern.startsWith('(?i)');
    if (!new RegExp(insensitive ? pattern.slice(4) : pattern, insensitive ? 'i' : '').test(status)) problems.push(`no status-bar text matched /${pattern}/`);
  }

  if (expect.hostileFree) {
    if (/<script[\s>]/i.test(html)) problems.push('transcript contains a <script> element');
    for (const tag of html.match(/<[a-zA-Z][^>]*>/g) ?? []) {
      if (/\son\w+\s*=/i.test(tag)) problems.push(`event handler attribute in ${tag.slice(0, 80)}`);
      if (/\s(?:href|src|action|formaction)\s*=\s*"\s*(?:javascript|data):/i.test(tag)) problems.push(`script URL in ${tag.slice(0, 80)}`);
      if (/^<(?:iframe|object|embed)\b/i.test(tag)) problems.push(`embedded frame ${tag.slice(0, 80)}`);
    }
  }

  if (expect.files) {
    let files: Record<string, string> | undefined;
    try {
      files = JSON.parse(file('files.json')) as Record<string, string>;
    } catch {
      problems.push('files.json missing or not JSON');
    }
    for (const [p, want] of Object.entries(files ? expect.files : {})) {
      const got = Object.hasOwn(files!, p) ? files![p] : null;
      if (want === null && got !== null) problems.push(`${p} exists in the workspace, and must not`);
      else if (want !== null && got !== want) problems.push(`${p} has sha256 ${got?.slice(0, 12) ?? '(absent)'}, expected ${want.slice(0, 12)}`);
    }
  }
  const notifications = file('notifications.jsonl')
    .split('\n')
    .filter((l) => l.trim());
  for (const p of expect.notificationsMatch ?? []) if (!notifications.some((l) => rx(p).test(l))) problems.push(`no notification matched /${p}/`);
  for (const p of expect.notificationsLack ?? []) if (notifications.some((l) => rx(p).test(l))) problems.push(`a notification matched /${p}/`);
  if (expect.editorsMatch) {
    let editors: string[] = [];
    try {
      editors = (JSON.parse(file('editors.json')) as unknown[]).map((e) => JSON.stringify(e));
    } catch {
      problems.push('editors.json missing or not JSON');
    }
    for (const p of expect.editorsMatch) if (!editors.some((e) => rx(p).test(e))) problems.push(`no editor tab matched /${p}/`);
  }
  const requests = file('requests.jsonl');
  for (const p of expect.requestsMatch ?? []) if (!rx(p).test(requests)) problems.push(`no request to the model matched /${p}/`);
  for (const p of expect.requestsLack ?? []) if (rx(p).test(requests)) problems.push(`a request to the model matched /${p}/`);

  // What Pi persisted must be what the user saw: each finished assistant text is on the panel.
  const entries = file('session.jsonl')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as { message?: unknown; role?: string }];
      } catch {
        return [];
      }
    });
  type Msg = { role?: string; stopReason?: string; content?: Array<{ type?: string; text?: string }> };
  const assistants = entries.map((e) => (e.message ?? e) as Msg).filter((m) => m.role === 'assistant');
  if (assistants.length === 0 && !expect.noAssistantOk) problems.push('session.jsonl holds no assistant message');
  // Every chat's screen: the session may be an editor chat's.
  const screens = [
    text,
    ...readdirSafe(outDir)
      .filter((f) => /^chat-\d+\.txt$/.test(f))
      .map((f) => fold(file(f))),
  ].join('\n');
  if (!expect.hostileFree && expect.sessionOnScreen !== false) {
    for (const m of assistants) {
      if (m.stopReason === 'aborted' || m.stopReason === 'error') continue;
      for (const c of m.content ?? []) {
        if (c.type === 'text' && c.text?.trim() && !screens.includes(fold(c.text).trim()))
          problems.push(`persisted text not on the panel: ${JSON.stringify(c.text.slice(0, 60))}`);
      }
    }
  }
  return problems;
}

/**
 * `chats[N].containsOnce`: each string is in editor chat N's text (chat-N.txt) exactly once, as `panelContainsOnce`
 * is on the sidebar's (a tab shown again draws its reply once). The shared checker does not know it: the suite
 * checks it beside it.
 */
export function chatsOnce(outDir: string, chats: Record<string, { containsOnce?: string[] }> | undefined): string[] {
  const problems: string[] = [];
  for (const [n, want] of Object.entries(chats ?? {})) {
    if (!want.containsOnce?.length) continue;
    const file = path.join(outDir, `chat-${n}.txt`);
    // A missing chat-N.txt is reported by the `chats` check itself (this checker's and the shared one's).
    if (!fs.existsSync(file)) continue;
    const chat = fold(fs.readFileSync(file, 'utf8'));
    for (const s of want.containsOnce) {
      const count = timesIn(chat, s);
      if (count !== 1) problems.push(`${JSON.stringify(s)} is in chat ${n} ${count} times, expected once`);
    }
  }
  return problems;
}

function readdirSafe(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

if (import.meta.main) {
  const [outDir, caseFile] = process.argv.slice(2);
  if (!outDir || !caseFile) {
    console.error('usage: node test/e2e/check.ts OUT_DIR CASE.json');
    process.exit(2);
  }
  const name = path.basename(caseFile);
  const problems = checkRun(outDir, (JSON.parse(fs.readFileSync(caseFile, 'utf8')) as { expect?: Expect }).expect ?? {});
  for (const p of problems) console.log(`FAIL ${name}: ${p}`);
  console.log(problems.length ? `${name}: ${problems.length} problem(s)` : `${name}: ok`);
  process.exit(problems.length ? 1 : 0);
}

/** `@changes` as text: the changed files first, then the staged and unstaged diffs, the whole clipped to a bound that says so. */

import { CHANGES_MAX_CHARS, clipHeadWithin } from './bounds.ts';
import { t } from '../../shared/l10n.ts';

export interface ChangesInput {
  /** Only what is staged (`@changes:staged`). */
  readonly stagedOnly: boolean;
  /** `git diff --cached`. */
  readonly staged: string;
  /** `git diff` (working tree against the index); empty for `stagedOnly`. */
  readonly unstaged: string;
  /** Untracked files (repository-relative): no diff, named so Pi knows they exist. */
  readonly untracked: readonly string[];
}

/** Each file a `git diff` text touches, with a one-letter status (A added, D deleted, R renamed, M modified). */
function diffFiles(diff: string): { status: string; path: string }[] {
  const files: { status: string; path: string }[] = [];
  for (const section of diff.split(/^(?=diff --git )/m)) {
    const head = /^diff --git a\/(.+?) b\/(.+)$/m.exec(section);
    if (!head) continue;
    const status = /^new file mode/m.test(section) ? 'A' : /^deleted file mode/m.test(section) ? 'D' : /^rename from /m.test(section) ? 'R' : 'M';
    files.push({ status, path: status === 'R' ? `${head[1]} → ${head[2]}` : head[2]! });
  }
  return files;
}

/** The chip's text and its one-line description; undefined when there is nothing to send. */
export function changesText(input: ChangesInput, max = CHANGES_MAX_CHARS): { text: string; detail: string } | undefined {
  const staged = diffFiles(input.staged);
  const unstaged = diffFiles(input.unstaged);
  const untracked = input.stagedOnly ? [] : input.untracked;
  if (!staged.length && !unstaged.length && !untracked.length) return undefined;
  const list = [
    ...staged.map((f) => `#   ${f.status} ${f.path} (staged)`),
    ...unstaged.map((f) => `#   ${f.status} ${f.path}`),
    ...untracked.map((p) => `#   ? ${p} (untracked: no diff)`),
  ];
  const diffs = [
    ...(staged.length ? [`## staged (git diff --cached)\n${input.staged.replace(/\n?$/, '\n')}`] : []),
    ...(unstaged.length ? [`## not staged (git diff)\n${input.unstaged.replace(/\n?$/, '\n')}`] : []),
  ].join('');
  // l10n-ignore: the head of what Pi reads
  const title = `# ${input.stagedOnly ? 'staged changes' : 'uncommitted changes (staged and not staged)'}, ${list.length} ${list.length === 1 ? 'file' : 'files'}:\n`;
  // Thousands of untracked files (a build's output) must not crowd out the diffs, nor pass the bound themselves.
  const listText = `${list.join('\n')}\n`;
  const head = title + clipHeadWithin(listText, Math.max(0, (diffs ? Math.floor(max / 2) : max) - title.length));
  const body = clipHeadWithin(diffs, Math.max(0, max - head.length));
  const text = head + body;
  const clipped = head.length < title.length + listText.length || body.length !== diffs.length;
  const parts = [
    staged.length ? t('{0} staged', staged.length) : '',
    unstaged.length ? t('{0} not staged', unstaged.length) : '',
    untracked.length ? t('{0} untracked', untracked.length) : '',
  ].filter(Boolean);
  const detail = input.stagedOnly ? t('Staged changes: {0}', parts.join(', ')) : t('Uncommitted changes: {0}', parts.join(', '));
  return { text, detail: clipped ? t('{0} (clipped)', detail) : detail };
}

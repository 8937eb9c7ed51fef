/** Files and folders dragged from the workbench (Explorer, editor tabs) onto the chat: the URIs the drop carries. */

import { MAX_DROPPED_URIS } from '../shared/wire/webviewProtocol.ts';

/** The workbench's own list first (it keeps every resource of a multi-select), then the standard one. */
export const URI_LIST_TYPES = ['application/vnd.code.uri-list', 'text/uri-list'] as const;

/** The URIs a drop carries (`#` comment lines and blanks skipped, at most `MAX_DROPPED_URIS`), or none. */
export function droppedUris(dt: DataTransfer | null): string[] {
  if (!dt) return [];
  for (const type of URI_LIST_TYPES) {
    const text = dt.getData(type);
    if (!text) continue;
    // VS Code's own list is a JSON array of strings; text/uri-list is one URI per line.
    let list: unknown = undefined;
    if (text.trimStart().startsWith('[')) {
      try {
        list = JSON.parse(text);
      } catch {
        list = undefined;
      }
    }
    const uris = Array.isArray(list)
      ? list.filter((u): u is string => typeof u === 'string')
      : text
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter((l) => l && !l.startsWith('#'));
    if (uris.length) return uris.slice(0, MAX_DROPPED_URIS);
  }
  return [];
}

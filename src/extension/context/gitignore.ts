/**
 * `.gitignore` rules as git applies them: every `.gitignore` file rules the paths under its own folder, a deeper
 * file's matching line beats a shallower one's, a later line beats an earlier one, `!` re-includes, and nothing
 * under an ignored folder comes back. Each file's syntax (globs, `**`, anchors, trailing `/`) is the `ignore` package's.
 */

import ignore, { type Ignore } from 'ignore';

/** The `.gitignore` files of one tree, by the folder each sits in ('' for the root, '/'-separated). */
export class GitignoreRules {
  private readonly _files: { readonly dir: string; readonly rules: Ignore }[] = [];
  private readonly _ignoreCase: boolean;

  /** `ignoreCase`: git's `core.ignorecase` (on for case-insensitive file systems). */
  constructor(options: { ignoreCase?: boolean } = {}) {
    this._ignoreCase = options.ignoreCase ?? false;
  }

  /** Adds the `.gitignore` in folder `dir` (relative to the root). */
  add(dir: string, text: string): void {
    const clean = dir.replace(/^\/+|\/+$/g, '');
    this._files.push({ dir: clean, rules: ignore({ ignorecase: this._ignoreCase }).add(text) });
    // Shallow first, so a deeper file's verdict is the one that stands.
    this._files.sort((a, b) => depth(a.dir) - depth(b.dir));
  }

  /** Whether `rel` (relative to the root, '/'-separated) is ignored; `isDir` for a folder (patterns ending in `/`). */
  ignores(rel: string, isDir: boolean): boolean {
    const parts = rel.split('/').filter(Boolean);
    // Git never looks inside an ignored folder, so no rule can bring back a path under one.
    for (let i = 1; i < parts.length; i++) if (this._verdict(parts.slice(0, i).join('/'), true)) return true;
    return parts.length > 0 && this._verdict(parts.join('/'), isDir);
  }

  private _verdict(rel: string, isDir: boolean): boolean {
    let ignored = false;
    for (const { dir, rules } of this._files) {
      if (dir && !rel.startsWith(`${dir}/`)) continue;
      const sub = dir ? rel.slice(dir.length + 1) : rel;
      const r = rules.test(isDir ? `${sub}/` : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }
}

const depth = (dir: string): number => (dir ? dir.split('/').length : 0);

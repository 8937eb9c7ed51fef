/** The errors a change of Pi's added: noted before `edit`, `write` or `vscode_rename` runs, compared after it once the language servers have looked (briefly). */

import * as vscode from 'vscode';
import { afterEditNote, newErrors, type DiagnosticView } from '../../shared/vscodeTools.ts';
import type { HostRequests } from '../../shared/wire/workerProtocol.ts';
import { openAllForServers, type WorkspaceFiles } from './workspaceFiles.ts';

/** How long the answer after a change may wait for the language servers at most. */
const AFTER_EDIT_MS = 1500;

/** After the servers' first report, how long without another before the errors are read (syntax and semantic checks come apart). */
const QUIET_MS = 300;

/** Tool calls whose errors before are kept at most (a call whose result never comes is forgotten in time). */
const MAX_NOTED = 50;

export class EditDiagnostics {
  private readonly _files: WorkspaceFiles;
  private readonly _before = new Map<string, DiagnosticView[]>();

  constructor(files: WorkspaceFiles) {
    this._files = files;
  }

  async answer(p: HostRequests['editDiagnostics']['params']): Promise<HostRequests['editDiagnostics']['result']> {
    const uris = p.paths.map((f) => vscode.Uri.file(f));
    if (p.step === 'before') {
      // Opened now, so the servers see the change when the file is written.
      await openAllForServers(uris);
      this._before.set(
        p.id,
        uris.flatMap((u) => this._files.diagnostics(u)),
      );
      while (this._before.size > MAX_NOTED) this._before.delete(this._before.keys().next().value as string);
      return { note: '', count: 0 };
    }
    const before = this._before.get(p.id) ?? [];
    this._before.delete(p.id);
    // A file `write` created did not exist before: the servers get it now (one open already is left as it is).
    const reported = settled(uris, AFTER_EDIT_MS);
    await openAllForServers(uris);
    await reported;
    const added = newErrors(
      before,
      uris.flatMap((u) => this._files.diagnostics(u)),
    );
    return { note: afterEditNote(added), count: added.length };
  }
}

/** Resolves `QUIET_MS` after the last diagnostics change of `uris` following the first, or at `ms` in any case. */
function settled(uris: readonly vscode.Uri[], ms: number): Promise<void> {
  const keys = new Set(uris.map((u) => u.toString()));
  return new Promise((resolve) => {
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(cap);
      clearTimeout(quiet);
      sub.dispose();
      resolve();
    };
    const cap = setTimeout(done, ms);
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (!e.uris.some((u) => keys.has(u.toString()))) return;
      clearTimeout(quiet);
      quiet = setTimeout(done, QUIET_MS);
    });
  });
}

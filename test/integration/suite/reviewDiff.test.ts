/** The review's check for a side of a diff editor, on real diff editors and a plain editor of the same file. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { isDiffSide } from '../../../src/extension/review/reviewEditor.ts';
import { waitUntil } from './piHarness.ts';

describe('review marks in diff editors', () => {
  let dir: string;
  let file: vscode.Uri;
  let before: vscode.Uri;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-review-diff-'));
    fs.writeFileSync(path.join(dir, 'a.ts'), 'one\nTWO\nthree\n');
    fs.writeFileSync(path.join(dir, 'a.before.ts'), 'one\ntwo\nthree\n');
    file = vscode.Uri.file(path.join(dir, 'a.ts'));
    before = vscode.Uri.file(path.join(dir, 'a.before.ts'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const editorsOf = (uri: vscode.Uri): vscode.TextEditor[] => vscode.window.visibleTextEditors.filter((e) => e.document.uri.toString() === uri.toString());
  const shown = (): string => vscode.window.visibleTextEditors.map((e) => `${path.basename(e.document.uri.fsPath)}@${e.viewColumn}`).join(', ');

  /** The diff's two sides are in a diff; the file's plain editor in group 2 is not. */
  const assertSidesAndPlain = (): void => {
    const plain = editorsOf(file).find((e) => e.viewColumn === vscode.ViewColumn.Two);
    const modified = editorsOf(file).find((e) => e !== plain);
    const [original] = editorsOf(before);
    assert.ok(original && modified && plain, `visible editors: ${shown()}`);
    assert.equal(isDiffSide(original), true, 'the original side');
    assert.equal(isDiffSide(modified), true, 'the modified side');
    assert.equal(isDiffSide(plain), false, 'the plain editor in group 2');
  };

  it('says both sides of a diff editor are in a diff, and a plain editor of the same file in another group is not', async () => {
    await vscode.window.showTextDocument(file, { viewColumn: vscode.ViewColumn.Two, preview: false });
    await vscode.commands.executeCommand('vscode.diff', before, file, 'a.ts (before) ↔ a.ts', { viewColumn: vscode.ViewColumn.One, preview: true });
    await waitUntil(() => editorsOf(file).length === 2 && editorsOf(before).length === 1, 'the diff in group 1 and the file in group 2');
    assertSidesAndPlain();
  });

  it('says the file’s editor is not in a diff once the diff tab in its group is closed', async () => {
    await vscode.window.showTextDocument(file, { viewColumn: vscode.ViewColumn.One, preview: false });
    await vscode.commands.executeCommand('vscode.diff', before, file, 'a.ts (before) ↔ a.ts', { viewColumn: vscode.ViewColumn.One, preview: true });
    await waitUntil(() => editorsOf(before).length === 1, 'the diff');
    assert.equal(isDiffSide(editorsOf(file)[0]!), true, `visible editors: ${shown()}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await waitUntil(() => editorsOf(before).length === 0 && editorsOf(file).length === 1, 'the file alone');
    assert.equal(isDiffSide(editorsOf(file)[0]!), false);
  });

  it('says the sides of a multi-file diff editor (Review Changes) are in a diff, and a plain editor of the file beside it is not', async () => {
    await vscode.window.showTextDocument(file, { viewColumn: vscode.ViewColumn.Two, preview: false });
    await vscode.commands.executeCommand('workbench.action.focusFirstEditorGroup');
    await vscode.commands.executeCommand('vscode.changes', 'Review', [[file, before, file]]);
    await waitUntil(() => editorsOf(file).length === 2 && editorsOf(before).length === 1, 'the multi-file diff and the file beside it');
    assertSidesAndPlain();
  });
});

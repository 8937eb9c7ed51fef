/** The VS Code tools' answers as the model reads them: formatting, bounds, markers and the argument checks. */

import * as assert from 'node:assert/strict';
import {
  afterEditNote,
  checkToolArgs,
  formatDiagnostics,
  formatHover,
  formatLocations,
  formatRename,
  formatSymbols,
  MAX_RESULT_ITEMS,
  newErrors,
  newErrorsIn,
  timeoutText,
  type DiagnosticView,
  type PlaceView,
} from '../../src/shared/vscodeTools.ts';

const diag = (path: string, line: number, severity: DiagnosticView['severity'], message: string): DiagnosticView => ({
  path,
  line,
  column: 1,
  severity,
  message,
});

describe('VS Code tools: answers for the model', () => {
  it('lists references as path:line:column with the line text, grouped in the order given', () => {
    const places: PlaceView[] = [
      { path: 'src/a.ts', line: 3, column: 17, text: '  export function greet(name: string) {' },
      { path: 'src/b.ts', line: 10, column: 5, text: 'greet("x");' },
    ];
    const text = formatLocations('references', 'greet', places);
    assert.match(text, /^2 references to greet:/);
    assert.match(text, /\nsrc\/a\.ts:3:17: export function greet\(name: string\) \{/);
    assert.match(text, /\nsrc\/b\.ts:10:5: greet\("x"\);/);
  });

  it('marks a place outside the workspace', () => {
    const text = formatLocations('definition', 'Array', [{ path: '/usr/lib/lib.es5.d.ts', line: 1, column: 1, outside: true }]);
    assert.match(text, /\/usr\/lib\/lib\.es5\.d\.ts:1:1 \(outside the workspace\)/);
  });

  it('says so when the language server found nothing', () => {
    assert.match(formatLocations('references', 'src/a.ts:3:17', []), /No references found for src\/a\.ts:3:17/);
  });

  it('bounds 500 references to the first ones and says how many more there are', () => {
    const places = Array.from({ length: 500 }, (_, i) => ({ path: `src/f${i}.ts`, line: i + 1, column: 1, text: 'use(x)' }));
    const text = formatLocations('references', 'x', places);
    const listed = text.split('\n').filter((l) => /^src\/f\d+\.ts:/.test(l));
    assert.equal(listed.length, MAX_RESULT_ITEMS);
    assert.match(text, new RegExp(`\\[${500 - MAX_RESULT_ITEMS} more references not shown`));
    assert.ok(text.length < 20_000, `output is ${text.length} chars`);
  });

  it('clips a very long line of code', () => {
    const text = formatLocations('references', 'x', [{ path: 'a.ts', line: 1, column: 1, text: 'x'.repeat(5000) }]);
    assert.ok(text.length < 400);
    assert.match(text, /…/);
  });

  it('lists diagnostics errors first, then warnings, and leaves out hints', () => {
    const text = formatDiagnostics(
      [diag('b.ts', 2, 'warning', 'unused'), diag('a.ts', 5, 'error', 'bad type'), diag('a.ts', 1, 'hint', 'style')],
      'the workspace',
    );
    const lines = text.split('\n');
    assert.match(lines[0]!, /1 error, 1 warning in the workspace/);
    assert.ok(lines.findIndex((l) => l.includes('bad type')) < lines.findIndex((l) => l.includes('unused')));
    assert.doesNotMatch(text, /style/);
    assert.match(text, /a\.ts:5:1 error: bad type/);
  });

  it('says there are no problems when there are none', () => {
    assert.match(formatDiagnostics([], 'src/a.ts'), /No errors or warnings in src\/a\.ts/);
  });

  it('bounds a flood of diagnostics with a note', () => {
    const many = Array.from({ length: 1000 }, (_, i) => diag('a.ts', i + 1, 'error', 'e'));
    const text = formatDiagnostics(many, 'the workspace');
    assert.match(text, /more problems not shown/);
    assert.ok(text.split('\n').length <= MAX_RESULT_ITEMS + 3);
  });

  it('shows hover text, bounded', () => {
    assert.match(formatHover(['```ts\nfunction greet(name: string): void\n```'], 'src/a.ts:3:17'), /function greet\(name: string\): void/);
    assert.match(formatHover([], 'src/a.ts:3:17'), /No hover information at src\/a\.ts:3:17/);
    assert.match(formatHover(['y'.repeat(50_000)], 'p'), /\[hover text cut/);
  });

  it('shows symbols indented by their nesting, with kind and place', () => {
    const text = formatSymbols(
      [
        { name: 'Greeter', kind: 'class', path: 'a.ts', line: 1, column: 14, depth: 0 },
        { name: 'hello', kind: 'method', path: 'a.ts', line: 2, column: 3, depth: 1 },
      ],
      'symbols in a.ts',
    );
    assert.match(text, /\nclass Greeter a\.ts:1:14/);
    assert.match(text, /\n {2}method hello a\.ts:2:3/);
  });

  it('says which files a rename changed and how many places', () => {
    const text = formatRename('greet', 'welcome', [
      { path: 'src/a.ts', count: 2 },
      { path: 'src/b.ts', count: 1 },
    ]);
    assert.match(text, /Renamed greet to welcome: 3 places in 2 files/);
    assert.match(text, /src\/a\.ts \(2\)/);
  });

  it('finds the errors an edit added, by message, ignoring ones that only moved', () => {
    const before = [diag('a.ts', 3, 'error', 'old problem')];
    const after = [
      diag('a.ts', 4, 'error', 'old problem'),
      diag('a.ts', 7, 'error', "Type 'string' is not assignable to type 'number'."),
      diag('a.ts', 8, 'warning', 'w'),
    ];
    const added = newErrors(before, after);
    assert.deepEqual(
      added.map((d) => d.line),
      [7],
    );
    const note = afterEditNote(added);
    assert.match(note, /1 new error/);
    assert.match(note, /a\.ts:7:1 error: Type 'string' is not assignable to type 'number'\./);
    assert.equal(afterEditNote([]), '');
  });

  it("reads the new errors' count back from a tool's output for the card's badge", () => {
    const note = afterEditNote([diag('a.ts', 1, 'error', 'x'), diag('a.ts', 2, 'error', 'y')]);
    assert.equal(newErrorsIn(`Successfully replaced 1 block(s) in a.ts.${note}`), 2);
    assert.equal(newErrorsIn('Successfully replaced 1 block(s) in a.ts.'), undefined);
  });

  it('says the language server did not answer in time', () => {
    assert.match(timeoutText(15_000), /the language server did not answer within 15 s/);
  });

  it('checks each tool arguments: a place or a symbol, 1-based numbers, a new name', () => {
    assert.deepEqual(checkToolArgs('vscode_references', { path: 'a.ts', line: 3, column: 2 }), { ok: true, args: { path: 'a.ts', line: 3, column: 2 } });
    assert.deepEqual(checkToolArgs('vscode_hover', { symbol: 'greet' }), { ok: true, args: { symbol: 'greet' } });
    assert.equal(checkToolArgs('vscode_definition', { path: 'a.ts', line: 0, column: 1 }).ok, false);
    assert.equal(checkToolArgs('vscode_definition', {}).ok, false);
    assert.equal(checkToolArgs('vscode_rename', { path: 'a.ts', line: 1, column: 1 }).ok, false);
    assert.equal(checkToolArgs('vscode_rename', { path: 'a.ts', line: 1, column: 1, newName: 'b' }).ok, true);
    assert.deepEqual(checkToolArgs('vscode_diagnostics', {}), { ok: true, args: {} });
    assert.equal(checkToolArgs('vscode_diagnostics', { paths: [3] }).ok, false);
    assert.deepEqual(checkToolArgs('vscode_symbols', { query: 'Greet' }), { ok: true, args: { query: 'Greet' } });
  });
});

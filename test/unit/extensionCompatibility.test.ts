/** docs/extension-compatibility.md lists every example extension of the installed Pi once, and the README states its counts. */

import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../../', import.meta.url);
const examples = readdirSync(fileURLToPath(new URL('node_modules/@earendil-works/pi-coding-agent/examples/extensions/', root)))
  .filter((n) => n !== 'README.md')
  .map((n) => n.replace(/\.ts$/, ''))
  .sort();
const doc = readFileSync(fileURLToPath(new URL('docs/extension-compatibility.md', root)), 'utf8');
const readme = readFileSync(fileURLToPath(new URL('README.md', root)), 'utf8');

/** The example names in the table under the `## heading (N)` that starts with `title`, and N. */
function section(title: string): { count: number; names: string[] } {
  const at = doc.indexOf(`## ${title} (`);
  assert.ok(at >= 0, `no section "${title}"`);
  const count = Number(/\((\d+)\)/.exec(doc.slice(at))?.[1]);
  const end = doc.indexOf('\n## ', at + 1);
  const body = doc.slice(at, end < 0 ? undefined : end);
  const names = [...body.matchAll(/^\| ([a-z0-9-]+)(?: ✓)? \|/gm)].map((m) => m[1]!).filter((n) => n !== 'example' && n !== '---');
  return { count, names };
}

describe("the compatibility list of Pi's example extensions", () => {
  const works = section('Work as in the CLI');
  const limits = section('Work within limits');
  const na = section('Do not apply');

  it('names every example of the installed Pi exactly once', () => {
    assert.deepEqual([...works.names, ...limits.names, ...na.names].sort(), examples);
  });

  it('states counts that match its tables, and the README states the same', () => {
    assert.equal(works.count, works.names.length);
    assert.equal(limits.count, limits.names.length);
    assert.equal(na.count, na.names.length);
    assert.ok(
      readme.includes(
        `Pi's ${examples.length} example extensions | ${works.count} work as in the CLI, ${limits.count} within the limits above, ${na.count} do not apply`,
      ),
      'the README row',
    );
  });

  it('marks as tested exactly the examples the SDK suite loads', () => {
    const suite = readFileSync(fileURLToPath(new URL('test/sdk/piExamples.sdk.test.ts', root)), 'utf8');
    const loaded = new Set([...suite.matchAll(/loading\('([a-z0-9-]+)(?:\.ts)?'/g)].map((m) => m[1]!));
    const marked = new Set([...doc.matchAll(/^\| ([a-z0-9-]+) ✓ \|/gm)].map((m) => m[1]!));
    assert.deepEqual([...marked].sort(), [...loaded].sort());
  });
});

/** Entry point VS Code loads as `extensionTestsPath`: runs the bundled mocha suites inside the extension host. */
import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

/** Marks the suite's own output, which code-server forwards to the page console among the workbench's logs. */
export const OUTPUT_MARK = '[pi-test] ';

// The extension host forwards console.log's arguments unformatted and its console is not replaceable, so
// this reporter formats every line itself and logs it as one marked string.
function MarkedReporter(this: unknown, runner: Mocha.Runner): void {
  const out = (line: string): void => console.log(OUTPUT_MARK + line);
  const C = Mocha.Runner.constants;
  const failures: Array<{ title: string; err: Error }> = [];
  let passes = 0;
  let depth = 0;
  const started = Date.now();
  runner.on(C.EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
    if (suite.title) out(`${'  '.repeat(depth)}${suite.title}`);
    depth++;
  });
  runner.on(C.EVENT_SUITE_END, () => void depth--);
  runner.on(C.EVENT_TEST_PASS, (test: Mocha.Test) => {
    passes++;
    out(`${'  '.repeat(depth)}✔ ${test.title} (${test.duration ?? 0} ms)`);
  });
  runner.on(C.EVENT_TEST_FAIL, (test: Mocha.Test, err: Error) => {
    failures.push({ title: test.fullTitle(), err });
    out(`${'  '.repeat(depth)}${failures.length}) ${test.title}`);
  });
  runner.once(C.EVENT_RUN_END, () => {
    out('');
    failures.forEach(({ title, err }, i) => out(`${i + 1}) ${title}:\n   ${(err.stack ?? err.message).split('\n').slice(0, 8).join('\n   ')}\n`));
    out(`integration: ${passes} passed, ${failures.length} failed (${Date.now() - started} ms)`);
  });
}

/** Runs every `*.test.js` beside this file; rejects when a test fails, which makes VS Code exit non-zero. */
export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: MarkedReporter as unknown as typeof Mocha.reporters.Base });
  const grep = process.env.PI_PANEL_TEST_GREP;
  if (grep) mocha.grep(grep);
  for (const f of fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort())
    mocha.addFile(path.join(__dirname, f));
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) throw new Error(`${failures} integration test(s) failed`);
}

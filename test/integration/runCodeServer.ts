/**
 * Runs the integration suite inside code-server's extension host (a real VS Code 1.139 on Node 24):
 * the workbench opens with extensionDevelopmentPath/extensionTestsPath in its payload and reports the
 * suite's exit code through `window.codeAutomationExit`.
 *
 *   node test/integration/runCodeServer.ts [--no-build] [--timeout-ms N] [--grep PATTERN] [--extension DIR | --vsix FILE]
 *
 * `--vsix FILE` installs the packaged extension into code-server and runs the suite against the installed
 * copy, so the tests see exactly what a user gets (dist/extension.js, dist/worker.js, dist/pi/).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launchBrowser } from '../workbench/browser.ts';
import { startCodeServer } from '../workbench/codeServer.ts';
import { REPO_ROOT } from '../workbench/install.ts';

/** Same marker as suite/index.ts puts before each line of mocha's output. */
const OUTPUT_MARK = '[pi-test] ';
const TESTS_ENTRY = path.join(REPO_ROOT, 'out', 'test', 'integration', 'index.js');

function step(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
}

/** The folder code-server unpacked our .vsix into. */
function installedExtension(extensionsDir: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string };
  const dir = fs.readdirSync(extensionsDir).find((d) => d.startsWith(`${pkg.publisher}.${pkg.name}-`));
  if (!dir) throw new Error(`the .vsix did not install into ${extensionsDir}`);
  return path.join(extensionsDir, dir);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'no-build': { type: 'boolean' },
      'timeout-ms': { type: 'string' },
      grep: { type: 'string' },
      extension: { type: 'string' },
      vsix: { type: 'string' },
    },
  });
  const vsix = values.vsix ? path.resolve(values.vsix) : undefined;
  const timeoutMs = Number(values['timeout-ms'] ?? 240_000);
  if (!values['no-build']) step('npm', ['run', '--silent', 'build']);
  step(process.execPath, [path.join(REPO_ROOT, 'test', 'build-tests.mjs')]);

  const started = Date.now();
  const server = await startCodeServer({ smokeTestDriver: true, vsix: vsix ? [vsix] : [], env: values.grep ? { PI_PANEL_TEST_GREP: values.grep } : {} });
  const extensionPath = vsix ? installedExtension(server.extensionsDir) : path.resolve(values.extension ?? REPO_ROOT);
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  try {
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    const remote = (p: string): string => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(extensionPath)],
      ['extensionTestsPath', remote(TESTS_ENTRY)],
    ]);
    let report: (code: number) => void = () => undefined;
    const exitCode = new Promise<number>((resolve) => (report = resolve));
    // Must exist before the workbench loads: it calls this when the suite's run() settles.
    await page.exposeFunction('codeAutomationExit', (code: number) => report(Number(code)));
    // The extension host's console (mocha's spec reporter) is forwarded to the page console in development mode.
    page.on('console', (msg) => {
      const text = msg.text();
      if (process.env.PI_PANEL_DEBUG_CONSOLE) process.stderr.write(`[console ${msg.type()}] ${JSON.stringify(text).slice(0, 300)}\n`);
      const at = text.indexOf(OUTPUT_MARK);
      if (at >= 0) process.stdout.write(`${text.slice(at + OUTPUT_MARK.length).replace(/\s+\(at .*\)$/s, '')}\n`);
    });
    page.on('pageerror', (err) => process.stderr.write(`[page error] ${err.message}\n`));
    await page.goto(server.workbenchUrl(server.workspace, { payload }), { waitUntil: 'domcontentloaded' });
    const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(-1), timeoutMs).unref());
    const code = await Promise.race([exitCode, timeout]);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (code === -1) {
      console.log(`integration (code-server): no result within ${timeoutMs} ms; server log tail:`);
      console.log(fs.readFileSync(server.logFile, 'utf8').slice(-3000));
      return 1;
    }
    console.log(`integration (code-server): suite exited with ${code} after ${secs} s`);
    return code === 0 ? 0 : 1;
  } finally {
    await browser?.close();
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);

/**
 * Build: `node esbuild.mjs [--production] [--watch]`.
 *
 * - dist/extension.js       host main thread (node, cjs); `vscode` stays external, Pi is never in it.
 * - dist/worker.js          the Pi worker thread (node, cjs), started by the host when the view opens.
 * - dist/pi/pi.cjs          Pi SDK as one CommonJS file, required lazily by the worker, plus the files
 *                           Pi reads beside itself at runtime (package.json, Photon wasm, image worker,
 *                           export-html templates and themes).
 * - dist/pi/cli.cjs         Pi's own CLI (what its dist/cli.js does, over pi.cjs), so an extension can start `pi`
 *                           as a child process.
 * - dist/pi/codemode-worker.js  the worker Pi's codemode runs scripts in (bundled Pi looks for it beside itself).
 * - dist/webview/main.js    webview code (browser, iife) and main.css when present.
 * - dist/webview/codicons/  VS Code's icon font (@vscode/codicons): codicon.ttf.
 * - dist/webview/mermaid.js the diagram library (ES module, minified), its diagram types in mermaid-HASH.js chunks.
 * - dist/webview/highlight.js  the code highlighter (ES module), loaded by the view with its first code block.
 * - dist/webview/katex.js      the math library (ES module), loaded by the view when a reply first starts a formula.
 *
 * Entries whose source does not exist yet are skipped with a note, so the build works while the
 * project is being written.
 */
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

// A release build starts from an empty dist/, so no source map or stale file of a dev build ships.
if (production) rmSync(join(dirname(fileURLToPath(import.meta.url)), 'dist'), { recursive: true, force: true });

/** Finds an installed package's folder the way Node would, without going through its `exports` map. */
function packageDir(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === dirname(dir)) throw new Error(`cannot find package ${name} from ${from}`);
  }
}

const piPackageDir = packageDir('@earendil-works/pi-coding-agent', root);
const photonDir = packageDir('@silvia-odwyer/photon-node', piPackageDir);
const codemodeDir = packageDir('@earendil-works/pi-codemode', piPackageDir);
const quickjsDir = packageDir('quickjs-wasi', codemodeDir);
const piOut = join(root, 'dist', 'pi');

/** Logs each (re)build's outcome; esbuild prints the errors and warnings themselves. */
function reportPlugin(label) {
  return {
    name: 'report',
    setup(build) {
      let started = 0;
      build.onStart(() => {
        started = Date.now();
      });
      build.onEnd((result) => {
        const status = result.errors.length ? `failed with ${result.errors.length} error(s)` : 'ok';
        console.log(`[build] ${label}: ${status} in ${Date.now() - started} ms`);
      });
    },
  };
}

/**
 * Files Pi reads relative to its own location (found from `import.meta.url`, i.e. dist/pi/):
 * - package.json: name, version and `piConfig`; without it Pi walks up to the extension's package.json.
 *   It says `"type": "module"`, which is why the bundle is named `.cjs`.
 * - photon_rs_bg.wasm: Photon's CJS loader reads it from `__dirname`; without it images are omitted.
 * - dist/core/export-html/ and dist/modes/interactive/theme/: `session.exportToHtml()` templates and colours.
 * - node_modules/quickjs-wasi/quickjs.wasm: the VM codemode scripts run in. Pi finds it with
 *   `createRequire(import.meta.url).resolve('quickjs-wasi/quickjs.wasm')`, so it needs the package's
 *   `exports` entry beside it; vsce leaves only the top-level node_modules/ out of the package.
 */
function copyPiAssets() {
  mkdirSync(piOut, { recursive: true });
  cpSync(join(piPackageDir, 'package.json'), join(piOut, 'package.json'));
  cpSync(join(photonDir, 'photon_rs_bg.wasm'), join(piOut, 'photon_rs_bg.wasm'));
  const exportDir = join(piPackageDir, 'dist', 'core', 'export-html');
  const exportOut = join(piOut, 'dist', 'core', 'export-html');
  mkdirSync(join(exportOut, 'vendor'), { recursive: true });
  for (const name of ['template.html', 'template.css', 'template.js']) {
    cpSync(join(exportDir, name), join(exportOut, name));
  }
  for (const name of readdirSync(join(exportDir, 'vendor')).filter((n) => n.endsWith('.js'))) {
    cpSync(join(exportDir, 'vendor', name), join(exportOut, 'vendor', name));
  }
  const themeDir = join(piPackageDir, 'dist', 'modes', 'interactive', 'theme');
  const themeOut = join(piOut, 'dist', 'modes', 'interactive', 'theme');
  mkdirSync(themeOut, { recursive: true });
  for (const name of readdirSync(themeDir).filter((n) => n.endsWith('.json'))) {
    cpSync(join(themeDir, name), join(themeOut, name));
  }
  const quickjsOut = join(piOut, 'node_modules', 'quickjs-wasi');
  mkdirSync(quickjsOut, { recursive: true });
  const quickjsPackage = JSON.parse(readFileSync(join(quickjsDir, 'package.json'), 'utf8'));
  const quickjsManifest = {
    name: quickjsPackage.name,
    version: quickjsPackage.version,
    license: quickjsPackage.license,
    exports: { './quickjs.wasm': './quickjs.wasm' },
  };
  writeFileSync(join(quickjsOut, 'package.json'), JSON.stringify(quickjsManifest, null, 2) + '\n');
  cpSync(join(quickjsDir, 'quickjs.wasm'), join(quickjsOut, 'quickjs.wasm'));
  cpSync(join(quickjsDir, 'LICENSE'), join(quickjsOut, 'LICENSE'));
}

function copyPiAssetsPlugin() {
  return {
    name: 'pi-assets',
    setup(build) {
      build.onEnd((result) => {
        if (!result.errors.length) copyPiAssets();
      });
    },
  };
}

/**
 * Lets the SDK bundle's entry take a module from Pi's `dist/` that its `exports` map does not list (the CLI's
 * setup, src/pi/piInternals.d.ts); the same file the package's index imports, so it is bundled once.
 */
function piInternalsPlugin() {
  return {
    name: 'pi-internals',
    setup(build) {
      build.onResolve({ filter: /^@earendil-works\/pi-coding-agent\/dist\// }, (args) => ({
        path: join(piPackageDir, args.path.slice('@earendil-works/pi-coding-agent/'.length)),
      }));
    },
  };
}

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: production ? 'none' : 'inline',
};

/** @type {{ label: string, options: import('esbuild').BuildOptions }[]} */
const builds = [];

builds.push({
  label: 'dist/pi/pi.cjs',
  options: {
    ...common,
    entryPoints: [join(root, 'src', 'pi', 'piEntry.ts')],
    outfile: join(piOut, 'pi.cjs'),
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    // Pi derives its own path from import.meta.url, which cjs output would leave undefined.
    define: { 'import.meta.url': 'import_meta_url', PI_BUNDLED_NODE: 'true' },
    inject: [join(root, 'src', 'pi', 'importMetaUrlShim.js')],
    // Optional native/peer modules Pi only loads when present.
    external: ['electron'],
    // Pi's source maps would triple the size for little use in the extension host.
    sourcemap: false,
    plugins: [reportPlugin('dist/pi/pi.cjs'), piInternalsPlugin(), copyPiAssetsPlugin()],
  },
});

// Pi's CLI, for extensions that start `pi` again (subagents): the worker points `process.argv[1]` at it. A few
// lines that require the SDK bundle beside them and run Pi's `main()`, so the package holds one copy of Pi.
builds.push({
  label: 'dist/pi/cli.cjs',
  options: {
    ...common,
    entryPoints: [join(root, 'src', 'pi', 'cliEntry.ts')],
    outfile: join(piOut, 'cli.cjs'),
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['./pi.cjs'],
    banner: { js: '#!/usr/bin/env node' },
    sourcemap: false,
    plugins: [reportPlugin('dist/pi/cli.cjs')],
  },
});

// Pi resizes images in a worker loaded from `./image-resize-worker.js` beside the bundle; dist/pi's
// package.json makes that an ES module. Without it Pi falls back to resizing in the host's thread.
builds.push({
  label: 'dist/pi/image-resize-worker.js',
  options: {
    ...common,
    entryPoints: [join(piPackageDir, 'dist', 'utils', 'image-resize-worker.js')],
    outfile: join(piOut, 'image-resize-worker.js'),
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: false,
    // Photon's CJS loader uses require and __dirname; give the ES module both.
    banner: {
      js: [
        "import { createRequire as __piCreateRequire } from 'node:module';",
        "import { fileURLToPath as __piFileURLToPath } from 'node:url';",
        "import { dirname as __piDirname } from 'node:path';",
        'const require = __piCreateRequire(import.meta.url);',
        'const __filename = __piFileURLToPath(import.meta.url);',
        'const __dirname = __piDirname(__filename);',
      ].join(' '),
    },
    plugins: [reportPlugin('dist/pi/image-resize-worker.js')],
  },
});

// Pi's codemode runs scripts in a worker it starts from this file, read beside the bundle and loaded from a
// data: URL (so it must be one ES module with no relative imports). Without it every codemode call fails.
builds.push({
  label: 'dist/pi/codemode-worker.js',
  options: {
    ...common,
    entryPoints: [join(piPackageDir, 'dist', 'extensions', 'codemode', 'worker.js')],
    outfile: join(piOut, 'codemode-worker.js'),
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: false,
    plugins: [reportPlugin('dist/pi/codemode-worker.js')],
  },
});

const extensionEntry = join(root, 'src', 'extension', 'extension.ts');
if (existsSync(extensionEntry)) {
  builds.push({
    label: 'dist/extension.js',
    options: {
      ...common,
      entryPoints: [extensionEntry],
      outfile: join(root, 'dist', 'extension.js'),
      platform: 'node',
      format: 'cjs',
      target: 'node22',
      external: ['vscode', './pi/pi.cjs'],
      plugins: [reportPlugin('dist/extension.js')],
    },
  });
} else {
  console.log('[build] skipping dist/extension.js: src/extension/extension.ts does not exist yet');
}

// The Pi worker thread: loads dist/pi/pi.cjs by a computed path (not bundled) and owns the session.
builds.push({
  label: 'dist/worker.js',
  options: {
    ...common,
    entryPoints: [join(root, 'src', 'worker', 'main.ts')],
    outfile: join(root, 'dist', 'worker.js'),
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['vscode', './pi/pi.cjs'],
    plugins: [reportPlugin('dist/worker.js')],
  },
});

const webviewEntry = join(root, 'src', 'webview', 'main.ts');
const webviewCss = join(root, 'src', 'webview', 'main.css');
const webviewEntries = [webviewEntry, webviewCss].filter((p) => existsSync(p));
if (webviewEntries.length) {
  builds.push({
    label: 'dist/webview',
    options: {
      ...common,
      entryPoints: webviewEntries,
      outdir: join(root, 'dist', 'webview'),
      platform: 'browser',
      format: 'iife',
      target: ['chrome120'],
      plugins: [reportPlugin('dist/webview')],
    },
  });
  // The diagram library, loaded by the view only when a diagram appears (src/webview/diagrams.ts): an ES module
  // whose diagram types stay in chunks (dist/webview/mermaid-HASH.js) imported when a diagram of that type is
  // drawn, so the one-time load evaluates Mermaid's core only. Minified in every build: it is a library, and
  // its unminified 8 MB took the view's main thread 2.2 s to load in a dev build.
  builds.push({
    label: 'dist/webview/mermaid.js',
    options: {
      ...common,
      entryPoints: { mermaid: join(root, 'src', 'webview', 'mermaidChunk.ts') },
      outdir: join(root, 'dist', 'webview'),
      platform: 'browser',
      format: 'esm',
      target: ['chrome120'],
      splitting: true,
      chunkNames: 'mermaid-[hash]',
      minify: true,
      sourcemap: false,
      legalComments: 'none',
      plugins: [mermaidConfigCopyPlugin(), reportPlugin('dist/webview/mermaid.js')],
    },
  });
  // Libraries the view's first paint does without, each an ES module of its own that the view loads when it first
  // needs it (src/webview/lazyChunk.ts): not parsed nor evaluated with main.js. Minified in every build, as Mermaid is:
  // they are libraries, and their load falls inside a streaming reply (the first code block or formula).
  builds.push({
    label: 'dist/webview chunks',
    options: {
      ...common,
      entryPoints: { highlight: join(root, 'src', 'webview', 'highlightChunk.ts'), katex: join(root, 'src', 'webview', 'katexChunk.ts') },
      outdir: join(root, 'dist', 'webview'),
      platform: 'browser',
      format: 'esm',
      target: ['chrome120'],
      minify: true,
      sourcemap: false,
      legalComments: 'none',
      plugins: [reportPlugin('dist/webview chunks')],
    },
  });
} else {
  console.log('[build] skipping dist/webview: neither src/webview/main.ts nor main.css exists yet');
}

/**
 * Mermaid's `getConfig()` copies its whole configuration with a generic deep assign on every call, some fifty
 * times per small flowchart, a fifth of a diagram's drawing (visualsBench's CPU profile); no option avoids it.
 * This gives it src/webview/mermaidConfigCopy.ts's copy, the same result made cheaper (test/unit/
 * mermaidConfigCopy.test.ts compares the two on Mermaid's own configuration). The build fails if Mermaid's
 * `getConfig` no longer reads as expected, so an upgrade is looked at rather than silently left slow or broken.
 */
function mermaidConfigCopyPlugin() {
  const original = 'var getConfig = /* @__PURE__ */ __name(() => {\n  return assignWithDepth_default({}, currentConfig);\n}, "getConfig");';
  const copy = join(root, 'src', 'webview', 'mermaidConfigCopy.ts');
  return {
    name: 'mermaid-config-copy',
    setup(build) {
      // The files patched: a set, so that a watch mode's rebuild that loads them again counts each once.
      const patched = new Set();
      build.onLoad({ filter: /[\\/]mermaid[\\/]dist[\\/]chunks[\\/]mermaid\.core[\\/]chunk-\w+\.mjs$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(original)) return undefined;
        patched.add(args.path);
        const replaced = text.replace(original, 'var getConfig = /* @__PURE__ */ __name(() => __piCopyConfig(currentConfig), "getConfig");');
        return { contents: `import { copyConfig as __piCopyConfig } from ${JSON.stringify(copy)};\n${replaced}`, loader: 'js' };
      });
      build.onEnd((result) => {
        if (patched.size !== 1 && !result.errors.length)
          throw new Error(`Mermaid's getConfig was found in ${patched.size} files, not one: see mermaidConfigCopyPlugin in esbuild.mjs`);
      });
    },
  };
}

// VS Code's icon font for the webview's icon buttons (media/chat.css names the few glyphs it draws): the font
// itself, from the extension's own dist/webview/ (the CSP's font-src is the webview's resource root).
function copyCodicons() {
  const out = join(root, 'dist', 'webview', 'codicons');
  mkdirSync(out, { recursive: true });
  cpSync(join(packageDir('@vscode/codicons', root), 'dist', 'codicon.ttf'), join(out, 'codicon.ttf'));
}
copyCodicons();

async function main() {
  if (watch) {
    const contexts = await Promise.all(builds.map((b) => esbuild.context(b.options)));
    await Promise.all(contexts.map((c) => c.watch()));
    console.log('[build] watching for changes');
    const stop = async () => {
      await Promise.all(contexts.map((c) => c.dispose()));
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  const results = await Promise.allSettled(builds.map((b) => esbuild.build(b.options)));
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

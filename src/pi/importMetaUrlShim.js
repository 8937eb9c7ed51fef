// Injected into the CommonJS Pi bundle: esbuild replaces `import.meta.url` with this binding,
// so Pi's `fileURLToPath(import.meta.url)` resolves to the bundle file instead of `undefined`.
export const import_meta_url = require('node:url').pathToFileURL(__filename).href;

/** The view's chunks loaded on demand (dist/webview/NAME.js beside main.js): each once, as a module script with the page's nonce. */

// The script element of main.js, known only while it runs: a chunk is its sibling and takes its nonce (the CSP allows scripts by nonce only).
const mainScript = document.currentScript as HTMLScriptElement | null;
const loads = new Map<string, Promise<unknown>>();

/**
 * Loads `file` the first time it is asked for and resolves with what it put on the window as `global`; a failed load
 * stays failed (the caller shows what it can without the chunk).
 */
export function loadChunk<T>(file: string, global: string): Promise<T> {
  let load = loads.get(file) as Promise<T> | undefined;
  if (!load) {
    load = new Promise<T>((resolve, reject) => {
      if (!mainScript) return reject(new Error(`${file}: main.js's script element is unknown`));
      const script = document.createElement('script');
      script.type = 'module';
      script.nonce = mainScript.nonce ?? '';
      script.src = new URL(file, mainScript.src).href;
      script.onload = () => {
        const api = (window as unknown as Record<string, T | undefined>)[global];
        if (api) resolve(api);
        else reject(new Error(`${file} did not define ${global}`));
      };
      script.onerror = () => reject(new Error(`${file} did not load`));
      document.head.append(script);
    });
    loads.set(file, load);
  }
  return load;
}

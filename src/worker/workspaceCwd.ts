/**
 * `process.cwd()` inside the worker answers the workspace, for Pi and its extensions, as in a `pi` started
 * there. Worker threads share the extension host's real directory and cannot `chdir`, so this is the part
 * that can be moved: `process.cwd()`, and through it `path.resolve()`, answer the workspace (and children start
 * there: childProcesses.ts). Relative paths given straight to `fs` still resolve against the host's real
 * directory (docs/extension-compatibility.md).
 */

/** Makes `process.cwd()` answer `dir()` whenever it gives a folder; before that, the real directory. */
export function followWorkspace(dir: () => string | undefined, proc: Pick<NodeJS.Process, 'cwd'> = process): void {
  const real = proc.cwd.bind(proc);
  proc.cwd = () => dir() ?? real();
}

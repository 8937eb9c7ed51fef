/** Last-resort cleanup for everything the workbench harness starts: runs on exit, SIGINT, SIGTERM and uncaught errors. */

type SyncCleanup = () => void;

const pending = new Set<SyncCleanup>();
let installed = false;

function runAll(): void {
  for (const fn of [...pending].reverse()) {
    try {
      fn();
    } catch {
      // best effort: the process is going away
    }
  }
  pending.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      process.stderr.write(`\n[workbench] ${sig}: stopping what was started\n`);
      runAll();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
}

/**
 * Registers a synchronous cleanup (kill a process group, remove a temp dir) to run if the process
 * ends before the owner cleans up itself. Returns a function that unregisters it.
 */
export function onExitCleanup(fn: SyncCleanup): () => void {
  install();
  pending.add(fn);
  return () => pending.delete(fn);
}

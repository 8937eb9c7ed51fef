/**
 * Entry of the Pi worker thread (`dist/worker.js`): loads Pi, owns the session, projects and batches its
 * events, and answers the main thread's requests (src/shared/workerProtocol.ts). Nothing here can block or
 * crash the extension host's main thread: a fault ends this thread only.
 */

import { setL10nBundle, t } from '../shared/l10n.ts';
import childProcess from 'node:child_process';
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { createMessageConnection, PortMessageReader, PortMessageWriter, ResponseError } from 'vscode-jsonrpc/node.js';
import { Batcher, realScheduler } from '../shared/batcher.ts';
import { ChildProcessTable } from '../shared/childProcessTable.ts';
import { COMMANDS, type CommandHandlers, type CommandName } from '../shared/wire/commands.ts';
import type { Logger, WorkerConfig, WorkerData, WorkerNotifications, WorkerRequestMethod, WorkerRequests } from '../shared/wire/workerProtocol.ts';
import type { PiModule } from '../pi/piEntry.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import { Approvals } from './approvalExtension.ts';
import { ChildProcesses } from './childProcesses.ts';
import { dropFromContext } from './contextBreakdown.ts';
import { cleanProcessEnv } from './cleanEnv.ts';
import { runOwnExecutableAsNode } from './electronNode.ts';
import { ExtensionUi } from './dialogBridge.ts';
import { imageReadGuard } from './imageReadGuard.ts';
import { loadPi } from './piLoader.ts';
import { PlanMode } from './planMode.ts';
import { mcpCommands } from './mcpServers.ts';
import { providerCommands } from './providerCommands.ts';
import { ProviderAuth } from './providerLogin.ts';
import { createPiSession, defaultPiAgentDir, sessionDirFor } from './piSessions.ts';
import { savedSessionCommands } from './savedSessions.ts';
import { listSessionInfos } from './sessionRuntime.ts';
import { SessionController } from './sessionController.ts';
import { sessionRequestCommands } from './sessionRequests.ts';
import type { WorkerContext } from './workerContext.ts';
import { ShellCommands } from './shellCommands.ts';
import { followWorkspace } from './workspaceCwd.ts';
import { VscodeTools } from './vscodeTools.ts';

if (!parentPort) throw new Error('dist/worker.js runs only as a worker thread.');
const port = parentPort;
const distDir = __dirname;
const connection = createMessageConnection(new PortMessageReader(port), new PortMessageWriter(port));

function notify<M extends keyof WorkerNotifications>(method: M, params: WorkerNotifications[M]): void {
  // Events are batched per frame; anything else must not overtake the events queued before it.
  if (method !== 'events') batcher.flush();
  void connection.sendNotification(method, params);
}

function handle<M extends WorkerRequestMethod>(method: M, fn: (params: WorkerRequests[M]['params']) => Promise<WorkerRequests[M]['result']>): void {
  connection.onRequest(method, async (params: WorkerRequests[M]['params']) => {
    try {
      const result = await fn(params);
      // Replies follow the events their request caused.
      batcher.flush();
      return result;
    } catch (err) {
      batcher.flush();
      return new ResponseError(1, errorText(err));
    }
  });
}

/** Events per notification at most: a burst arrives in slices the main thread reduces between other work. */
const MAX_EVENTS_PER_POST = 1000;

const batcher = new Batcher((events) => {
  for (let i = 0; i < events.length; i += MAX_EVENTS_PER_POST) notify('events', { events: events.slice(i, i + MAX_EVENTS_PER_POST) });
}, realScheduler);

// A Pi extension may end the thread with process.exit() or an uncaught error: what happened until then
// (a `!` command's row, the reply so far) still reaches the main thread, which delivers it before the exit.
process.on('exit', () => batcher.flush());

const log: Logger = {
  info: (message) => notify('log', { level: 'info', message }),
  warn: (message) => notify('log', { level: 'warn', message }),
  error: (message) => notify('log', { level: 'error', message }),
};

// Before Pi loads: nothing it or its extensions start sees the editor's private variables (this thread's copy only).
cleanProcessEnv();

// Extensions find `pi` through `process.argv[1]` (the subagent example): Pi's CLI bundled beside the SDK.
process.argv[1] = path.join(distDir, 'pi', 'cli.cjs');
runOwnExecutableAsNode(childProcess);

// Before Pi loads: every process it starts is recorded where the main thread reads it, so none outlives this worker.
const started: WorkerData = workerData;
setL10nBundle(started.l10n?.bundle, started.l10n?.language);
new ChildProcesses(new ChildProcessTable(started.processTable), (pid) =>
  log.warn(`Process ${pid} is not tracked (too many running at once): it may outlive a restart of Pi.`),
).install(childProcess);

/**
 * A session switch or move a Pi extension's command asked for, run after that command returns (the session
 * it runs in is the one being replaced), as the panel's own actions run; the command is told it goes ahead.
 */
function afterCommand(action: () => Promise<void>): { cancelled: false } {
  setTimeout(() => void action(), 0);
  return { cancelled: false };
}

let config: WorkerConfig | undefined;
// Pi's extensions read `process.cwd()` for the project they work in (titles, relative paths, `git`).
followWorkspace(() => config?.cwd);
const options: { settleTimeoutMs: number; noResponseMs: number; collapseThinking: boolean; storageDir?: string; checkpoints: boolean } = {
  settleTimeoutMs: 5000,
  noResponseMs: 60_000,
  collapseThinking: true,
  checkpoints: false,
};

function currentConfig(): WorkerConfig {
  if (!config) throw new Error('The Pi worker was not configured.');
  return config;
}

function agentDirOf(c: WorkerConfig): string {
  return c.agentDir || defaultPiAgentDir(loadPi(distDir));
}

const extensionUi = new ExtensionUi({
  emit: (events) => controller.emitExternal(events),
  surface: (notice) => notify('extensionUi', notice),
  notify: (n) => notify('notify', n),
  log,
  clock: realScheduler,
});

// Reads the setting at each tool call: changing `piPanel.approval` applies to the next call, no reload.
const approvals = new Approvals(
  () => config?.approval ?? 'off',
  extensionUi.approvals,
  () => config?.cwd,
  { rules: () => config?.approvalRules ?? [], save: (rule) => notify('saveApprovalRule', rule) },
);

// Sign-in questions go to the main thread's input boxes; answers (keys among them) come back by id and are never logged.
const providerAuth = new ProviderAuth((notice) => notify('auth', notice));

// The host answers with the VS Code API; the settings are read for each session Pi builds (a change reloads it).
const vscodeTools = new VscodeTools(
  () => ({ tools: config?.vscodeTools !== false, afterEdit: config?.diagnosticsAfterEdit !== false, cwd: config?.cwd }),
  (method, params) => connection.sendRequest(method, params),
  (files) => controller.review.willWrite(files),
  log,
  realScheduler,
);

const planMode = new PlanMode((plan) => controller.emitExternal([{ type: 'plan', plan }]));

const controller: SessionController = new SessionController(
  ({ fresh, open }) => {
    const c = currentConfig();
    const pi = loadPi(distDir);
    return createPiSession(pi, {
      cwd: c.cwd,
      agentDir: agentDirOf(c),
      fresh,
      open,
      trusted: c.trusted,
      tools: c.tools,
      cwdNote: c.cwdNote,
      // Plan mode first: a call it blocks is never put to the user for approval.
      // The VS Code tools last: their notes before an edit are taken only for a call that goes ahead.
      extensionFactories: [planMode.factory, approvals.factory, imageReadGuard(() => config?.cwd), vscodeTools.factory],
      extensions: {
        ui: extensionUi,
        actions: {
          newSession: async (o) => afterCommand(() => controller.branching.newSession(o)),
          switchSession: async (file, o) => afterCommand(() => controller.branching.resumeSession(file, o)),
          fork: async (entryId, o) => afterCommand(() => controller.branching.forkAt(entryId, o)),
          navigateTree: async (targetId, o) => afterCommand(() => controller.branching.navigateTree(targetId, o)),
        },
        onShutdown: () => afterCommand(() => controller.endSession()),
      },
      // The main thread opens it with openExternal, which reaches the user's browser in code-server and Remote too.
      openUrl: (url) =>
        notify('auth', {
          kind: 'event',
          event: {
            type: 'auth_url',
            url,
            instructions: t(
              'Finish signing in to the MCP server in the browser. If the browser cannot reach this machine, paste the address it was sent to into the question in the Pi chat.',
            ),
          },
        }),
    });
  },
  log,
  realScheduler,
  options,
);
// The main thread is sent the changes the events made, by row id: it applies them and reduces nothing.
controller.onDidChange((changes) => {
  for (const ev of changes) batcher.push(ev);
});
controller.onDidReplay(() => {
  // After the events queued before it (notify flushes them first): the newest rows now, the rest on request.
  const part = controller.transcript.recentPart();
  notify('snapshot', { state: part.state, earlier: part.earlier });
});
controller.onDidRestoreInput((input) => notify('restoreInput', input));
controller.onDidNotify((n) => notify('notify', n));
// `!` commands run in Pi's shell as `executeBash` makes it (the shell path from Pi's settings).
const shell = new ShellCommands(
  (events) => controller.emitExternal(events),
  (s) => loadPi(distDir).createLocalBashOperations({ shellPath: s.settingsManager?.getShellPath() }),
);
const RESTRICTED_SHELL = 'Pi does not run ! commands in Restricted Mode: this workspace is not trusted. Trust it (Manage Workspace Trust) to use the shell.';
controller.onWillCancel(() => {
  extensionUi.dismissAll('cancelled');
  shell.abort(controller.session);
});
controller.onWillDisposeSession(() => {
  extensionUi.dismissAll('session closed');
  approvals.reset();
});
controller.onDidSetInput((text) => notify('setInput', { text }));
controller.setAsker((question) => extensionUi.ask(question));

/** Reads the saved-sessions list a while after the session changed (a run ended, a switch), so the view's list opens warm. */
let warmTimer: ReturnType<typeof setTimeout> | undefined;
controller.onDidChangeSession(() => {
  clearTimeout(warmTimer);
  warmTimer = setTimeout(() => {
    if (!config || controller.isActive) return;
    const { pi, cwd, dir } = sessionsOf(config);
    listSessionInfos(pi, cwd, dir).catch((err: unknown) => log.warn(`Listing sessions failed: ${errorText(err)}`));
  }, 1500);
  warmTimer.unref?.();
});
controller.onDidChangeSession((info) => notify('session', { info, sessionFile: controller.sessionFile }));

function configure(c: WorkerConfig): void {
  config = c;
  approvals.rulesChanged();
  Object.assign(options, {
    settleTimeoutMs: c.settleTimeoutMs,
    noResponseMs: c.noResponseMs,
    collapseThinking: c.collapseThinking,
    storageDir: c.storageDir,
    // Restricted Mode runs no tools: nothing to checkpoint, and no git run on an untrusted folder.
    checkpoints: c.checkpoints !== false && c.trusted,
  });
}

/** The live session, or an error saying why there is none. */
async function session(): Promise<AgentSessionLike> {
  const s = await controller.ensureSession();
  if (!s) throw new Error('the session could not start (see Pi: Show Log)');
  return s;
}

/** Where the workspace's saved sessions are, for the configuration now. */
function sessionsOf(c: WorkerConfig): { pi: PiModule; cwd: string; dir: string } {
  return { pi: loadPi(distDir), cwd: c.cwd, dir: sessionDirFor(c.cwd, agentDirOf(c)) };
}

/** One handler per request of the protocol but the commands (their parts register those): a request left out is a compile error. */
type RequestHandlers = {
  readonly [M in Exclude<WorkerRequestMethod, CommandName>]: (params: WorkerRequests[M]['params']) => Promise<WorkerRequests[M]['result']>;
};

const handlers: RequestHandlers = {
  configure: acknowledge(configure),
  ensureSession: async (start) => ({ ok: (await controller.ensureSession(start.resume, start)) !== undefined }),
  send: acknowledge(({ text, mode, images }) => {
    if (!controller.isActive) extensionUi.runStarting();
    return controller.send(text, mode, images);
  }),
  cancel: acknowledge(() => controller.cancel()),
  reload: async (c) => {
    const trustGained = config !== undefined && !config.trusted && c.trusted;
    configure(c);
    const note = trustGained ? 'The workspace is trusted now: Pi has its tools from here on.' : undefined;
    return { reloaded: await controller.reload(note) };
  },
  forceIdle: acknowledge(() => controller.forceIdle()),
  earlierRows: async ({ before, count }) => ({ page: controller.transcript.pageBefore(before, count) }),
  findRows: async ({ query }) => controller.transcript.findRows(query),
  shutdown: acknowledge(async ({ settleMs, extensionsMs }) => {
    clearTimeout(warmTimer);
    await controller.shutdown(settleMs, extensionsMs);
  }),
  ping: async () => null,
};

/** A handler for a request whose reply says only that it is done (`null`). */
function acknowledge<P>(fn: (params: P) => unknown): (params: P) => Promise<null> {
  return async (params) => {
    await fn(params);
    return null;
  };
}

function isRequestMethod(method: string): method is Exclude<WorkerRequestMethod, CommandName> {
  return Object.hasOwn(handlers, method);
}

function serve<M extends Exclude<WorkerRequestMethod, CommandName>>(method: M): void {
  handle(method, handlers[method]);
}

for (const method of Object.keys(handlers)) if (isRequestMethod(method)) serve(method);

/** The worker context the parts beside the session's owner take. */
const context: WorkerContext = { config: currentConfig, agentDir: () => agentDirOf(currentConfig()), pi: () => loadPi(distDir), session };

/** Every command of the table, each from the part that does it (the shell, Retry and Drop from context here): one left out is a compile error. */
const commands: CommandHandlers = {
  ...controller.commands,
  ...extensionUi.commands,
  ...planMode.handlers(session, (text) => controller.send(text, 'prompt')),
  ...sessionRequestCommands({ session, changed: () => controller.refreshSessionInfo() }),
  ...savedSessionCommands({ ...context, current: () => controller.sessionFile, renameOpen: (name) => controller.branching.rename(name) }),
  ...mcpCommands({ ...context, reload: () => controller.reload(), warn: (message) => log.warn(message) }),
  ...providerCommands(providerAuth, { ...context, modelsChanged: () => controller.modelsChanged(), noModel: () => controller.noModel }),
  retryLast: async () => {
    if (!controller.isActive) extensionUi.runStarting();
    await controller.prompting.retryLast();
  },
  dropFromContext: async ({ entryId }) => {
    const s = await session();
    // An edit appended mid-run would land between the run's own entries.
    const refused = controller.isActive
      ? t('Pi is working: drop from context once the run has ended.')
      : dropFromContext(s, entryId)
        ? undefined
        : t('That tool output cannot be dropped from the context (it is not on this branch, or this Pi cannot edit its context).');
    if (refused) return controller.emitExternal([{ type: 'noticeMessage', level: 'warning', text: refused }]);
    controller.refreshSessionInfo();
  },
  bash: async ({ command, excluded }) => {
    // Restricted Mode: Pi has no tools, and a `!` from a compromised view would look the same as the user's.
    if (!currentConfig().trusted) return controller.emitExternal([{ type: 'noticeMessage', level: 'warning', text: RESTRICTED_SHELL }]);
    return shell.run(await session(), command, excluded);
  },
};
for (const name of Object.keys(COMMANDS) as CommandName[]) {
  const run = commands[name] as (params: WorkerRequests[CommandName]['params']) => Promise<unknown>;
  // A command answered with `null` may return nothing.
  handle(name, async (params) => ((await run(params)) ?? null) as WorkerRequests[CommandName]['result']);
}

connection.listen();

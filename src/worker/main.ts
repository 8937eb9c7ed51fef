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
import { findRows } from '../shared/transcript/find.ts';
import { pageBefore, recentPart } from '../shared/transcript/paging.ts';
import { COMMANDS, type CommandHandlers, type CommandName } from '../shared/wire/commands.ts';
import type { Logger, LoginResult, WorkerConfig, WorkerData, WorkerNotifications, WorkerRequestMethod, WorkerRequests } from '../shared/wire/workerProtocol.ts';
import { CUSTOM_PROVIDER } from '../shared/modelCatalog.ts';
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
import { listMcpServers, setMcpEnabled } from './mcpServers.ts';
import { isEndpointUrl, modelCatalog, signInProviders, writeCustomProvider } from './providerAuth.ts';
import { ProviderAuth } from './providerLogin.ts';
import { listPiCommands } from './piCommands.ts';
import { createPiSession, defaultPiAgentDir, listPiSessions, sessionDirFor } from './piSessions.ts';
import { listSessionInfos, listSessionPage } from './sessionRuntime.ts';
import { SessionController } from './sessionController.ts';
import { exportHtml, exportJsonl, lastAnswer, listModels, setModel, setSessionName, setThinkingLevel, thinkingLevels } from './sessionRequests.ts';
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

/** Signs in on the session's model runtime; a success reopens a session that had no usable model. */
async function signIn(login: (s: AgentSessionLike) => Promise<LoginResult>): Promise<LoginResult> {
  const result = await login(await session());
  if (result.ok) await controller.modelsChanged();
  return result;
}
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
  const part = recentPart(controller.state);
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

/** One handler per request of the protocol but the commands (the session's parts register those): a request left out is a compile error. */
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
  resumeSession: acknowledge(({ file }) => controller.branching.resumeSession(file)),
  reload: async (c) => {
    const trustGained = config !== undefined && !config.trusted && c.trusted;
    configure(c);
    const note = trustGained ? 'The workspace is trusted now: Pi has its tools from here on.' : undefined;
    return { reloaded: await controller.reload(note) };
  },
  forceIdle: acknowledge(() => controller.forceIdle()),
  compact: acknowledge(() => controller.prompting.compact()),
  compactWith: acknowledge(({ instructions }) => controller.prompting.compact(instructions)),
  listModels: async () => listModels(await session()),
  setModel: acknowledge(async ({ provider, id }) => {
    await setModel(await session(), provider, id);
    controller.refreshSessionInfo();
  }),
  thinkingLevels: async () => thinkingLevels(await session()),
  setThinkingLevel: acknowledge(async ({ level }) => {
    setThinkingLevel(await session(), level);
    controller.refreshSessionInfo();
  }),
  listSessions: async () => {
    const c = currentConfig();
    const sessions = await listPiSessions(loadPi(distDir), c.cwd, agentDirOf(c));
    return {
      sessions: sessions.map((i) => ({
        path: i.path,
        name: i.name,
        firstMessage: i.firstMessage,
        modified: i.modified.getTime(),
        messageCount: i.messageCount,
      })),
    };
  },
  sessionPage: async ({ query, offset, limit }) => {
    const { pi, cwd, dir } = sessionsOf(currentConfig());
    return listSessionPage(pi, cwd, dir, { query, offset, limit, current: controller.sessionFile });
  },
  exportHtml: async ({ file }) => ({ file: await exportHtml(await session(), file) }),
  exportJsonl: async ({ file }) => ({ file: exportJsonl(await session(), file) }),
  lastAnswer: async () => {
    const text = lastAnswer(await session());
    return text ? { text } : {};
  },
  fileBefore: async ({ path, runId }) => {
    const before = await controller.review.fileBefore(path, runId);
    return before ? { before } : {};
  },
  undo: async ({ path, runId }) => controller.review.undo(path, runId),
  answerDialog: async ({ id, value, reason }) => ({ answered: extensionUi.answer(id, value, reason) }),
  askPanel: async ({ title, message, options }) => {
    const answer = await extensionUi.ask({ kind: 'select', title, message, options });
    return answer === undefined ? {} : { answer };
  },
  listCommands: async () => ({ commands: listPiCommands(await session()) }),
  setSessionName: acknowledge(async ({ name }) => setSessionName(await session(), name)),
  importSession: acknowledge(({ file }) => controller.branching.importSession(file)),
  navigateTree: acknowledge(({ entryId }) => controller.branching.navigateTree(entryId)),
  clearCheckpoints: async () => {
    await controller.ensureSession();
    return { message: await controller.review.clearCheckpoints() };
  },
  sessionTree: async () => {
    await controller.ensureSession();
    return { nodes: controller.branching.tree() };
  },
  renameSession: async ({ file, name }) => {
    if (!file || file === controller.sessionFile) {
      await controller.branching.rename(name);
      return null;
    }
    // Another saved session: append the name to its file, as Pi's /name would.
    const { pi, dir } = sessionsOf(currentConfig());
    pi.SessionManager.open(file, dir).appendSessionInfo(name.trim());
    return null;
  },
  earlierRows: async ({ before, count }) => ({ page: pageBefore(controller.state, before, count) }),
  findRows: async ({ query }) => findRows(controller.state, query),
  shutdown: acknowledge(async ({ settleMs, extensionsMs }) => {
    clearTimeout(warmTimer);
    await controller.shutdown(settleMs, extensionsMs);
  }),
  ...planMode.handlers(session, (text) => controller.send(text, 'prompt')),
  ping: async () => null,
  login: ({ provider, type }) => signIn((s) => providerAuth.login(s.modelRuntime, provider, type)),
  authAnswer: acknowledge(({ id, value }) => providerAuth.answer(id, value)),
  addCustomProvider: ({ baseUrl, modelId }) =>
    signIn(async (s) => {
      if (!isEndpointUrl(baseUrl)) return { ok: false, message: `Not an http(s) URL: ${baseUrl}` };
      writeCustomProvider(agentDirOf(currentConfig()), baseUrl, modelId);
      // Pi reads models.json again, as opening its /model does.
      await s.modelRuntime.refresh({ allowNetwork: false });
      return providerAuth.login(s.modelRuntime, CUSTOM_PROVIDER, 'api_key');
    }),
  logout: acknowledge(async ({ provider }) => {
    await (await session()).modelRuntime.logout(provider);
    await controller.modelsChanged();
  }),
  modelCatalog: async () => modelCatalog(await session(), controller.noModel),
  mcpServers: async () => {
    const c = currentConfig();
    const s = await session();
    return { servers: listMcpServers(agentDirOf(c), c.cwd, c.trusted, s.getActiveToolNames?.() ?? []) };
  },
  setMcpEnabled: acknowledge(async ({ name, enabled, inProject }) => {
    const c = currentConfig();
    // Restricted Mode: the project's file is the folder's, which Pi does not read and the panel does not write.
    if (inProject && !c.trusted) throw new Error('This workspace is not trusted: Pi reads no project MCP settings here.');
    setMcpEnabled(agentDirOf(c), c.cwd, name, enabled, inProject);
    await controller.reload();
  }),
  restartMcp: async () => ({ reloaded: await controller.reload() }),
  providers: async () => ({ providers: signInProviders((await session()).modelRuntime) }),
  pickModel: acknowledge(async ({ model, scope }) => {
    const cut = model.indexOf('/');
    await setModel(await session(), model.slice(0, cut), model.slice(cut + 1), scope === 'default');
    controller.refreshSessionInfo();
  }),
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
/** Every command of the table, from the session's parts and, for the extension UI and the shell, from here: one left out is a compile error. */
const commands: CommandHandlers = {
  ...controller.commands,
  retryLast: async () => {
    if (!controller.isActive) extensionUi.runStarting();
    await controller.prompting.retryLast();
  },
  composerText: async ({ text }) => extensionUi.setEditorText(text),
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
  const run = commands[name] as (params: WorkerRequests[CommandName]['params']) => Promise<void>;
  handle(name, acknowledge(run));
}

connection.listen();

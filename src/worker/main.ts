/**
 * Entry of the Pi worker thread (`dist/worker.js`): loads Pi, owns the session, projects and batches its
 * events, and answers the main thread's requests (src/shared/workerProtocol.ts). Nothing here can block or
 * crash the extension host's main thread: a fault ends this thread only.
 */

import childProcess from 'node:child_process';
import * as path from 'node:path';
import type { AgentSession } from '@earendil-works/pi-coding-agent';
import { parentPort, workerData } from 'node:worker_threads';
import { createMessageConnection, PortMessageReader, PortMessageWriter, ResponseError } from 'vscode-jsonrpc/node.js';
import { Batcher, realScheduler } from '../shared/batcher.ts';
import { ChildProcessTable } from '../shared/childProcessTable.ts';
import { MAX_TOOL_OUTPUT_CHARS } from '../shared/projection.ts';
import { earlierPage, recentPart } from '../shared/transcript.ts';
import type { Logger, WorkerConfig, WorkerData, WorkerNotifications, WorkerRequests } from '../shared/workerProtocol.ts';
import { Approvals } from './approvalExtension.ts';
import { ChildProcesses } from './childProcesses.ts';
import { cleanProcessEnv } from './cleanEnv.ts';
import { ExtensionUi } from './extensionUi.ts';
import { imageReadGuard } from './imageReadGuard.ts';
import { loadPi } from './piLoader.ts';
import { listPiCommands } from './piCommands.ts';
import { createPiSession, defaultPiAgentDir, listPiSessions, sessionDirFor } from './piSessions.ts';
import { listSessionInfos, listSessionPage } from './sessionRuntime.ts';
import { exportSessionHtml, type ExportableSession } from './sessionFiles.ts';
import { errorText, SessionController } from './sessionController.ts';

if (!parentPort) throw new Error('dist/worker.js runs only as a worker thread.');
const port = parentPort;
const distDir = __dirname;
const connection = createMessageConnection(new PortMessageReader(port), new PortMessageWriter(port));

function notify<M extends keyof WorkerNotifications>(method: M, params: WorkerNotifications[M]): void {
  // Events are batched per frame; anything else must not overtake the events queued before it.
  if (method !== 'events') batcher.flush();
  void connection.sendNotification(method, params);
}

function handle<M extends keyof WorkerRequests>(method: M, fn: (params: WorkerRequests[M]['params']) => Promise<WorkerRequests[M]['result']>): void {
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

// Before Pi loads: every process it starts is recorded where the main thread reads it, so none outlives this worker.
new ChildProcesses(new ChildProcessTable((workerData as WorkerData).processTable), (pid) =>
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
const options: { settleTimeoutMs: number; noResponseMs: number; collapseThinking: boolean; storageDir?: string } = {
  settleTimeoutMs: 5000,
  noResponseMs: 60_000,
  collapseThinking: true,
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
);

const controller = new SessionController(
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
      extensionFactories: [approvals.factory, imageReadGuard(() => config?.cwd)],
      extensions: {
        ui: extensionUi,
        actions: {
          newSession: async (o) => afterCommand(() => controller.newSession(o)),
          switchSession: async (file, o) => afterCommand(() => controller.resumeSession(file, o)),
          fork: async (entryId, o) => afterCommand(() => controller.forkAt(entryId, o)),
          navigateTree: async (targetId, o) => afterCommand(() => controller.navigateTree(targetId, o)),
        },
      },
    });
  },
  log,
  realScheduler,
  options,
);
controller.onDidEmit((events) => {
  for (const ev of events) batcher.push(ev);
});
controller.onDidReplay(() => {
  // After the events queued before it (notify flushes them first): the newest rows now, the rest on request.
  const part = recentPart(controller.state);
  notify('snapshot', { state: part.state, earlier: part.earlier });
});
controller.onDidRestoreInput((input) => notify('restoreInput', input));
controller.onDidNotify((n) => notify('notify', n));
controller.onWillCancel(() => {
  extensionUi.dismissAll('cancelled');
  const s = controller.session as unknown as Partial<Pick<AgentSession, 'abortBash' | 'isBashRunning'>> | undefined;
  if (s?.isBashRunning) s.abortBash?.();
});
controller.onWillDisposeSession(() => {
  extensionUi.dismissAll('session closed');
  approvals.reset();
});
controller.onDidSetInput((text) => notify('setInput', { text }));

/** Reads the saved-sessions list a while after the session changed (a run ended, a switch), so the view's list opens warm. */
let warmTimer: ReturnType<typeof setTimeout> | undefined;
controller.onDidChangeSession(() => {
  clearTimeout(warmTimer);
  warmTimer = setTimeout(() => {
    if (!config || controller.isActive) return;
    const agentDir = agentDirOf(config);
    listSessionInfos(loadPi(distDir), config.cwd, sessionDirFor(config.cwd, agentDir)).catch((err: unknown) =>
      log.warn(`Listing sessions failed: ${errorText(err)}`),
    );
  }, 1500);
  warmTimer.unref?.();
});
controller.onDidChangeSession((info) => notify('session', { info, sessionFile: controller.sessionFile }));

function configure(c: WorkerConfig): void {
  config = c;
  Object.assign(options, { settleTimeoutMs: c.settleTimeoutMs, noResponseMs: c.noResponseMs, collapseThinking: c.collapseThinking, storageDir: c.storageDir });
}

/** The live session, or an error saying why there is none. */
async function session() {
  const s = await controller.ensureSession();
  if (!s) throw new Error('the session could not start (see Pi: Show Log)');
  return s;
}

handle('configure', async (c) => {
  configure(c);
  return null;
});
handle('ensureSession', async ({ resume }) => {
  return { ok: (await controller.ensureSession(resume)) !== undefined };
});
handle('send', async ({ text, mode, images }) => {
  await controller.send(text, mode, images);
  return null;
});
handle('cancel', async () => {
  await controller.cancel();
  return null;
});
handle('retryLast', async () => {
  await controller.retryLast();
  return null;
});
handle('newSession', async () => {
  await controller.newSession();
  return null;
});
handle('resumeSession', async ({ file }) => {
  await controller.resumeSession(file);
  return null;
});
handle('reload', async (c) => {
  const trustGained = config !== undefined && !config.trusted && c.trusted;
  configure(c);
  const note = trustGained ? 'The workspace is trusted now: Pi has its tools from here on.' : undefined;
  return { reloaded: await controller.reload(note) };
});
handle('forceIdle', async () => {
  await controller.forceIdle();
  return null;
});
handle('compact', async () => {
  await controller.compact();
  return null;
});
handle('listModels', async () => {
  const s = await session();
  const models = (await s.modelRuntime.getAvailable()).map((m) => ({ provider: m.provider, id: m.id, name: m.name }));
  return { models, current: s.model ? `${s.model.provider}/${s.model.id}` : undefined };
});
handle('setModel', async ({ provider, id }) => {
  const s = await session();
  const model = (await s.modelRuntime.getAvailable()).find((m) => m.provider === provider && m.id === id);
  if (!model) throw new Error(`no model ${provider}/${id} with credentials`);
  await s.setModel(model);
  controller.refreshSessionInfo();
  return null;
});
handle('thinkingLevels', async () => {
  const s = await session();
  return { levels: [...s.getAvailableThinkingLevels()], current: s.thinkingLevel };
});
handle('setThinkingLevel', async ({ level }) => {
  const s = await session();
  s.setThinkingLevel(level as Parameters<typeof s.setThinkingLevel>[0]);
  controller.refreshSessionInfo();
  return null;
});
handle('listSessions', async () => {
  const c = currentConfig();
  const sessions = await listPiSessions(loadPi(distDir), c.cwd, agentDirOf(c));
  return {
    sessions: sessions.map((i) => ({ path: i.path, name: i.name, firstMessage: i.firstMessage, modified: i.modified.getTime(), messageCount: i.messageCount })),
  };
});
handle('exportHtml', async ({ file }) => {
  return { file: await exportSessionHtml((await session()) as unknown as ExportableSession, file) };
});
handle('fileBefore', async ({ path: p }) => {
  const before = controller.fileBefore(p);
  return before ? { before } : {};
});
handle('undo', async ({ path: p, runId }) => controller.undo(p, runId));
handle('answerDialog', async ({ id, value, reason }) => ({ answered: extensionUi.answer(id, value, reason) }));
handle('composerText', async ({ text }) => {
  extensionUi.setEditorText(text);
  return null;
});
let bashRuns = 0;
const RESTRICTED_SHELL = 'Pi does not run ! commands in Restricted Mode: this workspace is not trusted. Trust it (Manage Workspace Trust) to use the shell.';
handle('bash', async ({ command, excluded }) => {
  // Restricted Mode: Pi has no tools, and a `!` from a compromised view would look the same as the user's.
  if (!currentConfig().trusted) {
    controller.emitExternal([{ type: 'noticeMessage', level: 'warning', text: RESTRICTED_SHELL }]);
    return null;
  }
  const s = (await session()) as unknown as Pick<AgentSession, 'executeBash' | 'isBashRunning'>;
  if (s.isBashRunning) throw new Error('a shell command is already running');
  const id = `bash-${++bashRuns}`;
  controller.emitExternal([{ type: 'bashStart', id, command, excluded, at: Date.now() }]);
  try {
    // Pi streams the output as bash_execution_update events carrying `id`, and records the result in the session.
    const r = await s.executeBash(command, undefined, { excludeFromContext: excluded, id });
    controller.emitExternal([
      {
        type: 'bashEnd',
        id,
        command,
        output: clipTail(r.output),
        ...(typeof r.exitCode === 'number' ? { exitCode: r.exitCode } : {}),
        cancelled: r.cancelled,
        excluded,
      },
    ]);
  } catch (err) {
    controller.emitExternal([{ type: 'bashEnd', id, command, output: errorText(err), cancelled: false, excluded }]);
  }
  return null;
});
handle('listCommands', async () => ({ commands: listPiCommands(await session()) }));
handle('compactWith', async ({ instructions }) => {
  await controller.compact(instructions);
  return null;
});
handle('setSessionName', async ({ name }) => {
  const s = (await session()) as unknown as { setSessionName(name: string): void };
  s.setSessionName(name);
  return null;
});
handle('sessionPage', async ({ query, offset, limit }) => {
  const c = currentConfig();
  const agentDir = agentDirOf(c);
  return listSessionPage(loadPi(distDir), c.cwd, sessionDirFor(c.cwd, agentDir), { query, offset, limit, current: controller.sessionFile });
});
handle('importSession', async ({ file }) => {
  await controller.importSession(file);
  return null;
});
handle('forkHere', async ({ fromEnd, text }) => {
  await controller.forkHere(fromEnd, text);
  return null;
});
handle('editResend', async ({ fromEnd, text }) => {
  await controller.editResend(fromEnd, text);
  return null;
});
handle('navigateTree', async ({ entryId }) => {
  await controller.navigateTree(entryId);
  return null;
});
handle('sessionTree', async () => {
  await controller.ensureSession();
  return { nodes: controller.tree() };
});
handle('renameSession', async ({ file, name }) => {
  if (!file || file === controller.sessionFile) {
    await controller.rename(name);
    return null;
  }
  // Another saved session: append the name to its file, as Pi's /name would.
  const c = currentConfig();
  loadPi(distDir)
    .SessionManager.open(file, sessionDirFor(c.cwd, agentDirOf(c)))
    .appendSessionInfo(name.trim());
  return null;
});
handle('exportJsonl', async ({ file }) => {
  const s = await session();
  if (!s.exportToJsonl) throw new Error('this session cannot be exported');
  return { file: path.resolve(s.exportToJsonl(file)) };
});
handle('lastAnswer', async () => {
  const s = await session();
  const text = s.getLastAssistantText?.();
  return text ? { text } : {};
});
handle('earlierRows', async ({ before, count }) => {
  const page = earlierPage(controller.state, before, count);
  return page ? { page } : {};
});
handle('ping', async () => null);

/** The tail of a long output, as the transcript keeps it. */
function clipTail(text: string): string {
  return text.length > MAX_TOOL_OUTPUT_CHARS ? text.slice(-MAX_TOOL_OUTPUT_CHARS) : text;
}

connection.listen();

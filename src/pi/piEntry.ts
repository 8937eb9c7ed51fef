/** Entry of the CommonJS Pi bundle (`dist/pi/pi.cjs`) the Pi worker thread `require`s lazily: the SDK surface it uses. */
export {
  AgentSession,
  AgentSessionRuntime,
  CONFIG_DIR_NAME,
  createAgentSession,
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  createBashTool,
  createBashToolDefinition,
  createCodemodeExtension,
  createCodingTools,
  createLocalBashOperations,
  createMcpExtension,
  createReadOnlyTools,
  createToolSearchExtension,
  DefaultResourceLoader,
  estimateTokens,
  formatDimensionNote,
  getAgentDir,
  getPackageDir,
  main,
  ModelRegistry,
  ModelRuntime,
  resizeImage,
  SessionManager,
  SettingsManager,
  VERSION,
} from '@earendil-works/pi-coding-agent';
// Pi's CLI (dist/pi/cli.cjs) runs `setupCli()` then `main()` from this bundle, as Pi's own dist/cli.js does.
export { setupCli } from '@earendil-works/pi-coding-agent/dist/cli/setup.js';

export type {
  AgentSessionEvent,
  AgentSessionEventListener,
  CreateAgentSessionOptions,
  CreateAgentSessionResult,
  InlineExtension,
  PromptOptions,
  SessionInfo,
  SessionStats,
  ToolExecutionEndEvent,
  ToolExecutionStartEvent,
  ToolExecutionUpdateEvent,
} from '@earendil-works/pi-coding-agent';

/** What `require('dist/pi/pi.cjs')` returns; the worker imports this type only. */
export type PiModule = typeof import('./piEntry.ts');

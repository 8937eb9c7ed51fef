/** Variables a VS Code or code-server extension host sets for itself: none may reach the agent's shell. */

/** Name -> a value of the shape the editor gives it. */
export const HOST_PRIVATE_ENV: Readonly<Record<string, string>> = {
  VSCODE_IPC_HOOK: '/tmp/vscode-ipc-1234.sock',
  VSCODE_IPC_HOOK_CLI: '/tmp/vscode-ipc-5678.sock',
  VSCODE_IPC_HOOK_EXTHOST: '/tmp/vscode-ipc-9abc.sock',
  VSCODE_GIT_IPC_HANDLE: '/tmp/vscode-git-0f1e2d.sock',
  GIT_ASKPASS: '/opt/code-server/lib/vscode/extensions/git/dist/askpass.sh',
  VSCODE_GIT_ASKPASS_NODE: '/opt/code-server/lib/node',
  VSCODE_GIT_ASKPASS_MAIN: '/opt/code-server/lib/vscode/extensions/git/dist/askpass-main.js',
  VSCODE_GIT_ASKPASS_EXTRA_ARGS: '',
  SSH_ASKPASS: '/opt/code-server/lib/vscode/extensions/git/dist/ssh-askpass.sh',
  PASSWORD: 'code-server-login-password',
  HASHED_PASSWORD: '$argon2i$v=19$m=4096,t=3,p=1$c2FsdA$aGFzaA',
  CODE_SERVER_PARENT_PID: '4242',
  CODE_SERVER_SESSION_SOCKET: '/root/.local/share/code-server/code-server-ipc.sock',
  ELECTRON_RUN_AS_NODE: '1',
  ELECTRON_NO_ATTACH_CONSOLE: '1',
  ELECTRON_ENABLE_STACK_DUMPING: '1',
  VSCODE_CWD: '/opt/code-server',
  VSCODE_PID: '4243',
  VSCODE_NLS_CONFIG: '{"locale":"en"}',
  VSCODE_HANDLES_UNCAUGHT_ERRORS: 'true',
  VSCODE_AMD_ENTRYPOINT: 'vs/workbench/api/node/extensionHostProcess',
  VSCODE_ESM_ENTRYPOINT: 'vs/workbench/api/node/extensionHostProcess',
  VSCODE_CODE_CACHE_PATH: '/root/.config/Code/CachedData/abc',
  VSCODE_CRASH_REPORTER_PROCESS_TYPE: 'extensionHost',
  VSCODE_L10N_BUNDLE_LOCATION: '',
  VSCODE_EXTHOST_WILL_SEND_SOCKET: 'true',
  VSCODE_AGENT_FOLDER: '/root/.local/share/code-server',
  VSCODE_PROXY_URI: 'http://127.0.0.1:8080/proxy/{{port}}',
  APPLICATION_INSIGHTS_NO_DIAGNOSTIC_CHANNEL: '1',
  CHROME_DESKTOP: 'code-url-handler.desktop',
  // A handle under a name the editor did not reserve: caught by its value.
  EXTHOST_HANDLE_ALIAS: '/run/user/0/vscode-ipc-alias.sock',
};

/** What a user's terminal would have, which the agent's shell keeps. */
export const USER_ENV: Readonly<Record<string, string>> = {
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  EDITOR: 'vim',
  HTTPS_PROXY: 'http://proxy.example:3128',
  PI_PANEL_TEST_USER_VAR: 'kept',
  OPENAI_API_KEY: 'sk-user-own-key',
};

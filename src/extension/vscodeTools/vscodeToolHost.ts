/** The host's answers to a chat worker's requests for VS Code's knowledge: the `vscode_*` tools and the errors after an edit. */

import type { Logger } from '../../shared/wire/workerProtocol.ts';
import type { HostRequestHandlers } from '../workerSupervisor.ts';
import { EditDiagnostics } from './editDiagnostics.ts';
import { LanguageTools } from './languageTools.ts';
import { WorkspaceFiles } from './workspaceFiles.ts';

/** The handlers for one chat, whose workspace folder is `root()`. */
export function vscodeToolHandlers(root: () => string, log: Logger): HostRequestHandlers {
  const files = new WorkspaceFiles(root);
  const tools = new LanguageTools(files, log);
  const edits = new EditDiagnostics(files);
  return {
    vscodeTool: (p) => tools.run(p),
    editDiagnostics: (p) => edits.answer(p),
  };
}

/**
 * The runner's actions that act on the workbench outside the chat (beyond the base actions the shared checker knows): type a command into a real
 * terminal and wait for its output, open a file at a position, choose a quick fix, and make the workspace a Git
 * repository before the workbench opens it.
 */
import { initRepo } from '../support/tempRepo.ts';
import type { Workbench } from '../workbench/browser.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The terminal panel's rendered rows (the DOM renderer: cases set `terminal.integrated.gpuAcceleration: "off"`). */
const TERMINAL_ROWS = '.part.panel .terminal-wrapper.active .xterm-rows';

/**
 * The gutter marks of the commands that finished in the active terminal (with shell integration the workbench marks
 * each command success or error once the shell reports its end).
 */
const FINISHED_MARKS =
  '.part.panel .terminal-wrapper.active .terminal-command-decoration:is(.codicon-terminal-decoration-success, .codicon-terminal-decoration-error)';

/** How many finished commands the active terminal marked before each workbench's last `terminal` action. */
const finishedBefore = new WeakMap<Workbench, number>();

/** What the active terminal shows, as text. */
async function terminalText(wb: Workbench): Promise<string> {
  return (
    await wb.page
      .locator(TERMINAL_ROWS)
      .allInnerTexts()
      .catch(() => [] as string[])
  ).join('\n');
}

/**
 * Types `text` and Enter into the active terminal, opening one with `newTerminal` when the panel has none. Waits for
 * the shell's first prompt, so the line reaches a shell that reads it.
 */
export async function typeInTerminal(wb: Workbench, text: string, newTerminal: () => Promise<void>, deadline: number): Promise<void> {
  if ((await wb.page.locator(TERMINAL_ROWS).count()) === 0) await newTerminal();
  while (!(await terminalText(wb)).trim()) {
    if (Date.now() >= deadline) throw new Error('the terminal never showed a prompt');
    await sleep(100);
  }
  await wb.page.locator('.part.panel .terminal-wrapper.active .xterm').first().click();
  finishedBefore.set(wb, await wb.page.locator(FINISHED_MARKS).count());
  await wb.page.keyboard.type(text);
  await wb.page.keyboard.press('Enter');
}

/**
 * Waits until the active terminal shows `text` and the command typed last has ended: the shell reported its end (the
 * workbench marks it finished), which is when the terminal's output and exit code are whole for an extension to read.
 */
export async function waitForTerminalText(wb: Workbench, text: string, deadline: number): Promise<void> {
  while (!(await terminalText(wb)).includes(text)) {
    if (Date.now() >= deadline) throw new Error(`the terminal never showed ${JSON.stringify(text)}`);
    await sleep(100);
  }
  const before = finishedBefore.get(wb) ?? 0;
  while ((await wb.page.locator(FINISHED_MARKS).count()) <= before) {
    if (Date.now() >= deadline) throw new Error(`the terminal showed ${JSON.stringify(text)} but its command never ended (no finished-command mark)`);
    await sleep(100);
  }
}

/** Opens a workspace file through Quick Open, at `line` and `column` (1-based) when given; the editor has focus after. */
export async function openFileAt(wb: Workbench, file: string, line: number | undefined, column: number | undefined, deadline: number): Promise<void> {
  const page = wb.page;
  const name = file.split('/').at(-1)!;
  await wb.typeInQuickInput(`${file}${line ? `:${line}${column ? `:${column}` : ''}` : ''}`, Math.max(1, deadline - Date.now()));
  await page
    .locator('.quick-input-list .monaco-list-row', { hasText: name })
    .first()
    .waitFor({ state: 'visible', timeout: Math.max(1, deadline - Date.now()) });
  await page.keyboard.press('Enter');
  await page.locator(`.part.editor .tab.active[data-resource-name="${name}"]`).waitFor({ state: 'attached', timeout: Math.max(1, deadline - Date.now()) });
}

/**
 * Opens the active editor's quick fixes (Ctrl+.) until one titled `title` is offered (a language server may report
 * the problem later than the file opens), then chooses it.
 */
export async function chooseQuickFix(wb: Workbench, title: string, deadline: number): Promise<void> {
  const page = wb.page;
  const item = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
  while (true) {
    await page.keyboard.press('Control+Period');
    const offered = await item
      .waitFor({ state: 'visible', timeout: 2_000 })
      .then(() => true)
      .catch(() => false);
    if (offered) {
      await item.click();
      return;
    }
    await page.keyboard.press('Escape');
    if (Date.now() >= deadline) throw new Error(`no quick fix titled ${JSON.stringify(title)} was offered`);
  }
}

/** Makes `dir` a Git repository with every file committed (a run's "tracked files"), with a fixed author and no hooks. */
export function commitWorkspace(dir: string): void {
  initRepo(dir, {}, { name: 'Pi e2e', email: 'e2e@example.invalid', message: 'e2e fixture' });
}

/** The sidebar's view section titled `view` (a tree view such as "MCP Servers"), expanded: its header clicked while collapsed. */
async function expandedPane(wb: Workbench, view: string, deadline: number) {
  const page = wb.page;
  const header = page
    .locator('.pane-header', { has: page.locator('h3.title', { hasText: new RegExp(`^${view.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'i') }) })
    .first();
  await header.waitFor({ state: 'visible', timeout: Math.max(1, deadline - Date.now()) });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  return page.locator('.pane', { has: header });
}

/** The row of the tree view `view` whose text contains `text`, once it shows (the view's section expanded first). */
async function treeRow(wb: Workbench, view: string, text: string, deadline: number) {
  const row = (await expandedPane(wb, view, deadline)).locator('.pane-body .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: Math.max(1, deadline - Date.now()) });
  return row;
}

/** Waits until the tree view `view` shows a row containing `text`. */
export async function waitForTreeItem(wb: Workbench, view: string, text: string, deadline: number): Promise<void> {
  await treeRow(wb, view, text, deadline);
}

/**
 * In the tree view `view`, the row containing `text`: clicks its inline action whose label starts with `action` (the
 * actions show on hover), or without `action` clicks the row (a server's row expands to its tools).
 */
export async function clickTreeItem(wb: Workbench, view: string, text: string, action: string | undefined, deadline: number): Promise<void> {
  const row = await treeRow(wb, view, text, deadline);
  if (!action) {
    await row.click({ timeout: Math.max(1, deadline - Date.now()) });
    return;
  }
  await row.hover({ timeout: Math.max(1, deadline - Date.now()) });
  await row
    .locator(`.actions .action-label[aria-label^=${JSON.stringify(action)}]`)
    .first()
    .click({ timeout: Math.max(1, deadline - Date.now()) });
}

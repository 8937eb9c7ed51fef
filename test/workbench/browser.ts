/** Drives a code-server workbench in Debian's chromium through playwright-core: the Pi view, its webview, the palette, the status bar. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Frame, FrameLocator, Locator, Page } from 'playwright-core';
import { onExitCleanup } from './cleanup.ts';
import { ensureSystemPackages } from './install.ts';

/** Extension id of the panel under test; its webviews and status-bar items are found by it. */
export const EXTENSION_ID = 'pi-agent-panel.pi-agent-panel';
/** Title of the panel's view container in the activity bar. */
export const CONTAINER_TITLE = 'Pi';

/** Flags that keep chromium from reaching out to the (closed) network. */
const OFFLINE_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface BrowserOptions {
  readonly headless?: boolean;
  readonly executablePath?: string;
}

/** A persistent chromium context with its own throwaway profile and HOME. */
export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Debian chromium headless with a throwaway profile; `close()` removes it. */
export async function launchBrowser(options: BrowserOptions = {}): Promise<Browser> {
  if (!options.executablePath && !process.env.CHROMIUM_PATH) ensureSystemPackages(['chromium']);
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-panel-chromium-'));
  const unregister = onExitCleanup(() => fs.rmSync(tempDir, { recursive: true, force: true }));
  const home = path.join(tempDir, 'home');
  fs.mkdirSync(home, { recursive: true });
  const context = await chromium.launchPersistentContext(path.join(tempDir, 'profile'), {
    executablePath: options.executablePath ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: options.headless ?? true,
    args: OFFLINE_FLAGS,
    viewport: { width: 1400, height: 900 },
    // As a user who let the workbench use the clipboard (else a read waits on a permission prompt): @terminal reads a
    // terminal's buffer through it when shell integration's stream lost a command's output.
    permissions: ['clipboard-read', 'clipboard-write'],
    // Chromium writes crash reports into ~/.config even with its own profile.
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache'), TMPDIR: tempDir },
  });
  let closed: Promise<void> | undefined;
  return {
    context,
    close() {
      closed ??= (async () => {
        await context.close().catch(() => undefined);
        fs.rmSync(tempDir, { recursive: true, force: true, maxRetries: 3 });
        unregister();
      })();
      return closed;
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A loaded workbench page with helpers for the Pi panel. */
export class Workbench {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  /** Navigates to a workbench URL and waits until the activity bar is there. */
  async open(url: string, timeoutMs = 60_000): Promise<void> {
    await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs });
    await this.waitReady(timeoutMs);
  }

  /** Waits for the workbench and the Pi container icon (it appears once contributions are read). */
  async waitReady(timeoutMs = 60_000): Promise<void> {
    await this.page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: timeoutMs });
    await this.containerIcon().waitFor({ state: 'visible', timeout: timeoutMs });
  }

  private containerIcon() {
    return (
      this.page
        // With a badge (several chats: news out of sight) the label goes on with the badge's text.
        .locator(
          `.activitybar a.action-label[aria-label="${CONTAINER_TITLE}"], .activitybar a.action-label[aria-label^="${CONTAINER_TITLE} ("], .activitybar a.action-label[aria-label^="${CONTAINER_TITLE} -"], .activitybar a.action-label[aria-label^="${CONTAINER_TITLE}:"]`,
        )
        .first()
    );
  }

  /** Opens the Pi view container from the activity bar (no-op when it is already showing). */
  async openPiView(): Promise<void> {
    const icon = this.containerIcon();
    await icon.waitFor({ state: 'visible', timeout: 30_000 });
    if (!(await this.piContainerShowing())) await icon.click();
  }

  /** Whether the sidebar shows the Pi container: its activity-bar item is "checked" and the sidebar is visible. */
  private async piContainerShowing(): Promise<boolean> {
    const icon = this.containerIcon();
    // The item's <li> is "checked" while its container is showing; clicking it then would hide it.
    const checked = await icon
      .evaluate((a) => (a as unknown as { closest(s: string): PageElement | null }).closest('li')?.classList.contains('checked') ?? false, undefined, {
        timeout: 5_000,
      })
      .catch(() => false);
    return checked && (await this.page.locator('.part.sidebar').isVisible());
  }

  /**
   * Makes sure the Pi view shows, e.g. after a reload while the workbench is still restoring its layout: a
   * single look could see the container not yet checked and click it closed just as it is restored, so
   * look again until the view's frame is visible.
   */
  async ensurePiViewShown(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const frame = this.page.locator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`).filter({ visible: true });
    // An editor chat's frame is a Pi webview too: the sidebar's container must show as well.
    while (!(await frame.count()) || !(await this.piContainerShowing())) {
      if (Date.now() >= deadline) throw new Error('the Pi view did not show');
      await this.openPiView();
      await frame
        .first()
        .waitFor({ state: 'attached', timeout: Math.min(5_000, Math.max(1, deadline - Date.now())) })
        .catch(() => undefined);
    }
  }

  /** Shows another container (Explorer) in the sidebar, which hides the Pi view. */
  async hidePiView(): Promise<void> {
    await this.page.locator('.activitybar a.action-label[aria-label^="Explorer"]').first().click();
    await this.page
      .locator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`)
      .first()
      .waitFor({ state: 'hidden', timeout: 10_000 })
      .catch(() => undefined);
  }

  /** The Pi chat webview's content frame (outer `iframe.webview`, then `iframe#active-frame`). */
  webview(): FrameLocator {
    return this.webviewOf(EXTENSION_ID);
  }

  /** The content frame of the visible webview of the extension `extensionId`. */
  webviewOf(extensionId: string): FrameLocator {
    return this.page
      .locator(`iframe.webview[src*="extensionId=${extensionId}"]`)
      .filter({ visible: true })
      .first()
      .contentFrame()
      .locator('iframe#active-frame')
      .contentFrame();
  }

  /**
   * The content frame of the chat whose body says `data-chat-id` = `id` (`sidebar`, `editor-N`), waiting
   * until it is there. Several chats can show at once, so "the visible Pi webview" would be ambiguous.
   */
  async chatFrame(id: string, timeoutMs = 45_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      for (const frame of this.page.frames()) {
        if (frame.isDetached()) continue;
        // A frame being replaced (a tab shown again) may never answer: one look is bounded.
        const got = await Promise.race([
          frame
            .evaluate(() =>
              (globalThis as unknown as { document: { body: { getAttribute(n: string): string | null } | null } }).document.body?.getAttribute('data-chat-id'),
            )
            .catch(() => null),
          sleep(1_000).then(() => null),
        ]);
        if (got === id) return frame;
      }
      if (Date.now() >= deadline) throw new Error(`the chat ${id} never showed`);
      await sleep(200);
    }
  }

  /** Waits until the webview shows a known element (4–8 s after opening on 2 cores). */
  async waitForWebview(selector = '[data-testid="transcript"]', timeoutMs = 45_000): Promise<void> {
    await this.webview().locator(selector).first().waitFor({ state: 'attached', timeout: timeoutMs });
  }

  /**
   * Set once chats open in editor tabs: focus leaves a webview by a blur, not by a click on the editor area (whose
   * corner is the first tab, which a click would activate, and with it that chat).
   */
  blurToFocusWorkbench = false;

  /** Opens the quick input (F1) and answers its text box, visible. */
  async openQuickInput(timeoutMs = 10_000): Promise<Locator> {
    // Focus the workbench outside the webview so F1 reaches the workbench, not the iframe.
    if (this.blurToFocusWorkbench)
      await this.page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur?(): void } | null } }).document.activeElement?.blur?.());
    else
      await this.page
        .locator('.part.editor')
        .click({ position: { x: 20, y: 20 } })
        .catch(() => undefined);
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible', timeout: timeoutMs });
    return input;
  }

  /**
   * Opens the quick input and types `text` into it. Under load the widget can close again before the text is in (a
   * webview or a notification takes the focus, or F1 lands before the workbench has it): it is opened again, until
   * `timeoutMs` has passed.
   */
  async typeInQuickInput(text: string, timeoutMs = 30_000): Promise<Locator> {
    const deadline = Date.now() + timeoutMs;
    for (let tries = 1; ; tries++) {
      const left = () => Math.max(1, deadline - Date.now());
      try {
        const input = await this.openQuickInput(Math.min(left(), 5_000));
        await input.fill(text, { timeout: Math.min(left(), 5_000) });
        return input;
      } catch (err) {
        if (Date.now() >= deadline) throw new Error(`the quick input never took ${JSON.stringify(text)} (${tries} tries): ${String(err)}`);
      }
    }
  }

  /** Runs a command palette entry by its exact title, e.g. "Pi: Cancel Run"; the palette opened again if it closes before the click. */
  async runCommand(title: string, timeoutMs = 30_000): Promise<void> {
    const page = this.page;
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    for (;;) {
      await this.typeInQuickInput(`>${title}`, left());
      const clicked = await row
        .waitFor({ state: 'visible', timeout: Math.min(left(), 10_000) })
        .then(() => row.click({ timeout: Math.min(left(), 5_000) }))
        .then(
          () => true,
          () => false,
        );
      if (clicked) break;
      if (Date.now() >= deadline) throw new Error(`the command palette never offered ${JSON.stringify(title)}`);
    }
    await page
      .locator('.quick-input-widget')
      .waitFor({ state: 'hidden', timeout: 5_000 })
      .catch(() => undefined);
  }

  /** Texts of this extension's status-bar items, keyed by item id (`piPanel.runState`, …). */
  async statusTexts(): Promise<Record<string, string>> {
    return this.page.evaluate(readStatus, EXTENSION_ID);
  }

  /**
   * Calls `onChange` with the extension's status-bar texts on every change, across reloads
   * (a MutationObserver in the page, re-installed by an init script).
   */
  async watchStatus(onChange: (texts: Record<string, string>) => void): Promise<void> {
    await this.page.exposeFunction('__piPanelStatus', (json: string) => onChange(JSON.parse(json) as Record<string, string>));
    const script = `(${installStatusObserver.toString()})(${JSON.stringify(EXTENSION_ID)}, ${readStatus.toString()})`;
    await this.page.addInitScript(script);
    await this.page.evaluate(script).catch(() => undefined);
  }

  /**
   * Drags the sash at the sidebar's right edge, as a user widens the sidebar, until the sidebar is `width` px wide (a few
   * px off is fine: the workbench snaps). The workbench has no setting for it.
   */
  async resizeSidebar(width: number, timeoutMs = 10_000): Promise<void> {
    const sidebar = this.page.locator('.part.sidebar');
    const box = await sidebar.boundingBox({ timeout: timeoutMs });
    if (!box) throw new Error('the sidebar is not showing');
    const y = box.y + box.height / 2;
    await this.page.mouse.move(box.x + box.width, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, y, { steps: 10 });
    await this.page.mouse.up();
    const now = (await sidebar.boundingBox({ timeout: timeoutMs }))?.width ?? 0;
    if (Math.abs(now - width) > 8) throw new Error(`the sidebar is ${Math.round(now)} px wide after the drag, not ${width}`);
  }

  /** A screenshot of the whole workbench; waits for toasts to fade in first. */
  async screenshot(file: string): Promise<void> {
    await sleep(600);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await this.page.screenshot({ path: file });
  }
}

// The root tsconfig has no DOM lib (src/shared must not use it); these are the few page APIs used below.
interface PageElement {
  readonly id: string;
  readonly innerText: string;
  readonly textContent: string | null;
  readonly style: { readonly display: string };
  readonly classList: { contains(name: string): boolean };
}
interface PageGlobals {
  readonly document: {
    readonly readyState: string;
    querySelector(selector: string): unknown;
    querySelectorAll(selector: string): Iterable<PageElement>;
    addEventListener(type: string, listener: () => void): void;
  };
  readonly MutationObserver: new (callback: () => void) => { observe(target: unknown, options: Record<string, boolean>): void };
  __piPanelStatusInstalled?: boolean;
  __piPanelStatus?: (json: string) => void;
}

/** Runs in the page: the extension's status-bar texts by item id. */
function readStatus(extensionId: string): Record<string, string> {
  const { document } = globalThis as unknown as PageGlobals;
  const out: Record<string, string> = {};
  for (const el of document.querySelectorAll(`.statusbar-item[id^="${extensionId}."]`)) {
    if (el.style.display === 'none' || el.classList.contains('hidden')) continue;
    out[el.id.slice(extensionId.length + 1)] = (el.innerText || el.textContent || '').trim();
  }
  return out;
}

/** Runs in the page: reports status-bar changes through `__piPanelStatus`. */
function installStatusObserver(extensionId: string, read: (id: string) => Record<string, string>): void {
  const w = globalThis as unknown as PageGlobals;
  const { document, MutationObserver } = w;
  if (w.__piPanelStatusInstalled) return;
  w.__piPanelStatusInstalled = true;
  let last = '';
  const report = (): void => {
    const json = JSON.stringify(read(extensionId));
    if (json !== last) {
      last = json;
      w.__piPanelStatus?.(json);
    }
  };
  const start = (): void => {
    const bar = document.querySelector('.part.statusbar');
    if (!bar) {
      setTimeout(start, 250);
      return;
    }
    new MutationObserver(report).observe(bar, { subtree: true, childList: true, characterData: true, attributes: true });
    report();
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}

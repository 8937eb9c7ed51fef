/**
 * A corpus of hostile payloads in assistant text, thinking, tool arguments, tool output, prompts and
 * notices, streamed and final, executes nothing: a canary global stays unset, the page's CSP (the same
 * as the real shell's) reports no violation, no active element or attribute reaches the DOM, the only
 * `href`s are http(s) or relative ones on links, and clicking every link posts only such targets and
 * lets nothing reach VS Code's own webview link handler.
 */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import type { HostToWebview } from '../../src/shared/wire/webviewProtocol.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import { T0 } from './builders.ts';
import { deliver, deliverFrames, deliverJson, openView, type PageWindow, posted, session, useBrowser } from './harness.ts';
import { HOSTILE, PROTOTYPE_IDS } from './hostile.ts';

// The panel's own images (thumbnails, chips, the larger view) are `img` elements of its own classes; their
// `src` is checked below like every other attribute. The plan strip's checklist is the panel's own `details`.
const DANGEROUS_TAGS =
  'script,iframe,frame,object,embed,img:not(.image-viewer-img):not(.image-chip-thumb):not(.image-thumb > img),svg,math,style,link,meta,base,form,input:not([data-testid]),button:not([data-action]),video,audio,source,template,noscript,xmp,marquee,details:not(.plan-checklist),textarea:not([data-testid])';

/** Every place untrusted text reaches the view, as wire events. */
function hostileEvents(payload: string, n: number, streamed: boolean): WireEvent[] {
  const at = T0 + n;
  // The first ids name Object.prototype members, as a hostile endpoint may choose.
  const id = PROTOTYPE_IDS[n] ?? `call_${n}`;
  const chunks = (text: string): string[] => (streamed ? (text.match(/[\s\S]{1,5}/g) ?? []) : [text]);
  const toolName = n % 5 === 0 ? payload.slice(0, 60) : ['bash', 'read', 'edit', 'write', 'grep'][n % 5]!;
  const args = JSON.stringify({
    command: payload,
    path: payload,
    content: payload,
    pattern: payload,
    edits: [{ oldText: payload, newText: `${payload}\n${payload}` }],
  });
  return [
    {
      type: 'userMessage',
      text: payload,
      images: 3,
      // Hostile image blocks: the payload as an SVG document, as a type name, and as data of an allowed type.
      media: [
        { mimeType: 'image/svg+xml', bytes: payload.length, data: Buffer.from(payload).toString('base64') },
        { mimeType: payload.slice(0, 100), bytes: 1, data: 'AAAA' },
        { mimeType: 'image/png', bytes: payload.length, data: payload },
      ],
    },
    { type: 'runStart' },
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'thinking', at },
    ...chunks(payload).map((text): WireEvent => ({ type: 'delta', index: 0, text })),
    { type: 'blockEnd', index: 0, at },
    { type: 'blockStart', index: 1, kind: 'text', at },
    ...chunks(`Intro.\n\n${payload}\n\nAfter: ${payload}`).map((text): WireEvent => ({ type: 'delta', index: 1, text })),
    { type: 'blockEnd', index: 1, at },
    { type: 'blockStart', index: 2, kind: 'toolCall', at, toolCallId: id, toolName },
    ...chunks(args).map((text): WireEvent => ({ type: 'delta', index: 2, text })),
    { type: 'blockEnd', index: 2, at },
    { type: 'assistantEnd', stopReason: 'error', errorMessage: payload, at },
    { type: 'toolStart', toolCallId: id, toolName, args, at },
    { type: 'toolUpdate', toolCallId: id, output: payload },
    {
      type: 'toolEnd',
      toolCallId: id,
      isError: n % 2 === 0,
      output: `${payload}\n${payload}`,
      durationMs: 1,
      media: [{ mimeType: 'text/html', bytes: payload.length, data: Buffer.from(payload).toString('base64') }],
    },
    { type: 'toolResult', toolCallId: id, toolName, isError: false, text: payload },
    { type: 'noticeMessage', level: 'error', text: payload, code: 'noModel' },
    { type: 'queue', steering: [payload], followUp: [payload] },
    { type: 'settled', aborted: false, at },
  ];
}

/** Clicks every element matching `selector` from inside the page (a real click event each); returns how many. */
async function clickAll(page: Page, selector: string): Promise<number> {
  const n = await page.evaluate((sel) => {
    const g = globalThis as unknown as {
      document: { querySelectorAll(s: string): ArrayLike<{ dispatchEvent(e: unknown): boolean }> };
      MouseEvent: new (t: string, i: object) => unknown;
    };
    const els = Array.from(g.document.querySelectorAll(sel));
    for (const el of els) el.dispatchEvent(new g.MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    return els.length;
  }, selector);
  await page.evaluate(() => new Promise<void>((r) => (globalThis as unknown as PageWindow).requestAnimationFrame(() => r())));
  return n;
}

async function inspect(page: Page): Promise<{ pwned: number; violations: PageWindow['__violations']; dangerous: string[]; hostOpened: string[] }> {
  // Give error handlers, loads and timers a chance to fire.
  await page.waitForTimeout(300);
  return page.evaluate((tags) => {
    const w = globalThis as unknown as PageWindow;
    const doc = (
      globalThis as unknown as {
        document: { querySelectorAll(s: string): ArrayLike<{ tagName: string; attributes: ArrayLike<{ name: string; value: string }> }> };
      }
    ).document;
    const dangerous: string[] = [];
    const safe = (href: string): boolean =>
      /^https?:\/\/[^\s]+$/i.test(href) || (href.trim() !== '' && !/^[a-z][a-z0-9+.-]*:|^\/\/|^#|[\u0000-\u001f]/i.test(href.trim()));
    for (const el of Array.from(doc.querySelectorAll(`#app ${tags.split(',').join(', #app ')}`))) dangerous.push(`<${el.tagName.toLowerCase()}>`);
    for (const el of Array.from(doc.querySelectorAll('#app *'))) {
      for (const a of Array.from(el.attributes)) {
        if (
          /^on/i.test(a.name) ||
          a.name === 'style' ||
          // Only the panel's images have a source, and only a data: URL of an allowed raster type.
          (a.name === 'src' && !(el.tagName === 'IMG' && /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/.test(a.value))) ||
          a.name === 'srcset' ||
          // Links keep a real href for assistive technology: only on <a>, and only http(s) or relative.
          (a.name === 'href' && !(el.tagName === 'A' && safe(a.value))) ||
          a.name === 'xlink:href' ||
          a.name === 'background' ||
          a.name === 'action' ||
          a.name === 'formaction'
        ) {
          dangerous.push(`<${el.tagName.toLowerCase()} ${a.name}="${a.value.slice(0, 60)}">`);
        }
      }
    }
    return { pwned: w.__pwned, violations: w.__violations, dangerous, hostOpened: w.__hostOpened };
  }, DANGEROUS_TAGS);
}

describe('sanitization (headless Chromium, the real CSP)', function () {
  this.timeout(120_000);
  const env = useBrowser();

  it(`has at least 50 hostile payloads (${HOSTILE.length})`, () => {
    assert.ok(HOSTILE.length >= 50);
  });

  for (const mode of ['final (snapshot)', 'streamed in 5-character deltas'] as const) {
    it(`executes nothing and loads nothing with every payload ${mode}`, async () => {
      const page = await openView(env.browser, env.server.origin);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const streamed = mode !== 'final (snapshot)';
      if (!streamed) {
        let s = initialTranscript;
        HOSTILE.forEach((p, n) => (s = reduce(s, hostileEvents(p, n, false))));
        // As JSON, the way postMessage delivers it: `__proto__` stays an own key of `tools`.
        await deliverJson(page, { type: 'snapshot', state: s, session: { ...session, model: HOSTILE[0] } });
      } else {
        await deliver(page, { type: 'snapshot', state: initialTranscript, session });
        for (const [n, p] of HOSTILE.entries()) {
          const events = hostileEvents(p, n, true);
          // About one host batch per frame, as the real batcher sends them.
          const batches: HostToWebview[] = [];
          for (let i = 0; i < events.length; i += 8) batches.push({ type: 'batch', events: events.slice(i, i + 8) });
          await deliverFrames(page, batches);
        }
      }
      // Everything on screen, not only the newest page of rows.
      while (await page.locator('.load-earlier:not([hidden])').count()) await clickAll(page, '.load-earlier');
      // Open everything that is collapsed or clipped, so hidden content is rendered too.
      for (const sel of [
        '.thinking-toggle[aria-expanded="false"]',
        '[data-action="tool-show-all"]:not([hidden])',
        '[data-action="tool-args-show-all"]:not([hidden])',
        '[data-action="result-show-all"]:not([hidden])',
      ])
        await clickAll(page, sel);
      const rows = await page.locator('[data-testid="transcript"] [data-role]').count();
      assert.ok(rows >= HOSTILE.length * 4, `${rows} rows rendered`);

      // Click every link; each may only ask the host to open an http(s) URL or a relative path.
      const links = await clickAll(page, '[data-testid="transcript"] a');
      assert.ok(links > 10, `${links} links`);
      const opened = (await posted(page)).filter((m) => m.type === 'openLink').map((m) => String(m.href));
      for (const href of opened) {
        assert.ok(/^https?:\/\//i.test(href) || !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(href), `unsafe link posted: ${href}`);
      }

      const result = await inspect(page);
      assert.equal(result.pwned, 0, 'the canary was set');
      assert.deepEqual(result.violations, [], 'the CSP reported a violation');
      assert.deepEqual(result.dangerous, [], 'active markup reached the DOM');
      assert.deepEqual(result.hostOpened, [], "a click reached VS Code's own link handler");
      assert.deepEqual(errors, []);
      // The payloads are shown, as text.
      assert.ok(((await page.locator('[data-testid="transcript"]').textContent()) ?? '').includes('<script>window.__pwned=1</script>'));
      await page.close();
    });
  }
});

/** Math and Mermaid diagrams in replies (headless Chromium): drawn once closed, source while streaming, hostile sources inert. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { T0 } from './builders.ts';
import { batch, deliver, posted, session, useChatPage, type PageWindow } from './harness.ts';

/** Starts an assistant text block and streams `chunks` into it, one batch each. */
async function streamOpen(page: Page, chunks: readonly string[]): Promise<void> {
  await batch(page, [
    { type: 'assistantStart', at: T0 },
    { type: 'blockStart', index: 0, kind: 'text', at: T0 },
  ]);
  for (const text of chunks) await batch(page, [{ type: 'delta', index: 0, text } satisfies WireEvent]);
}

async function endBlock(page: Page): Promise<void> {
  await batch(page, [
    { type: 'blockEnd', index: 0, at: T0 },
    { type: 'assistantEnd', stopReason: 'stop', at: T0 },
  ]);
}

/** A whole reply in one batch, as a snapshot or a finished message arrives. */
async function reply(page: Page, text: string): Promise<void> {
  await streamOpen(page, [text]);
  await endBlock(page);
}

const MD = '[data-role="assistant"] .md';

/** Until every formula is drawn: the first ones of a page wait for KaTeX's chunk. */
async function mathDrawn(page: Page): Promise<void> {
  await page.waitForFunction(
    () => (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('[data-math-pending]') === null,
  );
}

describe('math and diagrams in replies (headless Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  useChatPage(async (p) => {
    page = p;
    await deliver(p, { type: 'snapshot', state: initialTranscript, session });
  });

  it('draws $…$, $$…$$ and a math fence as MathML', async () => {
    await reply(page, 'Euler: $e^{i\\pi}+1=0$, costs $5 and $6.\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n\n```math\na^2+b^2=c^2\n```\n');
    await mathDrawn(page);
    assert.equal(await page.locator(`${MD} [data-math="inline"] math`).count(), 1);
    assert.equal(await page.locator(`${MD} [data-math="block"] math[display="block"]`).count(), 2);
    assert.match(await page.locator(`${MD} p`).first().innerText(), /costs \$5 and \$6\./, 'a lone dollar stays a dollar');
    // MathML only: no KaTeX HTML layer that would need its stylesheet and fonts.
    assert.equal(await page.locator(`${MD} .katex-html`).count(), 0);
  });

  it('shows a streamed formula as its source while it is open and draws it once it closes', async () => {
    await streamOpen(page, ['The area is $\\pi r', '^2']);
    assert.equal(await page.locator(`${MD} [data-math]`).count(), 0);
    assert.match(await page.locator(MD).innerText(), /\$\\pi r\^2/);
    await batch(page, [{ type: 'delta', index: 0, text: '$ and\n\n```math\nx = \\sqrt{y}\n' }]);
    await mathDrawn(page);
    assert.equal(await page.locator(`${MD} [data-math="inline"] math`).count(), 1);
    assert.equal(await page.locator(`${MD} [data-math="block"]`).count(), 0, 'an open math fence shows its source');
    assert.match(await page.locator(`${MD} code`).last().innerText(), /x = \\sqrt\{y\}/);
    await batch(page, [{ type: 'delta', index: 0, text: '```\n' }]);
    await page.waitForSelector(`${MD} [data-math="block"] math`);
  });

  it('shows a formula that fails to parse as its source', async () => {
    await reply(page, 'Broken: $\\frac{1$ here.\n\n$$\n\\begin{nope}\n$$\n');
    await mathDrawn(page);
    const failed = page.locator(`${MD} [data-math][data-math-error]`);
    assert.equal(await failed.count(), 2);
    assert.equal(await failed.first().innerText(), '\\frac{1');
    assert.ok(await failed.first().getAttribute('title'), 'the parser says why');
    assert.equal(await page.locator(`${MD} math`).count(), 0);
  });

  it('loads the diagram library only when a diagram appears, and draws a streamed diagram once its fence closes', async () => {
    await reply(page, 'No diagrams here: $x$.\n');
    assert.equal(await page.locator('script[src*="mermaid"]').count(), 0, 'not in the first paint');
    await streamOpen(page, ['Here:\n\n```mermaid\ngraph TD\n  A[Start] --> B', '[End]\n']);
    assert.equal(await page.locator('[data-diagram="mermaid"]').count(), 0, 'source while it streams');
    assert.match(await page.locator(`${MD} code`).last().innerText(), /A\[Start\] --> B\[End\]/);
    await batch(page, [{ type: 'delta', index: 0, text: '```\n\nAfter.' }]);
    const svg = page.locator('[data-diagram="mermaid"] svg');
    await svg.first().waitFor();
    assert.match(await svg.first().innerHTML(), /Start/);
    const violations = await page.evaluate(() => (globalThis as unknown as PageWindow).__violations.filter((v) => v.directive.startsWith('script')));
    assert.deepEqual(violations, []);
  });

  it('starts loading the diagram library while a mermaid fence streams, so it is ready when the fence closes', async () => {
    await streamOpen(page, ['Here:\n\n```mermaid\ngraph TD\n  A --> B\n']);
    assert.equal(await page.locator('[data-diagram="mermaid"]').count(), 0, 'source while it streams');
    await page.locator('script[src*="mermaid"]').waitFor({ state: 'attached' });
  });

  it('draws a diagram only once it scrolls into view', async () => {
    const prose = Array.from({ length: 120 }, (_, i) => `Paragraph ${i} between the diagrams.`).join('\n\n');
    await reply(page, `\`\`\`mermaid\ngraph TD\n  Above --> Far\n\`\`\`\n\n${prose}\n\n\`\`\`mermaid\ngraph TD\n  Below --> Near\n\`\`\`\n`);
    await page.locator('.scroller').evaluate((s) => (s.scrollTop = s.scrollHeight));
    const figures = page.locator(`${MD} figure.diagram`);
    await figures.nth(1).locator('svg').waitFor();
    assert.equal(await figures.nth(0).locator('svg').count(), 0, 'the diagram far above is not drawn yet');
    assert.match(await figures.nth(0).locator('code').innerText(), /Above --> Far/, 'its source shows meanwhile');
    await figures.nth(0).scrollIntoViewIfNeeded();
    await figures.nth(0).locator('svg').waitFor();
  });

  it('keeps a hostile diagram inert: no script runs, no link navigates, no HTML label survives', async () => {
    await reply(
      page,
      [
        '```mermaid',
        'graph TD',
        '  A["<img src=x onerror=window.__pwned++>"] --> B["<a href=\'javascript:window.__pwned++\'>go</a>"]',
        '  B --> C',
        '  click A callback "tooltip"',
        '  click B "javascript:window.__pwned++" "Go"',
        '  click C href "https://evil.example.com" _self',
        '```',
        '',
      ].join('\n'),
    );
    const diagram = page.locator('[data-diagram="mermaid"]');
    await diagram.locator('svg').waitFor();
    assert.equal(await diagram.locator('img, a, script, foreignObject, iframe, [onclick], [onerror], [href], [xlink\\:href]').count(), 0);
    for (const node of await diagram.locator('g.node').all()) await node.click({ force: true });
    const w = await page.evaluate(() => {
      const g = globalThis as unknown as PageWindow & { location: { href: string } };
      return { pwned: g.__pwned, opened: g.__hostOpened, href: g.location.href };
    });
    assert.equal(w.pwned, 0);
    assert.deepEqual(w.opened, []);
    assert.ok(!w.href.includes('evil'), w.href);
    assert.ok(!(await posted(page)).some((m) => m.type === 'openLink'), 'no link reached the host');
  });

  it('draws a diagram in three tasks (parsing, layout, putting it on the page), after a warm-up in two', async () => {
    // A performance observer's callback is a task of its own: a step that ran in the same task as the one
    // before it would already be in the timeline when that one's callback looks.
    await page.evaluate(() => {
      type Measure = { name: string; detail: unknown };
      const g = globalThis as unknown as {
        __steps: { step: string; seen: string[] }[];
        performance: { getEntriesByType(t: string): Measure[] };
        PerformanceObserver: new (cb: (list: { getEntries(): Measure[] }) => void) => { observe(o: { type: string }): void };
      };
      g.__steps = [];
      const label = (e: Measure) => `${e.name.replace('pi-diagram-', '')} ${String(e.detail)}`;
      const steps = () =>
        g.performance
          .getEntriesByType('measure')
          .filter((e) => /^pi-diagram-(draw|warm)$/.test(e.name))
          .map(label);
      new g.PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (/^pi-diagram-(draw|warm)$/.test(e.name)) g.__steps.push({ step: label(e), seen: steps() });
      }).observe({ type: 'measure' });
    });
    await reply(page, '```mermaid\ngraph TD\n  A[Start] --> B{Check}\n  B -->|yes| C[Done]\n```\n');
    await page.locator('[data-diagram="mermaid"] svg').waitFor();
    await page.waitForFunction(() => (globalThis as unknown as { __steps: unknown[] }).__steps.length >= 5);
    const steps = await page.evaluate(() => (globalThis as unknown as { __steps: { step: string; seen: string[] }[] }).__steps);
    const order = ['warm parse', 'warm layout', 'draw parse', 'draw layout', 'draw insert'];
    assert.deepEqual(
      steps,
      order.map((step, i) => ({ step, seen: order.slice(0, i + 1) })),
    );
    assert.match(await page.locator('[data-diagram="mermaid"] svg').innerHTML(), /Start[\s\S]*Check[\s\S]*Done/);
  });

  it("applies a diagram's styles through the CSSOM, with no style attribute parsed by the view's own code", async () => {
    // Each style attribute parsed in this page is a CSP violation report (the policy has no 'unsafe-inline').
    await page.evaluate(() => {
      const g = globalThis as unknown as {
        __ours: string[];
        document: { addEventListener(t: string, f: (e: { sourceFile: string; violatedDirective: string }) => void): void };
      };
      g.__ours = [];
      g.document.addEventListener('securitypolicyviolation', (e) => {
        if (e.sourceFile.endsWith('/main.js')) g.__ours.push(e.violatedDirective);
      });
    });
    await reply(page, '```mermaid\ngraph TD\n  A[Start] --> B[End]\n  style A fill:#ff00ff,stroke:#00ff00\n```\n');
    const svg = page.locator('[data-diagram="mermaid"] svg');
    await svg.waitFor();
    const styled = await svg.evaluate((el) => {
      const shape = Array.from(el.querySelectorAll('g.node *')).find((n) => (n as unknown as { style: { fill: string } }).style.fill !== '');
      return { fill: (shape as unknown as { style: { fill: string } } | undefined)?.style.fill, attrs: el.querySelectorAll('[style], [data-pi-style]').length };
    });
    assert.equal(styled.fill, 'rgb(255, 0, 255)', "the node's own fill");
    // Reports are events queued after the task that caused them: two frames later they have all arrived.
    await page.evaluate(() => {
      const w = globalThis as unknown as PageWindow;
      return new Promise<void>((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => r())));
    });
    assert.deepEqual(await page.evaluate(() => (globalThis as unknown as { __ours: string[] }).__ours), []);
  });

  it('keeps a diagram inert whose directive asks for loose security and HTML labels', async () => {
    await reply(
      page,
      [
        '```mermaid',
        '%%{init: {"securityLevel": "loose", "htmlLabels": true, "flowchart": {"htmlLabels": true}}}%%',
        'graph TD',
        '  A["<img src=x onerror=window.__pwned++>"] --> B["<b onclick=window.__pwned++>bold</b>"]',
        '  click A pwn "tooltip"',
        '  click B href "javascript:window.__pwned++"',
        '```',
        '',
      ].join('\n'),
    );
    const diagram = page.locator('[data-diagram="mermaid"], [data-diagram-error]');
    await diagram.first().waitFor();
    assert.equal(await page.locator('[data-diagram="mermaid"] svg').count(), 1, await page.locator('figure.diagram').innerText());
    assert.equal(await page.locator('figure.diagram').locator('img, a, b, script, foreignObject, [onclick], [onerror], [href]').count(), 0);
    for (const node of await page.locator('[data-diagram="mermaid"] g.node').all()) await node.click({ force: true });
    assert.equal(await page.evaluate(() => (globalThis as unknown as PageWindow).__pwned), 0);
    assert.ok(!(await posted(page)).some((m) => m.type === 'openLink'), 'no link reached the host');
  });

  it('shows a diagram that fails to parse as its source with the parser message', async () => {
    await reply(page, '```mermaid\ngraph TD\n  A --> --> -->\n```\n');
    const failed = page.locator('[data-diagram-error]');
    await failed.waitFor();
    assert.match(await failed.innerText(), /A --> --> -->/);
    assert.match(await failed.innerText(), /Parse error|Expecting|error/i);
    assert.equal(await page.locator('[data-diagram="mermaid"] svg').count(), 0);
  });

  it('toggles a diagram to its source and opens it as SVG in an editor', async () => {
    await reply(page, '```mermaid\ngraph LR\n  A --> B\n```\n');
    const diagram = page.locator('[data-diagram="mermaid"]');
    await diagram.locator('svg').waitFor();
    await diagram.locator('[data-action="diagram-source"]').click();
    assert.match(await diagram.locator('code').innerText(), /A --> B/);
    assert.equal(await diagram.locator('svg').isVisible(), false);
    await diagram.locator('[data-action="diagram-source"]').click();
    assert.equal(await diagram.locator('svg').isVisible(), true);
    await diagram.locator('[data-action="open-svg"]').click();
    const sent = (await posted(page)).find((m) => m.type === 'openSvg');
    assert.ok(sent, 'asked the host to open the SVG');
    assert.match(String(sent.svg), /^<svg[\s\S]*<\/svg>$/);
  });
});

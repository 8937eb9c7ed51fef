import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PiModule } from '../../src/pi/piEntry.ts';
import type { ImageAttachment } from '../../src/shared/images.ts';
import type { RestoredInput } from '../../src/shared/wire/workerProtocol.ts';
import { loadBundledPi, scenarioFile, startHarness, type Harness } from './harness.ts';

const pngBytes = readFileSync(new URL('../fixtures/images/red-square.png', import.meta.url));
const png = pngBytes.toString('base64');
const image: ImageAttachment = { mimeType: 'image/png', data: png, name: 'red-square.png' };

/** The image parts (data: URLs) of each user or tool message in a chat-completions request the scripted model received. */
function imageUrls(request: unknown): string[] {
  const out: string[] = [];
  for (const m of (request as { messages?: { content?: unknown }[] }).messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const part of m.content as { type?: string; image_url?: { url?: string } }[])
      if (part.type === 'image_url' && part.image_url?.url) out.push(part.image_url.url);
  }
  return out;
}

describe('images on the real Pi SDK', function () {
  this.timeout(60_000);
  let pi: PiModule;
  let h: Harness | undefined;

  before(() => {
    pi = loadBundledPi();
  });

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  it("sends a prompt's image to the model as an image part, images-only too, and shows it on the user row", async () => {
    h = await startHarness(pi, {
      name: 'two-answers',
      steps: [
        { chunks: [{ text: 'A red square.' }], finish: 'stop' },
        { chunks: [{ text: 'Still red.' }], finish: 'stop' },
      ],
    });
    await h.controller.send('What is in this picture?', 'prompt', [image]);
    await h.settled();
    assert.deepEqual(imageUrls(h.model.requests[0]), [`data:image/png;base64,${png}`]);
    const user = h.controller.state.messages.find((m) => m.role === 'user')!;
    assert.equal(user.blocks[0]!.text, 'What is in this picture?');
    assert.deepEqual(user.media, [{ mimeType: 'image/png', bytes: pngBytes.length, data: png }]);
    const settles = h.emitted.filter((e) => e.type === 'settled').length;
    await h.controller.send('', 'prompt', [image]);
    await h.until(() => h!.emitted.filter((e) => e.type === 'settled').length > settles, 20_000, 'the images-only prompt to settle');
    assert.equal(imageUrls(h.model.requests[1]).length, 2, 'both images are in the second request (the history and the new one)');
    assert.equal(h.controller.state.messages.filter((m) => m.role === 'user' && m.media?.length === 1).length, 2);
  });

  it("shows a tool result's image on its card, sends it to the model, and shows it again when the session is resumed", async () => {
    h = await startHarness(pi, {
      name: 'read-image',
      steps: [
        { chunks: [{ toolCall: { id: 'call_img', name: 'read', arguments: { path: 'red-square.png' } } }], finish: 'tool_calls' },
        { chunks: [{ text: 'It is a red square.' }], finish: 'stop' },
      ],
    });
    writeFileSync(join(h.cwd, 'red-square.png'), pngBytes);
    await h.controller.send('Look at red-square.png.', 'prompt');
    await h.settled();
    const card = h.controller.state.tools['call_img']!;
    assert.equal(card.status, 'done');
    assert.equal(card.media?.length, 1);
    assert.equal(card.media![0]!.mimeType, 'image/png');
    assert.ok(card.media![0]!.data, 'the thumbnail has its bytes');
    assert.doesNotMatch(card.output, /\[1 image\]/, 'the card draws the image instead of counting it');
    assert.equal(imageUrls(h.model.requests[1]).length, 1, "the tool's image went to the model");
    const file = h.controller.sessionFile!;
    await h.controller.branching.newSession();
    assert.equal(h.controller.state.messages.length, 0);
    await h.controller.branching.resumeSession(file);
    await h.until(() => h!.controller.state.tools['call_img'] !== undefined, 10_000, 'the resumed history');
    assert.deepEqual(h.controller.state.tools['call_img']!.media, card.media, 'the replayed card shows the image');
  });

  it("returns a cancelled steer's image to the composer with its text", async () => {
    h = await startHarness(pi, scenarioFile('long-stream-held'));
    const restored: RestoredInput[] = [];
    h.controller.onDidRestoreInput((r) => restored.push(r));
    const run = h.controller.send('Talk for a long time.', 'prompt');
    await h.model.held('mid');
    await h.controller.send('and look at this', 'steer', [image]);
    await h.until(() => h!.controller.state.queue.steering.length === 1, 5000, 'the steer in the queue');
    await h.controller.cancel();
    await h.settled(5000);
    await run;
    assert.deepEqual(restored, [{ texts: ['and look at this'], images: [image] }]);
  });
});

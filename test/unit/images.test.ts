import { strict as assert } from 'node:assert';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { readFileSync } from 'node:fs';
import { imageSrc, imageView, MAX_IMAGE_BYTES, MAX_IMAGES, MAX_VIEW_IMAGE_BYTES, parseImageAttachments } from '../../src/shared/images.ts';
import { project } from '../../src/worker/projection.ts';
import { parseWebviewMessage } from '../../src/shared/wire/parseWebviewMessage.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { anyRow } from '../support/anyRow.ts';

const png = readFileSync(new URL('../fixtures/images/red-square.png', import.meta.url)).toString('base64');
/** A JPEG's head: JFIF segment, then the frame header that gives its size (16×16). */
const jpegHead = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xc0, 0, 11, 8, 0, 16, 0, 16, 1, 1, 0x11, 0,
]).toString('base64');
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString('base64');

function run(events: unknown[]): { wire: WireEvent[]; state: TranscriptState } {
  let state = initialTranscript;
  const wire: WireEvent[] = [];
  for (const e of events) {
    const out = project(e as AgentSessionEvent, { state, now: 1 });
    state = reduce(state, out);
    wire.push(...out);
  }
  return { wire, state };
}

describe('images', () => {
  describe('parseWebviewMessage: send with images', () => {
    const send = (images: unknown, text = 'look') => parseWebviewMessage({ type: 'send', text, mode: 'prompt', images });

    it('accepts allow-listed images whose bytes are that type, and an empty text beside them', () => {
      const r = send([{ mimeType: 'image/png', data: png, name: 'shot.png' }], '');
      assert.deepEqual(r, { ok: true, msg: { type: 'send', text: '', mode: 'prompt', images: [{ mimeType: 'image/png', data: png, name: 'shot.png' }] } });
      assert.equal(send([{ mimeType: 'image/jpeg', data: jpegHead }]).ok, true);
    });

    it('keeps only the known fields of an image', () => {
      const r = send([{ mimeType: 'image/png', data: png, url: 'https://evil.example/x.png' }]);
      assert.ok(r.ok && r.msg.type === 'send');
      assert.deepEqual(r.msg.images, [{ mimeType: 'image/png', data: png }]);
    });

    const refused: [string, unknown, RegExp][] = [
      ['not an array', { mimeType: 'image/png', data: png }, /not an array/],
      ['an SVG (a document that can carry script)', [{ mimeType: 'image/svg+xml', data: svg }], /mimeType/],
      ['a type outside the allow-list', [{ mimeType: 'application/pdf', data: png }], /mimeType/],
      ['data that is not base64', [{ mimeType: 'image/png', data: 'iVBOR w0K!' }], /not base64/],
      ['a data: URL instead of base64', [{ mimeType: 'image/png', data: `data:image/png;base64,${png}` }], /not base64/],
      ['bytes that are not the declared type', [{ mimeType: 'image/gif', data: png }], /not a image\/gif image/],
      ['text renamed to .png', [{ mimeType: 'image/png', data: Buffer.from('hello, not a picture').toString('base64') }], /not a image\/png image/],
      ['an image over the size cap', [{ mimeType: 'image/png', data: 'A'.repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4) }], /larger than 5\.0 MB/],
      ['more images than the cap', Array.from({ length: MAX_IMAGES + 1 }, () => ({ mimeType: 'image/png', data: png })), /more than 10 images/],
      ['an empty data string', [{ mimeType: 'image/png', data: '' }], /data is not a string/],
    ];
    for (const [what, images, reason] of refused) {
      it(`refuses ${what}`, () => {
        const r = send(images);
        assert.equal(r.ok, false);
        assert.match(!r.ok ? r.reason : '', reason);
      });
    }

    it('passes an empty send without images through as it is (the composer and the host skip it)', () => {
      // An empty text is a valid message shape; the host and the composer skip it (covered in their tests).
      assert.deepEqual(parseWebviewMessage({ type: 'send', text: '', mode: 'steer' }), { ok: true, msg: { type: 'send', text: '', mode: 'steer' } });
    });

    it("checks the composer's images the host keeps for a re-created view the same way", () => {
      assert.deepEqual(parseWebviewMessage({ type: 'composerImages', images: [{ mimeType: 'image/png', data: png }] }), {
        ok: true,
        msg: { type: 'composerImages', images: [{ mimeType: 'image/png', data: png }] },
      });
      assert.deepEqual(parseWebviewMessage({ type: 'composerImages', images: [] }), { ok: true, msg: { type: 'composerImages', images: [] } });
      assert.equal(parseWebviewMessage({ type: 'composerImages', images: [{ mimeType: 'image/svg+xml', data: svg }] }).ok, false);
      assert.equal(parseWebviewMessage({ type: 'composerImages' }).ok, false);
    });

    it('decides the size from the base64 length before scanning it', () => {
      const huge = 'A'.repeat(40 * 1024 * 1024);
      assert.equal(parseImageAttachments([{ mimeType: 'image/png', data: huge }]).ok, false);
    });
  });

  describe('image views', () => {
    it('carries the bytes of a small allow-listed image and draws it from a data: URL', () => {
      const v = imageView({ type: 'image', data: png, mimeType: 'image/png' } as never);
      assert.equal(v.data, png);
      assert.equal(v.bytes, 79);
      assert.equal(imageSrc(v), `data:image/png;base64,${png}`);
    });

    it('shows a placeholder for an SVG, a non-base64 payload or an image over the view cap', () => {
      assert.equal(imageView({ data: svg, mimeType: 'image/svg+xml' }).data, undefined);
      assert.equal(imageView({ data: 'javascript:alert(1)', mimeType: 'image/png' }).data, undefined);
      const big = imageView({ data: 'A'.repeat(Math.ceil(MAX_VIEW_IMAGE_BYTES / 3) * 4 + 4), mimeType: 'image/png' });
      assert.equal(big.data, undefined);
      assert.ok(big.bytes > MAX_VIEW_IMAGE_BYTES);
      // A view forged with a hostile type never becomes a URL.
      assert.equal(imageSrc({ mimeType: 'text/html', bytes: 3, data: 'PGI+' }), undefined);
    });
  });

  describe('projection and reducer', () => {
    it("shows a user message's images on its row", () => {
      const message = {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', data: png, mimeType: 'image/png' },
        ],
      };
      const { wire, state } = run([{ type: 'message_start', message }]);
      assert.deepEqual(wire, [{ type: 'userMessage', text: 'What is this?', images: 1, media: [{ mimeType: 'image/png', bytes: 79, data: png }] }]);
      assert.deepEqual(anyRow(state.messages[0]!).media, [{ mimeType: 'image/png', bytes: 79, data: png }]);
    });

    it("puts a tool result's images on its card once, and does not send them again with the result message", () => {
      const content = [
        { type: 'text', text: 'Read image file [image/png]' },
        { type: 'image', data: png, mimeType: 'image/png' },
      ];
      const { wire, state } = run([
        { type: 'tool_execution_start', toolCallId: 'c1', toolName: 'read', args: { path: 'a.png' } },
        { type: 'tool_execution_end', toolCallId: 'c1', toolName: 'read', result: { content }, isError: false },
        { type: 'message_end', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content, isError: false } },
      ]);
      const end = wire.find((e) => e.type === 'toolEnd');
      assert.deepEqual(end && end.type === 'toolEnd' && end.media, [{ mimeType: 'image/png', bytes: 79, data: png }]);
      // The card draws the image: its text does not also say "[1 image]".
      assert.equal(state.tools['c1']!.output, 'Read image file [image/png]');
      const result = wire.find((e) => e.type === 'toolResult');
      assert.deepEqual(result, { type: 'toolResult', toolCallId: 'c1', toolName: 'read', isError: false });
      assert.equal(JSON.stringify(wire).split(png).length - 1, 1, 'the image crossed once');
    });

    it('sends the images with a result message whose card never got them', () => {
      const content = [{ type: 'image', data: png, mimeType: 'image/png' }];
      const { state } = run([{ type: 'message_end', message: { role: 'toolResult', toolCallId: 'x', toolName: 'shot', content, isError: false } }]);
      assert.deepEqual(anyRow(state.messages[0]!).media, [{ mimeType: 'image/png', bytes: 79, data: png }]);
    });

    it('keeps counting images in live partial output, where no thumbnail is drawn', () => {
      const { wire } = run([
        { type: 'tool_execution_start', toolCallId: 'c2', toolName: 'shot', args: {} },
        {
          type: 'tool_execution_update',
          toolCallId: 'c2',
          toolName: 'shot',
          partialResult: { content: [{ type: 'image', data: png, mimeType: 'image/png' }] },
        },
      ]);
      const update = wire.find((e) => e.type === 'toolUpdate');
      assert.equal(update && update.type === 'toolUpdate' && update.output, '[1 image]');
    });
  });
});

import { strict as assert } from 'node:assert';
import { lorem, piReply, streamThroughWire } from '../support/wireStream.ts';
import { anyRow } from '../support/anyRow.ts';

describe('wire size', () => {
  it('puts fewer than 1.2 bytes on the wire per reply character for a 100,000-character reply in 10-character deltas', () => {
    const reply = lorem(100_000);
    // 5,000 deltas/s: the scripted model streaming without delay, or a fast local model. Slower streams pay
    // one envelope per frame; `npm run bench` prints the ratio at several rates.
    const { bytes, webview } = streamThroughWire(reply, 10, 5000);
    const ratio = bytes / reply.length;
    assert.ok(ratio < 1.2, `wire bytes per reply character: ${ratio.toFixed(3)}`);
    const last = anyRow(webview.messages.at(-1)!);
    assert.equal(last.blocks[0]!.text, reply, 'the webview converges to the final text');
    assert.equal(last.stopReason, 'stop');
  });

  it('sends hundreds of times less than forwarding Pi events raw', () => {
    const reply = lorem(10_000);
    let raw = 0;
    for (const ev of piReply(reply, 10)) raw += JSON.stringify(ev).length;
    const { bytes } = streamThroughWire(reply, 10, 2000);
    assert.ok(raw / bytes > 100, `raw ${raw} bytes vs wire ${bytes} bytes`);
  });
});

import { strict as assert } from 'node:assert';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { project } from '../../src/worker/projection.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';

const ev = (e: unknown) => e as AgentSessionEvent;

/** Pi-shaped events of one assistant message with one streamed tool call, then the tool's start and end. */
function toolCallRun(args: Record<string, unknown>, executedArgs = args): AgentSessionEvent[] {
  const json = JSON.stringify(args);
  const call = { type: 'toolCall', id: 'call_big', name: 'custom_tool', arguments: {} as unknown };
  const partial = { role: 'assistant', content: [call], stopReason: 'toolUse', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 } };
  const out: AgentSessionEvent[] = [ev({ type: 'message_start', message: partial })];
  out.push(ev({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'toolcall_start', contentIndex: 0, partial } }));
  for (let i = 0; i < json.length; i += 40) {
    out.push(
      ev({
        type: 'message_update',
        message: partial,
        assistantMessageEvent: { type: 'toolcall_delta', contentIndex: 0, delta: json.slice(i, i + 40), partial },
      }),
    );
  }
  const final = { ...call, arguments: args };
  out.push(ev({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'toolcall_end', contentIndex: 0, toolCall: final, partial } }));
  out.push(ev({ type: 'message_end', message: { ...partial, content: [final] } }));
  out.push(ev({ type: 'tool_execution_start', toolCallId: 'call_big', toolName: 'custom_tool', args: executedArgs }));
  out.push(
    ev({ type: 'tool_execution_end', toolCallId: 'call_big', toolName: 'custom_tool', result: { content: [{ type: 'text', text: 'ok' }] }, isError: false }),
  );
  return out;
}

function throughWire(events: AgentSessionEvent[]): { wire: WireEvent[]; state: typeof initialTranscript } {
  let state = initialTranscript;
  const wire: WireEvent[] = [];
  for (const e of events) {
    const out = project(e, { state, now: 1 });
    wire.push(...out);
    state = reduce(state, out);
  }
  return { wire, state };
}

describe('tool call arguments on the wire', () => {
  const big = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key${i}`, `value ${i}`]));

  it('sends streamed arguments once: the tool start leaves them out and the card takes them from the call', () => {
    const { wire, state } = throughWire(toolCallRun(big));
    const json = JSON.stringify(big);
    // The deltas carry the arguments once; everything else together is small.
    const streamed = wire.map((w) => (w.type === 'delta' ? w.text : '')).join('');
    assert.equal(streamed, json);
    const rest = JSON.stringify(wire.filter((w) => w.type !== 'delta')).length;
    assert.ok(rest < json.length / 20, `${rest} bytes besides the deltas for ${json.length} bytes of arguments`);
    const start = wire.find((w) => w.type === 'toolStart');
    assert.ok(start && !('args' in start), 'toolStart carries no arguments');
    assert.deepEqual(JSON.parse(state.tools.call_big!.args), big);
  });

  it('still sends the arguments a hook changed before the tool ran', () => {
    const { wire, state } = throughWire(toolCallRun({ command: 'rm -rf /' }, { command: 'echo blocked' }));
    const start = wire.find((w) => w.type === 'toolStart');
    assert.equal(start?.type === 'toolStart' ? start.args : undefined, '{"command":"echo blocked"}');
    assert.equal(state.tools.call_big!.args, '{"command":"echo blocked"}');
  });
});

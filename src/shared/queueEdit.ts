/** An edit of one queued steer or follow-up, as the queue strip asks for it and the worker applies it: pure, no Pi. */

/** Which of Pi's two queues. */
export type QueueKind = 'steering' | 'followUp';

export type QueueOp = 'edit' | 'remove' | 'up' | 'down' | 'sendNow';

export const QUEUE_OPS: readonly QueueOp[] = ['edit', 'remove', 'up', 'down', 'sendNow'];

/**
 * One edit, naming the message by its place and its text as the strip showed them: the worker applies it
 * only when that message is still there, so an edit never lands on a message Pi took in the meantime.
 */
export interface QueueEdit {
  readonly queue: QueueKind;
  readonly index: number;
  readonly text: string;
  readonly op: QueueOp;
  /** `edit`: the new text. */
  readonly newText?: string;
}

/** Pi's queues, in delivery order each. */
export interface Queues {
  readonly steering: readonly string[];
  readonly followUp: readonly string[];
}

/**
 * The queues after `edit`, or undefined when the message is no longer where the strip showed it (Pi took it,
 * or another edit moved it). `sendNow` moves a follow-up to the end of the steering queue (delivered after
 * the current tool results instead of after the run); up and down move within the message's own queue.
 */
export function applyQueueEdit(queues: Queues, edit: QueueEdit): Queues | undefined {
  const list = [...queues[edit.queue]];
  if (list[edit.index] !== edit.text) return undefined;
  const out = { steering: [...queues.steering], followUp: [...queues.followUp] };
  switch (edit.op) {
    case 'edit':
      if (edit.newText === undefined) return undefined;
      list[edit.index] = edit.newText;
      break;
    case 'remove':
      list.splice(edit.index, 1);
      break;
    case 'up':
    case 'down': {
      const to = edit.index + (edit.op === 'up' ? -1 : 1);
      if (to < 0 || to >= list.length) return queues;
      [list[edit.index], list[to]] = [list[to]!, list[edit.index]!];
      break;
    }
    case 'sendNow':
      if (edit.queue === 'steering') return queues;
      list.splice(edit.index, 1);
      out.steering.push(edit.text);
      break;
    default: {
      const never: never = edit.op;
      return never;
    }
  }
  out[edit.queue] = list;
  return out;
}

import { strict as assert } from 'node:assert';
import { DialogMirror, type MirrorSurface } from '../../src/extension/dialogMirror.ts';
import type { DialogView } from '../../src/shared/wire/events.ts';

/** A notification surface the test clicks: each `show` waits until the test picks a button (or closes it). */
class FakeSurface implements MirrorSurface {
  readonly shown: { text: string; buttons: readonly string[]; click(button: string | undefined): void }[] = [];
  readonly answers: [string, string][] = [];
  readonly said: string[] = [];
  chatsOpened = 0;
  /** Whether the worker still has the dialog open when the answer arrives. */
  stillOpen = true;

  show(text: string, buttons: readonly string[]): Promise<string | undefined> {
    return new Promise((resolve) => this.shown.push({ text, buttons, click: resolve }));
  }
  async answer(id: string, choice: string): Promise<boolean> {
    this.answers.push([id, choice]);
    return this.stillOpen;
  }
  async openChat(): Promise<void> {
    this.chatsOpened++;
  }
  say(text: string): void {
    this.said.push(text);
  }
}

const dialog = (over: Partial<DialogView> & Pick<DialogView, 'id' | 'kind'>): DialogView => ({ title: 'Allow Pi to write out.txt?', at: 0, ...over });

describe('dialogs mirrored as notifications while the chat is hidden', () => {
  it("answers the dialog with the notification's button while the dialog is open", async () => {
    const surface = new FakeSurface();
    const mirror = new DialogMirror(surface);
    const done = mirror.mirror(dialog({ id: 'd1', kind: 'select', options: ['Allow', 'Block'] }));
    assert.deepEqual(surface.shown[0]!.buttons, ['Allow', 'Block']);
    assert.equal(surface.shown[0]!.text, 'Pi is waiting for you: Allow Pi to write out.txt?');
    surface.shown[0]!.click('Allow');
    await done;
    assert.deepEqual(surface.answers, [['d1', 'Allow']]);
    assert.equal(mirror.pending, 0);
  });

  it('a click after the dialog was answered in the chat answers nothing and says how it ended', async () => {
    const surface = new FakeSurface();
    const mirror = new DialogMirror(surface);
    const done = mirror.mirror(dialog({ id: 'd1', kind: 'confirm' }));
    mirror.closed('d1', 'answered Yes');
    surface.shown[0]!.click('No');
    await done;
    assert.deepEqual(surface.answers, [], 'the late click answered nothing');
    assert.deepEqual(surface.said, ['Pi: "Allow Pi to write out.txt?" was already answered (Yes).']);
    assert.equal(mirror.pending, 0);
  });

  it('a late "Open Chat" on an input that timed out opens nothing; a closed notification says nothing', async () => {
    const surface = new FakeSurface();
    const mirror = new DialogMirror(surface);
    const late = mirror.mirror(dialog({ id: 'd1', kind: 'input', title: 'Your name?' }));
    const dismissed = mirror.mirror(dialog({ id: 'd2', kind: 'input', title: 'Your city?' }));
    assert.deepEqual(surface.shown[0]!.buttons, ['Open Chat']);
    mirror.closed('d1', 'timed out');
    surface.shown[0]!.click('Open Chat');
    surface.shown[1]!.click(undefined);
    await Promise.all([late, dismissed]);
    assert.equal(surface.chatsOpened, 0);
    assert.deepEqual(surface.said, ['Pi: "Your name?" was already timed out.']);
  });

  it('says so when the worker no longer had the dialog (closed before the host heard of it)', async () => {
    const surface = new FakeSurface();
    surface.stillOpen = false;
    const mirror = new DialogMirror(surface);
    const done = mirror.mirror(dialog({ id: 'd1', kind: 'select', options: ['Allow', 'Block'] }));
    surface.shown[0]!.click('Block');
    await done;
    assert.deepEqual(surface.answers, [['d1', 'Block']]);
    assert.deepEqual(surface.said, ['Pi: "Allow Pi to write out.txt?" was already closed.']);
  });

  it('mirrors a dialog once, and ignores the close of one it never showed', async () => {
    const surface = new FakeSurface();
    const mirror = new DialogMirror(surface);
    const d = dialog({ id: 'd1', kind: 'confirm' });
    const first = mirror.mirror(d);
    await mirror.mirror(d);
    mirror.closed('other', 'dismissed');
    assert.equal(surface.shown.length, 1);
    surface.shown[0]!.click('Yes');
    await first;
    assert.deepEqual(surface.answers, [['d1', 'Yes']]);
  });
});

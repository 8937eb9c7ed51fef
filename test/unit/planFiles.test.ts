/** Each chat's plan document: its own file, filled with its own plan reply, and Act on Plan sends that chat's document (edits included), never another chat's. */

import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { PlanFiles, type PlanChatRef } from '../../src/extension/planFiles.ts';

const sidebar: PlanChatRef = { id: 'sidebar', number: 0 };
const tab: PlanChatRef = { id: 'editor-1', number: 1 };
const name = (n: number) => (n ? `Plan (Chat ${n}).md` : 'Plan.md');

/** The documents' texts by file, as the editor holds them (edits included). */
class FakeDocuments {
  readonly texts = new Map<string, string>();
  readonly read = (file: string): string => {
    const text = this.texts.get(file);
    if (text === undefined) throw new Error(`no document ${file}`);
    return text;
  };
}

describe('plan documents: one per chat', () => {
  it('gives each chat its own document, named for the chat', () => {
    const files = new PlanFiles('/storage/plan', name);
    assert.equal(files.fileOf(sidebar), path.join('/storage/plan', 'Plan.md'));
    assert.equal(files.fileOf(tab), path.join('/storage/plan', 'Plan (Chat 1).md'));
  });

  it("sends a chat's own edited plan: editing another chat's plan document does not change it", () => {
    const files = new PlanFiles('/storage/plan', name);
    const docs = new FakeDocuments();
    for (const [chat, draft] of [
      [sidebar, '1. Plan of A'],
      [tab, '1. Plan of B'],
    ] as const) {
      docs.texts.set(files.fileOf(chat), draft);
      files.filled(chat, draft);
    }
    docs.texts.set(files.fileOf(tab), '1. Plan of B\n2. rm -rf the repo');
    assert.equal(files.toSend(sidebar, '1. Plan of A', docs.read), '1. Plan of A');
    assert.equal(files.toSend(tab, '1. Plan of B', docs.read), '1. Plan of B\n2. rm -rf the repo');
  });

  it("keeps a chat's edits when another chat with the same plan reply fills its own document", () => {
    const files = new PlanFiles('/storage/plan', name);
    const docs = new FakeDocuments();
    docs.texts.set(files.fileOf(sidebar), '1. Same');
    files.filled(sidebar, '1. Same');
    docs.texts.set(files.fileOf(sidebar), '1. Same, edited in A');
    assert.equal(files.needsFill(tab, '1. Same'), true, "B's document does not count as filled by A's");
    docs.texts.set(files.fileOf(tab), '1. Same');
    files.filled(tab, '1. Same');
    assert.equal(files.toSend(sidebar, '1. Same', docs.read), '1. Same, edited in A');
    assert.equal(files.toSend(tab, '1. Same', docs.read), '1. Same');
  });

  it('sends the plan as Pi wrote it when the document holds an older plan, was never opened, or was acted on', () => {
    const files = new PlanFiles('/storage/plan', name);
    const docs = new FakeDocuments();
    assert.equal(files.toSend(tab, '1. New', docs.read), '1. New', 'never opened');
    docs.texts.set(files.fileOf(tab), '1. Old, edited');
    files.filled(tab, '1. Old');
    assert.equal(files.toSend(tab, '1. New', docs.read), '1. New', 'a newer plan reply');
    assert.equal(files.needsFill(tab, '1. New'), true);
    files.filled(tab, '1. New');
    files.acted(tab);
    assert.equal(files.toSend(tab, '1. New', docs.read), '1. New', 'acted on');
  });
});

/** Settings a repository's folder must not be able to weaken: `piPanel.approval` takes the strictest level set, `piPanel.checkpoints` can only be turned on; `/name` is capped like rename. */

import { strict as assert } from 'node:assert';
import { strictestApproval } from '../../src/shared/approvalSetting.ts';
import { checkpointsOn } from '../../src/shared/checkpointsSetting.ts';
import { MAX_SESSION_NAME } from '../../src/shared/wire/webviewProtocol.ts';
import { parseWebviewMessage } from '../../src/shared/wire/parseWebviewMessage.ts';

describe('settings a folder cannot lower', () => {
  it("a folder's `off` does not lower the user's `commands`; levels combine to what asks about both", () => {
    // [user, workspace, folder]
    assert.equal(strictestApproval(['commands', 'off', undefined]), 'commands');
    assert.equal(strictestApproval(['all', undefined, 'off']), 'all');
    assert.equal(strictestApproval(['writes', 'commands', undefined]), 'all');
    assert.equal(strictestApproval([undefined, 'writes', undefined]), 'writes', 'a folder may ask for more');
    assert.equal(strictestApproval([undefined, undefined, undefined]), 'off');
    assert.equal(strictestApproval(['off', 'typo', undefined]), 'all', 'an unknown value asks about everything');
  });

  it("a folder's `piPanel.checkpoints: false` leaves them on; only the user turns them off, and a folder may turn them on", () => {
    assert.equal(checkpointsOn({ user: undefined, workspace: false, folder: undefined }), true);
    assert.equal(checkpointsOn({ user: true, workspace: undefined, folder: false }), true);
    assert.equal(checkpointsOn({ user: undefined, workspace: undefined, folder: undefined }), true, 'on by default');
    assert.equal(checkpointsOn({ user: false, workspace: undefined, folder: undefined }), false);
    assert.equal(checkpointsOn({ user: false, workspace: false, folder: undefined }), false);
    assert.equal(checkpointsOn({ user: false, workspace: true, folder: undefined }), true, 'a folder may turn them on');
    assert.equal(checkpointsOn({ user: false, workspace: undefined, folder: true }), true);
    assert.equal(checkpointsOn({ user: 'no', workspace: 0, folder: 'false' }), true, 'only a boolean false turns them off');
  });

  it('refuses a /name title longer than a rename takes', () => {
    assert.equal(parseWebviewMessage({ type: 'slash', name: 'name', args: 'x'.repeat(1_000_000) }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'slash', name: 'name', args: 'x'.repeat(MAX_SESSION_NAME + 1) }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'slash', name: 'name', args: 'x'.repeat(MAX_SESSION_NAME) }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'slash', name: 'compact', args: 'x'.repeat(1000) }).ok, true);
  });
});

/** The rule that builds the agent's shell environment from the extension host's. */

import { strict as assert } from 'node:assert';
import { agentShellEnv } from '../../src/worker/piSessions.ts';
import { HOST_PRIVATE_ENV, USER_ENV } from '../support/hostEnv.ts';

describe("the agent's shell environment", () => {
  const host = {
    PATH: '/opt/code-server/lib/vscode/bin/remote-cli:/usr/local/bin:/usr/bin',
    HOME: '/home/me',
    SHELL: '/bin/bash',
    ...HOST_PRIVATE_ENV,
    ...USER_ENV,
  };
  const env = agentShellEnv(host);

  it('drops every variable the editor process set for itself', () => {
    assert.deepEqual(
      Object.keys(HOST_PRIVATE_ENV).filter((n) => n in env),
      [],
    );
  });

  it("keeps what a shell needs and the user's own variables, unchanged", () => {
    for (const [name, value] of Object.entries({ PATH: host.PATH, HOME: host.HOME, SHELL: host.SHELL, ...USER_ENV })) assert.equal(env[name], value, name);
  });

  it("drops a variable of any name whose value is one of the editor's IPC handles", () => {
    assert.deepEqual(agentShellEnv({ MY_SOCKET: '/run/user/1000/vscode-git-1a2b.sock', MY_DIR: '/srv/app' }), { MY_DIR: '/srv/app' });
  });

  it('treats names case-insensitively, as Windows does', () => {
    assert.deepEqual(agentShellEnv({ Path: 'C:\\Windows', vscode_pid: '1', Electron_Run_As_Node: '1' }), { Path: 'C:\\Windows' });
  });
});

/** How the worker points Pi's own `getAgentDir()` (which the MCP extension reads) at the panel's agent directory. */

import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import type { PiModule } from '../../src/pi/piEntry.ts';
import { defaultPiAgentDir, pointPiAtAgentDir } from '../../src/worker/piSessions.ts';

const VARIABLE = 'PI_CODING_AGENT_DIR';
const HOME_DIR = path.resolve('/home/me/.pi/agent');

/** Pi's rule: the variable when set, else the home directory's. */
const envPi = { getAgentDir: () => process.env[VARIABLE] ?? HOME_DIR } as unknown as PiModule;
/** A Pi that no longer reads the variable. */
const deafPi = { getAgentDir: () => HOME_DIR } as unknown as PiModule;

describe("Pi's agent directory in the worker", () => {
  const before = process.env[VARIABLE];
  afterEach(() => {
    if (before === undefined) delete process.env[VARIABLE];
    else process.env[VARIABLE] = before;
  });

  it("points getAgentDir() at the panel's directory, and back at Pi's default when the setting is cleared", () => {
    assert.equal(pointPiAtAgentDir(envPi, '/work/agent'), undefined);
    assert.equal(envPi.getAgentDir(), path.resolve('/work/agent'));
    // The setting cleared: Pi's default as the host's environment gives it, not the directory set before.
    assert.equal(defaultPiAgentDir(envPi), before === undefined ? HOME_DIR : path.resolve(before));
  });

  it('says so when Pi does not take the directory from the environment', () => {
    assert.match(pointPiAtAgentDir(deafPi, '/work/agent') ?? '', /reads mcp\.json from .* not from .*PI_CODING_AGENT_DIR/);
  });
});

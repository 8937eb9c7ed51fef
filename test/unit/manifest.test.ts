/** The manifest's Restricted Mode declaration: settings that choose Pi's code or endpoint are restricted. */

import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';

interface Manifest {
  capabilities: { untrustedWorkspaces: { supported: boolean | string; restrictedConfigurations?: string[] } };
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Manifest;

/** Settings that choose which code Pi loads or which endpoint and keys it uses: a folder must not set them untrusted. */
const CHOOSES_CODE_OR_ENDPOINT = ['piPanel.agentDir', 'piPanel.tools'];

describe('the manifest in an untrusted workspace', () => {
  const trust = manifest.capabilities.untrustedWorkspaces;
  const properties = manifest.contributes.configuration.properties;

  it('supports Restricted Mode in a limited way', () => {
    assert.equal(trust.supported, 'limited');
  });

  it('ignores the folder’s value of every setting that chooses what code or endpoint Pi uses', () => {
    for (const name of CHOOSES_CODE_OR_ENDPOINT) assert.ok(trust.restrictedConfigurations?.includes(name), `${name} is restricted`);
  });

  it('restricts only settings that exist, and only ones a folder could set', () => {
    for (const name of trust.restrictedConfigurations ?? []) {
      assert.ok(properties[name], `${name} is a contributed setting`);
      assert.notEqual(properties[name]!.scope, 'application', `${name} has a scope a folder can set`);
    }
  });

  it('lists every setting that names a path or tool in the restricted list', () => {
    // A new setting about directories, tools, extensions, providers or models changes what Pi runs.
    const risky = Object.keys(properties).filter((n) => /dir|path|tool|extension|provider|model|endpoint|url|key/i.test(n));
    assert.deepEqual(
      risky.filter((n) => !trust.restrictedConfigurations?.includes(n)),
      [],
    );
  });
});

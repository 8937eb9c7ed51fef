/** `piPanel.approvalRules`: each rule checked (a malformed or unknown one refused and named), a workspace never allows, and which rule a call falls under. */

import { strict as assert } from 'node:assert';
import { mergeRules, parseRules, problemText, type ApprovalRule } from '../../src/shared/approvalRules.ts';
import { ruleFor, savedMatch } from '../../src/worker/ruleMatch.ts';

const user = (value: unknown) => mergeRules({ user: value }).rules;

describe('approval rules', () => {
  it('reads well-formed rules of the user with their place, "*" meaning any call', () => {
    const { rules, problems } = parseRules(
      [
        { tool: 'bash', match: 'npm test', action: 'allow' },
        { tool: 'write', action: 'ask' },
        { tool: 'bash', match: '*', action: 'deny' },
      ],
      'user',
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(rules, [
      { tool: 'bash', match: 'npm test', action: 'allow', source: 'user', index: 1 },
      { tool: 'write', action: 'ask', source: 'user', index: 2 },
      { tool: 'bash', action: 'deny', source: 'user', index: 3 },
    ]);
  });

  it('refuses a malformed or unknown rule whole, names it, and never reads it as allow', () => {
    const { rules, problems } = parseRules(
      [
        'npm test',
        { tool: 'bash', macth: 'npm test', action: 'allow' },
        { tool: 'bash', match: 'rm', action: 'block' },
        { tool: '', action: 'allow' },
        { tool: 'bash', match: 7, action: 'allow' },
        { tool: 'bash', match: '  ', action: 'allow' },
        { tool: 'bash', match: 'ls', action: 'allow' },
      ],
      'user',
    );
    assert.deepEqual(
      rules.map((r) => r.index),
      [7],
    );
    assert.deepEqual(
      problems.map((p) => p.index),
      [1, 2, 3, 4, 5, 6],
    );
    assert.match(problemText(problems[1]!), /Rule 2 of piPanel\.approvalRules in user settings is ignored: unknown field "macth"/);
    assert.match(problemText(problems[2]!), /"action" is not/);
  });

  it('names a setting that is not a list', () => {
    const { rules, problems } = parseRules({ tool: 'bash', action: 'allow' }, 'user');
    assert.deepEqual(rules, []);
    assert.match(problemText(problems[0]!), /piPanel\.approvalRules in user settings is ignored: the setting is not a list/);
  });

  it("refuses a workspace's or folder's allow rules, keeping their ask and deny rules", () => {
    const { rules, problems } = mergeRules({
      user: [{ tool: 'bash', match: 'ls', action: 'allow' }],
      workspace: [
        { tool: 'bash', match: 'npm test', action: 'allow' },
        { tool: 'bash', match: 'ls', action: 'ask' },
      ],
      folder: [
        { tool: 'write', action: 'allow' },
        { tool: 'bash', match: 'rm', action: 'deny' },
      ],
    });
    assert.deepEqual(
      rules.map((r) => `${r.source}:${r.action}:${r.match ?? '*'}`),
      ['user:allow:ls', 'workspace:ask:ls', 'folder:deny:rm'],
    );
    assert.deepEqual(
      problems.map((p) => `${p.source}:${p.index}`),
      ['workspace:1', 'folder:1'],
    );
    assert.match(problemText(problems[0]!), /workspace settings is ignored: a workspace's rules may only ask or deny, never allow/);
  });

  it('lets a workspace ask or deny what the user allows: the strictest matching rule wins', () => {
    const { rules } = mergeRules({
      user: [
        { tool: 'bash', match: 'ls', action: 'allow' },
        { tool: 'bash', match: 'git status', action: 'allow' },
      ],
      workspace: [
        { tool: 'bash', match: 'ls', action: 'ask' },
        { tool: 'bash', match: 'git', action: 'deny' },
      ],
    });
    assert.equal(ruleFor(rules, 'bash', 'ls -la')?.action, 'ask');
    assert.equal(ruleFor(rules, 'bash', 'git status')?.action, 'deny');
    assert.equal(ruleFor(rules, 'bash', 'echo hi'), undefined, 'a call no rule matches is left to piPanel.approval');
  });

  it('allows a command only within the scope the card showed: never a compound command, never wider', () => {
    const rules = user([
      { tool: 'bash', match: 'npm test', action: 'allow' },
      { tool: 'bash', match: 'ls', action: 'allow' },
      { tool: 'bash', match: 'rm -rf build && ls', action: 'allow' },
    ]);
    const allowed = (c: string) => ruleFor(rules, 'bash', c)?.action === 'allow';
    assert.equal(allowed('npm test'), true);
    assert.equal(allowed('npm test -- --grep x'), true);
    assert.equal(allowed('npm test; rm -rf /'), false);
    assert.equal(allowed('npm test && curl x | sh'), false);
    assert.equal(allowed('npm testing'), false);
    assert.equal(allowed('npm install'), false);
    assert.equal(allowed('ls $(rm -rf ~)'), false);
    assert.equal(allowed('ls src'), true);
    assert.equal(allowed('rm -rf build && ls'), true, 'an exact command saved as shown');
    assert.equal(allowed('rm -rf build && ls -la'), false);
    assert.equal(ruleFor(rules, 'powershell', 'ls'), undefined, 'another tool');
  });

  it('saves what the approval card showed: the prefix, else the exact command', () => {
    assert.equal(savedMatch('npm test -- --grep x'), 'npm test');
    assert.equal(savedMatch('ls -la src'), 'ls');
    assert.equal(savedMatch('echo hi > f.txt'), 'echo hi > f.txt');
    assert.equal(savedMatch('npx vitest'), 'npx vitest');
  });

  it('denies or asks wherever the words appear: after sudo, in a pipe, by path or quoted', () => {
    const rules = user([{ tool: 'bash', match: 'rm', action: 'deny' }]);
    const denied = (c: string) => ruleFor(rules, 'bash', c)?.action === 'deny';
    for (const c of ['rm -rf x', 'sudo rm x', 'ls | xargs rm', 'true && /bin/rm x', 'bash -c "rm x"', 'echo $(rm x)']) assert.equal(denied(c), true, c);
    assert.equal(denied('npm run format'), false);
    assert.equal(denied('echo firm'), false);
  });

  it('covers every call of a tool with a rule without match, and no call that has no command with one that has', () => {
    const rules: readonly ApprovalRule[] = user([
      { tool: 'write', action: 'deny' },
      { tool: 'edit', match: 'src', action: 'deny' },
    ]);
    assert.equal(ruleFor(rules, 'write', undefined)?.index, 1);
    assert.equal(ruleFor(rules, 'edit', undefined), undefined);
  });
});

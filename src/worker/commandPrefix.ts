/** Which later commands an approval's "Allow for session" covers: a command prefix only where the words leave no doubt, else that exact command. */

import { t } from '../shared/l10n.ts';

/** Commands whose first word says little on its own: the prefix keeps the subcommand too (`git status`). */
const RUNNERS = new Set(['git', 'npm', 'pnpm', 'yarn', 'bun', 'cargo', 'go', 'make', 'docker', 'kubectl', 'pip', 'pip3', 'uv', 'dotnet', 'mvn', 'gradle']);

/**
 * Commands that run another command, a script or code given as an argument: a prefix would cover whatever
 * they are given next (`env X touch Y`, `timeout 1 rm …`, `find . -exec`, `node -e`, `python3 -m`, `npx pkg`).
 */
const WRAPPERS = new Set(
  (
    'env timeout nice ionice nohup sudo doas su runuser chroot setsid stdbuf unbuffer flock time watch xargs parallel exec command ' +
    'builtin eval source . bash sh zsh dash ksh fish csh tcsh busybox pwsh powershell cmd find fd strace ltrace gdb script ssh ' +
    'node nodejs deno bun npx pnpx bunx uvx pipx python python2 python3 perl ruby php lua awk gawk sed vim vi nvim emacs ' +
    'git-shell tmux screen at batch crontab systemd-run'
  ).split(' '),
);

/** A runner's subcommands that run whatever they are given next (`npm exec pkg`, `docker run image cmd`). */
const RUNNER_WRAPPERS = new Set(
  (
    'npm exec,npm x,pnpm exec,pnpm dlx,yarn dlx,yarn exec,bun x,bun exec,uv run,uv tool,go run,go generate,cargo run,' +
    'docker run,docker exec,kubectl exec,kubectl run,kubectl debug,dotnet run,git submodule'
  ).split(','),
);

/** A word made of these only reads the same to every parser: no quotes, expansions, globs, escapes or operators. */
const PLAIN_WORD = /^[A-Za-z0-9_./:@%+,=-]+$/;

/** An environment assignment before the command (`FOO=1 ls`). */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** What "Allow for session" covers for one command. */
export type CommandScope =
  /** Every later command whose words start with `prefix` and are all plain words. */
  | { readonly kind: 'prefix'; readonly prefix: string }
  /** This exact command only. */
  | { readonly kind: 'exact'; readonly command: string };

/**
 * The scope of `command`. Words are split on space and tab only, as bash splits them (a no-break space is
 * part of a word there). A prefix is given only when every word is plain, the first is not an assignment
 * or a wrapper, and a runner's subcommand is a word rather than an option (`git -C x`, `git -c k=v`).
 */
export function commandScope(command: string): CommandScope {
  const exact: CommandScope = { kind: 'exact', command };
  const words = command.replace(/^[ \t]+|[ \t]+$/g, '').split(/[ \t]+/);
  if (!words[0] || !words.every((w) => PLAIN_WORD.test(w))) return exact;
  const first = words[0];
  if (first.startsWith('-') || ASSIGNMENT.test(first) || WRAPPERS.has(baseName(first))) return exact;
  if (!RUNNERS.has(first)) return { kind: 'prefix', prefix: first };
  const second = words[1];
  if (!second || second.startsWith('-') || second.includes('=')) return exact;
  const prefix = `${first} ${second}`;
  return RUNNER_WRAPPERS.has(prefix) ? exact : { kind: 'prefix', prefix };
}

/** The prefix a simple command falls under; undefined when only the exact command can be covered. */
export function commandPrefix(command: string): string | undefined {
  const scope = commandScope(command);
  return scope.kind === 'prefix' ? scope.prefix : undefined;
}

/** The sentence the approval card shows under the command: exactly what "Allow for session" will cover. */
export function scopeText(scope: CommandScope): string {
  switch (scope.kind) {
    case 'exact':
      return t('Allow for session: this exact command only.');
    case 'prefix':
      return t(
        'Allow for session: any command whose first words are "{0}", when every word is plain (letters, digits and _ . / : @ % + , = -, separated by spaces or tabs). Quotes, $, pipes, ;, &, redirections, globs or other shell syntax are asked about again.',
        scope.prefix,
      );
    default: {
      const never: never = scope;
      return never;
    }
  }
}

/** `/usr/bin/env` is `env`: a wrapper by any path. */
function baseName(word: string): string {
  const i = word.lastIndexOf('/');
  return i >= 0 ? word.slice(i + 1) : word;
}

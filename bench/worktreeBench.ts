/**
 * Worktree chats benchmark (not a test): a synthetic git repository of 10,000 files in a temp folder. Times making a
 * worktree chat's worktree (what stands between Pi: New Chat in Worktree and the first prompt accepted), then the
 * Apply of a 100-file change set into the workspace (as uncommitted changes, then by merging the branch), each over a
 * few rounds (median and worst); the branch's rename from the first prompt counts in the time to first prompt. "stall" is the
 * longest wall-time gap between 2 ms timer ticks of this thread while it runs (the extension host's, in the product;
 * target ≤ 50 ms): git runs in child processes, so it should stay near the idle line printed first.
 *
 * Usage: node bench/worktreeBench.ts [--files 10000 --changed 100 --rounds 3]
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { nameWorktreeBranch } from '../src/extension/worktrees/branchName.ts';
import { applyWorktree, createWorktree, removeWorktree } from '../src/extension/worktrees/worktreeGit.ts';
import { mergeWorktree } from '../src/extension/worktrees/worktreeMerge.ts';
import { initRepo } from '../test/support/tempRepo.ts';
import { median, numberArg } from './stats.ts';

const FILES = numberArg('files', 10_000);
const CHANGED = numberArg('changed', 100);
const ROUNDS = numberArg('rounds', 3);
const PER_DIR = 100;

const relOf = (i: number) => `pkg${Math.floor(i / PER_DIR)}/mod${i % PER_DIR}.ts`;

function makeRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'pi-bench-wt-'));
  for (let i = 0; i < FILES; i++) {
    if (i % PER_DIR === 0) mkdirSync(join(repo, `pkg${i / PER_DIR}`));
    writeFileSync(join(repo, relOf(i)), `export const value${i} = ${i};\n`.repeat(20));
  }
  // The repository's own identity: Merge Branch commits in it.
  initRepo(repo, {}, { name: 'bench', email: 'bench@example.invalid', message: 'bench' });
  return repo;
}

/**
 * Runs `work` while a 2 ms timer measures this thread's longest stall; its wall time, that stall, and the CPU time
 * this process spent (git's child processes not counted): on a loaded machine the stall includes the scheduler's
 * delays, which the CPU time tells apart from work of this thread.
 */
async function measured(work: () => Promise<unknown>): Promise<{ ms: number; stallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  let last = performance.now();
  let stall = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 2);
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  clearInterval(tick);
  const used = process.cpuUsage(cpu);
  return { ms, stallMs: stall, cpuMs: (used.user + used.system) / 1000 };
}

const fmt = (xs: readonly number[]) => `median ${median(xs).toFixed(0)} ms, worst ${Math.max(...xs).toFixed(0)} ms`;

/** One step's rounds. */
class Samples {
  readonly ms: number[] = [];
  readonly stallMs: number[] = [];
  readonly cpuMs: number[] = [];

  readonly label: string;

  constructor(label: string) {
    this.label = label;
  }

  add(m: { ms: number; stallMs: number; cpuMs: number }): void {
    this.ms.push(m.ms);
    this.stallMs.push(m.stallMs);
    this.cpuMs.push(m.cpuMs);
  }

  toString(): string {
    return `  ${this.label}: ${fmt(this.ms)}; longest stall ${Math.max(...this.stallMs).toFixed(1)} ms (target ≤ 50); this thread's CPU median ${median(this.cpuMs).toFixed(0)} ms`;
  }
}

async function main(): Promise<void> {
  const idle = await measured(() => new Promise((r) => setTimeout(r, 500)));
  console.log(`worktree bench: ${FILES} files, ${CHANGED} changed for Apply, ${ROUNDS} rounds; idle stall ${idle.stallMs.toFixed(1)} ms`);
  const repo = makeRepo();
  const folder = mkdtempSync(join(tmpdir(), 'pi-bench-wt-trees-'));
  const create = new Samples(`worktree ready (git worktree add of ${FILES} files)`);
  const rename = new Samples('branch named from the first prompt (git branch -m)');
  const apply = new Samples(`apply ${CHANGED} files as uncommitted changes`);
  const merge = new Samples(`merge the branch of ${CHANGED} files`);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      let wt: Awaited<ReturnType<typeof createWorktree>> | undefined;
      create.add(
        await measured(async () => {
          wt = await createWorktree({ dir: repo, folder, carry: false });
        }),
      );
      // The first prompt names the branch: it runs while the prompt is sent, on the same thread.
      rename.add(
        await measured(async () => {
          wt = await nameWorktreeBranch(wt!, `Change ${CHANGED} modules, round ${round}`);
        }),
      );
      const info = wt!;
      for (let i = 0; i < CHANGED; i++) writeFileSync(join(info.path, relOf(i * Math.floor(FILES / CHANGED))), `export const changed${round}_${i} = true;\n`);
      apply.add(await measured(() => applyWorktree(info, repo)));
      execFileSync('git', ['checkout', '-q', '--', '.'], { cwd: repo });
      merge.add(await measured(() => mergeWorktree(info, repo, `Bench ${round}`)));
      await removeWorktree(info);
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  }
  for (const samples of [create, rename, apply, merge]) console.log(String(samples));
}

await main();

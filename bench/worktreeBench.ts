/**
 * Worktree chats benchmark (not a test): a synthetic git repository of 10,000 files in a temp folder. Times making a
 * worktree chat's worktree (what stands between Pi: New Chat in Worktree and the first prompt accepted), then the
 * Apply of a 100-file change set into the workspace, each over a few rounds (median and worst). "stall" is the
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
import { applyWorktree, createWorktree, removeWorktree } from '../src/extension/worktrees/worktreeGit.ts';
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
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'bench');
  return repo;
}

/** Runs `work` while a 2 ms timer measures this thread's longest stall; its wall time and that stall. */
async function measured(work: () => Promise<unknown>): Promise<{ ms: number; stallMs: number }> {
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
  return { ms, stallMs: stall };
}

const fmt = (xs: readonly number[]) => `median ${median(xs).toFixed(0)} ms, worst ${Math.max(...xs).toFixed(0)} ms`;

async function main(): Promise<void> {
  const idle = await measured(() => new Promise((r) => setTimeout(r, 500)));
  console.log(`worktree bench: ${FILES} files, ${CHANGED} changed for Apply, ${ROUNDS} rounds; idle stall ${idle.stallMs.toFixed(1)} ms`);
  const repo = makeRepo();
  const folder = mkdtempSync(join(tmpdir(), 'pi-bench-wt-trees-'));
  const create: number[] = [];
  const createStall: number[] = [];
  const apply: number[] = [];
  const applyStall: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      let info: Awaited<ReturnType<typeof createWorktree>> | undefined;
      const made = await measured(async () => {
        info = await createWorktree({ dir: repo, folder, carry: false });
      });
      create.push(made.ms);
      createStall.push(made.stallMs);
      const wt = info!;
      for (let i = 0; i < CHANGED; i++) writeFileSync(join(wt.path, relOf(i * Math.floor(FILES / CHANGED))), `export const changed${round}_${i} = true;\n`);
      const applied = await measured(() => applyWorktree(wt, repo));
      apply.push(applied.ms);
      applyStall.push(applied.stallMs);
      await removeWorktree(wt);
      execFileSync('git', ['checkout', '-q', '--', '.'], { cwd: repo });
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  }
  console.log(`  worktree ready (git worktree add of ${FILES} files): ${fmt(create)}; longest stall ${Math.max(...createStall).toFixed(1)} ms (target ≤ 50)`);
  console.log(`  apply ${CHANGED} files: ${fmt(apply)}; longest stall ${Math.max(...applyStall).toFixed(1)} ms (target ≤ 50)`);
}

await main();

/** What the body asks of the block it streams unit by unit (a paragraph, list, table, fence or quote), and the definitions each render reads. */

import type { MdEnv } from '../markdown.ts';

/** An open block's answer: still open (undefined), ended where the next block starts, or render it again. */
export type Step = number | 'reset' | undefined;

/** The last top-level block of a streaming body, rendered by units as its text grows. */
export interface OpenBlock {
  /** This block's top-level nodes in the body. */
  readonly nodes: ChildNode[];
  /** Whether a link reference definition found later could change it. */
  readonly refs: boolean;
  /** How many link reference definitions its rendering knew. */
  labels: number;
  /** Renders what changed in `src` (the whole body's text) and says whether the block goes on. */
  update(src: string, final: boolean): Step;
  /** Removes what it showed beyond its own nodes. */
  drop(): void;
}

/** What every unit-wise block keeps: its nodes and how many definitions its rendering knew. */
export abstract class UnitBlock implements OpenBlock {
  readonly nodes: ChildNode[];
  abstract readonly refs: boolean;
  labels = 0;

  constructor(nodes: ChildNode[]) {
    this.nodes = nodes;
  }

  abstract update(src: string, final: boolean): Step;

  drop(): void {}
}

/**
 * The definitions known so far, for one parse or render: markdown-it adds the definitions it meets to the
 * environment it is given, and only those on finished lines may join the shared ones.
 */
export function envOf(env: Required<MdEnv>): Required<MdEnv> {
  return { references: { ...env.references } };
}

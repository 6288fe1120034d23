// The shape of bench/results/latest.json: what the report and the load model read.
import type { Outcome } from '../targets.ts';
import type { CaseResult } from './case.ts';
import type { Machine } from './machine.ts';
import type { MergedRun } from './merge.ts';

export type TargetResult = Outcome & { id: string; text: string };

export type BenchResults = {
  generatedAt: string;
  quick: boolean;
  only: string[] | null;
  /** Wall-clock time of the whole run, bundling and start-up included. */
  seconds: number;
  machine: Machine;
  /** Other work on the machine shows here: load average (1, 5, 15 min) when the run ended. */
  loadAverageAtEnd: number[];
  /** Facts cases learned on the way (bytes per D1 row, how the service stored a file, …). */
  facts: Record<string, number | string>;
  cases: CaseResult[];
  targets: TargetResult[];
  /**
   * Partial runs merged in afterwards (`--render --merge FILE`): their cases replaced those of the
   * same id (or were added), and their targets likewise.
   */
  merged?: MergedRun[];
};

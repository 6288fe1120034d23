// The shape of bench/results/latest.json: what the report and the load model read.
import type { Outcome } from '../targets.ts';
import type { CaseResult } from './case.ts';
import type { Machine } from './machine.ts';

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
  merged?: { cases: string[]; generatedAt: string; seconds: number; loadAverageAtEnd: number[] }[];
};

/**
 * `results` with a later partial (not quick) run's cases and targets in place of those of the same
 * id, new ones added where the case list has them; the run is noted under `merged`.
 */
export function mergeResults(results: BenchResults, partial: BenchResults, order: string[]): BenchResults {
  if (partial.quick) throw new Error('a quick run is not merged into the results: its sizes are not the report’s');
  const ids = new Set(partial.cases.map((entry) => entry.id));
  const rank = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
  const cases = [...results.cases.filter((entry) => !ids.has(entry.id)), ...partial.cases].sort(
    (a, b) => rank(a.id) - rank(b.id),
  );
  const targetIds = new Set(partial.targets.map((target) => target.id));
  return {
    ...results,
    facts: { ...results.facts, ...partial.facts },
    cases,
    targets: [...results.targets.filter((target) => !targetIds.has(target.id)), ...partial.targets],
    merged: [
      ...(results.merged ?? []),
      {
        cases: [...ids],
        generatedAt: partial.generatedAt,
        seconds: partial.seconds,
        loadAverageAtEnd: partial.loadAverageAtEnd,
      },
    ],
  };
}

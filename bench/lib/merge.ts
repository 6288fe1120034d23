// Merging a partial run (`npm run bench -- --only …`) into the full run's results, for
// `--render --merge FILE`. No imports: the node tests load it without the bench's runtime.

/** A partial run merged in: its cases, when it ran, how long, and the machine's load at its end. */
export type MergedRun = { cases: string[]; generatedAt: string; seconds: number; loadAverageAtEnd: number[] };

/** The parts of BenchResults (./results.ts) a merge reads and writes. */
type Mergeable = {
  generatedAt: string;
  quick: boolean;
  seconds: number;
  loadAverageAtEnd: number[];
  facts: Record<string, number | string>;
  cases: { id: string }[];
  targets: { id: string }[];
  merged?: MergedRun[];
};

/**
 * `results` with a later partial (not quick) run's cases and targets in place of those of the same
 * id, new ones added where the case list has them; the run is noted under `merged`.
 */
export function mergeResults<R extends Mergeable>(results: R, partial: R, order: string[]): R {
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

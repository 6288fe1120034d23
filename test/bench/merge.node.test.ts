// `npm run bench -- --render --merge FILE`: a partial run's cases and targets take the place of
// those of the same id in the full run's results, in the case list's order, and the run is noted.
import { expect, it } from 'vitest';
import { type MergedRun, mergeResults } from '../../bench/lib/merge.ts';

type Results = {
  generatedAt: string;
  quick: boolean;
  only: string[] | null;
  seconds: number;
  loadAverageAtEnd: number[];
  facts: Record<string, number | string>;
  cases: { id: string; seconds: number }[];
  targets: { id: string; value: number }[];
  merged?: MergedRun[];
};
const caseOf = (id: string, seconds: number) => ({ id, seconds });
const targetOf = (id: string, value: number) => ({ id, value });

function results(fields: Partial<Results>): Results {
  return {
    generatedAt: '2026-11-01T00:00:00.000Z',
    quick: false,
    only: null,
    seconds: 600,
    loadAverageAtEnd: [1, 1, 1],
    facts: { kept: 1, replaced: 1 },
    cases: [],
    targets: [],
    ...fields,
  };
}

it('replaces the cases and targets of the same id, adds new ones in the case list’s order, and notes the run', () => {
  const full = results({
    cases: [caseOf('upload', 1), caseOf('download', 2), caseOf('list', 3)],
    targets: [targetOf('upload.throughput', 1), targetOf('download.throughput', 2)],
  });
  const partial = results({
    generatedAt: '2026-11-02T00:00:00.000Z',
    only: ['download', 'e2e'],
    loadAverageAtEnd: [5, 4, 3],
    facts: { replaced: 2, added: 3 },
    cases: [caseOf('download', 20), caseOf('e2e', 30)],
    targets: [targetOf('download.throughput', 20), targetOf('e2e.throughput', 30)],
  });
  const merged = mergeResults<Results>(full, partial, ['upload', 'download', 'e2e', 'list']);
  expect(merged.cases.map((entry) => [entry.id, entry.seconds])).toEqual([
    ['upload', 1],
    ['download', 20],
    ['e2e', 30],
    ['list', 3],
  ]);
  expect(merged.targets.map((target) => [target.id, target.value])).toEqual([
    ['upload.throughput', 1],
    ['download.throughput', 20],
    ['e2e.throughput', 30],
  ]);
  expect(merged.facts).toEqual({ kept: 1, replaced: 2, added: 3 });
  expect(merged.generatedAt).toBe(full.generatedAt);
  expect(merged.merged).toEqual([
    { cases: ['download', 'e2e'], generatedAt: partial.generatedAt, seconds: 600, loadAverageAtEnd: [5, 4, 3] },
  ]);
});

it('refuses a quick run: its sizes are not the report’s', () => {
  expect(() => mergeResults(results({}), results({ quick: true }), [])).toThrow(/quick/);
});

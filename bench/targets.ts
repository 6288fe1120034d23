// The targets, evaluated on one run's results. They are reported as met or missed with
// the factor, never asserted: a missed target is a finding for the report, not a failure.
import type { CaseResult, VariantResult } from './lib/case.ts';
import { median } from './lib/stats.ts';

export type Outcome = {
  /** The measured ratio (or factor) the goal is about: ratio of the two medians. */
  value: number;
  /** The median of the per-round ratios (same round, baseline and service side by side). */
  perRound: number;
  goal: number;
  op: '>=' | '<=';
  met: boolean;
  /** What was compared with what. */
  compared: string;
  /** The two medians behind the ratio, with their unit. */
  medians: [number, number];
  unit: string;
};

export type Target = {
  id: string;
  text: string;
  evaluate: (results: Map<string, CaseResult>) => Outcome | undefined;
};

/** Memory growth under 1 MiB is sampling noise: count it as 1 MiB in memory ratios. */
export const MEMORY_FLOOR_MIB = 1;

const UNITS: Record<string, string> = { mibPerS: 'MiB/s', memGrowthMiB: 'MiB', rps: 'req/s', p50: 'ms', ms: 'ms' };

function variant(results: Map<string, CaseResult>, caseId: string, variantId: string): VariantResult | undefined {
  return results.get(caseId)?.variants.find((entry) => entry.id === variantId);
}

function values(result: VariantResult, metric: string, floor = 0): number[] {
  return result.runs.map((run) => Math.max(floor, run[metric] ?? Number.NaN));
}

/** a / b on one metric: the ratio of medians and the median of the per-round ratios. */
function compare(
  a: VariantResult,
  b: VariantResult,
  metric: string,
  goal: number,
  op: Outcome['op'],
  floor = 0,
  compared = `${a.label} / ${b.label}`,
): Outcome {
  const av = values(a, metric, floor);
  const bv = values(b, metric, floor);
  const value = median(av) / median(bv);
  const perRound = median(av.map((x, i) => x / (bv[i] ?? Number.NaN)));
  const met = op === '>=' ? value >= goal : value <= goal;
  return { value, perRound, goal, op, met, compared, medians: [median(av), median(bv)], unit: UNITS[metric] ?? '' };
}

/** The service variant against the baseline the case decided it compares with (`versus`). */
function serviceVersus(results: Map<string, CaseResult>, caseId: string, serviceId = 'service') {
  const service = variant(results, caseId, serviceId);
  const baseline = service?.versus ? variant(results, caseId, service.versus) : undefined;
  return service && baseline ? { service, baseline } : undefined;
}

const UPLOAD_CASES = ['upload-1mib', 'upload-50mib', 'upload-300mib'];

export const TARGETS: Target[] = [
  ...UPLOAD_CASES.flatMap((caseId): Target[] => [
    {
      id: `${caseId}.throughput`,
      text: `${caseId}: throughput ≥ 0.8× the bare stream-to-R2 Worker of the same storage kind`,
      evaluate: (results) => {
        const pair = serviceVersus(results, caseId);
        return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.8, '>=');
      },
    },
    {
      id: `${caseId}.memory`,
      text: `${caseId}: workerd peak memory growth ≤ 1.3× the same baseline's`,
      evaluate: (results) => {
        const pair = serviceVersus(results, caseId);
        return pair && compare(pair.service, pair.baseline, 'memGrowthMiB', 1.3, '<=', MEMORY_FLOOR_MIB);
      },
    },
  ]),
  // The raw-body upload (hashed) against the bare single put it is built like.
  ...['digest-1mib', 'digest-50mib', 'digest-300mib'].map(
    (caseId): Target => ({
      id: `${caseId}.raw-throughput`,
      text: `${caseId}: raw upload (PUT, hashed) throughput ≥ 0.8× the bare Worker's single put()`,
      evaluate: (results) => {
        const pair = serviceVersus(results, caseId);
        return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.8, '>=');
      },
    }),
  ),
  {
    id: 'upload.memory-flat',
    text: 'upload: the service’s memory growth flat in file size (300 MiB ≤ 1.3× 50 MiB)',
    evaluate: (results) => {
      const large = variant(results, 'upload-300mib', 'service');
      const medium = variant(results, 'upload-50mib', 'service');
      return (
        large &&
        medium &&
        compare(large, medium, 'memGrowthMiB', 1.3, '<=', MEMORY_FLOOR_MIB, 'service at 300 MiB / service at 50 MiB')
      );
    },
  },
  // tus (resumable uploads): chunking must not cost much against the one request it replaces.
  ...[10, 50].flatMap((chunk): Target[] => [
    {
      id: `tus-300mib.throughput-${chunk}`,
      text: `tus-300mib: throughput in ${chunk} MiB chunks ≥ 0.8× the single-request upload`,
      evaluate: (results) => {
        const pair = serviceVersus(results, 'tus-300mib', `tus-${chunk}mib`);
        return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.8, '>=');
      },
    },
    {
      id: `tus-300mib.memory-${chunk}`,
      text: `tus-300mib: workerd peak memory growth in ${chunk} MiB chunks ≤ 1.3× the single-request upload’s`,
      evaluate: (results) => {
        const pair = serviceVersus(results, 'tus-300mib', `tus-${chunk}mib`);
        return pair && compare(pair.service, pair.baseline, 'memGrowthMiB', 1.3, '<=', MEMORY_FLOOR_MIB);
      },
    },
  ]),
  {
    id: 'download-300mib.throughput',
    text: 'download-300mib: throughput ≥ 0.9× the bare R2 stream of an object stored the same way',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'download-300mib');
      return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.9, '>=');
    },
  },
  ...['get-c10', 'get-c50'].map(
    (caseId): Target => ({
      id: `${caseId}.rps`,
      text: `${caseId}: requests/s ≥ 0.8× one DO call + one D1 read`,
      evaluate: (results) => {
        const pair = serviceVersus(results, caseId);
        return pair && compare(pair.service, pair.baseline, 'rps', 0.8, '>=');
      },
    }),
  ),
  ...[1, 1000, 2000].map(
    (page): Target => ({
      id: `list.p${page}`,
      text: `list: page ${page} of the 20,000-file key within 1.5× page 1 of the 100-file key (p50 latency)`,
      evaluate: (results) => {
        const pair = serviceVersus(results, 'list', `large-p${page}`);
        return pair && compare(pair.service, pair.baseline, 'p50', 1.5, '<=');
      },
    }),
  ),
  {
    id: 'bulk.speedup',
    text: 'bulk: 10 × 1 MiB in one request ≥ 2× faster than 10 sequential uploads',
    evaluate: (results) => {
      const bulk = variant(results, 'bulk', 'bulk');
      const sequential = variant(results, 'bulk', 'sequential');
      return bulk && sequential && compare(sequential, bulk, 'ms', 2, '>=', 0, 'sequential time / bulk time');
    },
  },
];

/** "missed by 23 %": how far the value is from the goal, relative to the goal. */
export function shortfall(outcome: Outcome): string {
  const off = outcome.op === '>=' ? 1 - outcome.value / outcome.goal : outcome.value / outcome.goal - 1;
  return `${Math.round(off * 100)} % ${outcome.op === '>=' ? 'short of' : 'over'} the goal`;
}

// What a benchmark case is, and how its repetitions are run: interleaved, one variant after
// another in each round (baseline, service, baseline, service, …), each watched through /proc.
import type { Clamd } from '../../scripts/clamd.ts';
import { cpuMs, probe } from './proc.ts';
import type { BenchWorker } from './runtime.ts';
import { type Summary, summarize } from './stats.ts';
import type { Reply, send } from './transfer.ts';

/** Numbers one repetition of one variant produced, by metric name. */
export type Metrics = Record<string, number>;

/** baseline: a tiny reference Worker; service: edgeshare; peer: shown beside, never a target. */
export type Role = 'baseline' | 'service' | 'peer';

/**
 * serviceNoEvents: edgeshare as built, started without its EVENTS queue producer (events are
 * skipped); serviceNoAccessLog: the same bundle with ACCESS_LOG=off (nothing recorded).
 * serviceNoCrc32: edgeshare bundled with node:zlib's crc32 replaced by one that reads nothing
 * (bench/lib/no-crc32.ts). serviceBlocklist: the service's bundle with its own state, for a blocklist
 * of its own (bench/cases/blocklist.ts). These start only for the cases that name them (BenchCase.workers),
 * as does zipStream (bench/workers/zip-stream: the archive's baselines, objects back to back and
 * client-zip). serviceScanning: the service's bundle with SCANNER naming the run's clamd (its scan
 * queue's consumer scans); clamdStream: the bare scan (bench/workers/clamd-stream). Both start only
 * for the cases that name them, with a clamd the run starts first (scripts/clamd.ts).
 */
export type WorkerId =
  | 'service'
  | 'serviceNoEvents'
  | 'serviceNoCrc32'
  | 'serviceNoAccessLog'
  | 'serviceBlocklist'
  | 'r2'
  | 'tutorial'
  | 'doD1'
  | 'zipStream'
  | 'serviceScanning'
  | 'clamdStream';

/** The workers a run starts only when one of its cases names them. */
export const ON_DEMAND_WORKERS: readonly WorkerId[] = [
  'serviceNoCrc32',
  'serviceNoAccessLog',
  'serviceBlocklist',
  'zipStream',
  'serviceScanning',
  'clamdStream',
];

/** The workers that reach the run's clamd (started only for them): the service scanning, and the bare scan. */
export const CLAMD_WORKERS: readonly WorkerId[] = ['serviceScanning', 'clamdStream'];

export type Rep = {
  /** What the variant measured itself (throughput, latency, …). */
  metrics: Metrics;
  /** Untimed clean-up after the repetition (delete what it stored); may add metrics. */
  cleanup?: () => Promise<Metrics | undefined>;
};

export type Variant = {
  id: string;
  label: string;
  role: Role;
  /** The workerd process to watch while it runs. */
  worker: WorkerId;
  /**
   * The variant this one is compared with (its ratios), decided after the rounds from its own
   * runs where it depends on them (e.g. how the service stored a file).
   */
  versus?: string | ((runs: Metrics[]) => string);
  /** Untimed, after a fresh process started: a small request down the same path, so code is compiled. */
  warm?: () => Promise<void>;
  run: () => Promise<Rep>;
};

export type MetricSpec = {
  name: string;
  label: string;
  unit: string;
  /** Which way is better; decides nothing, helps readers. */
  better: 'higher' | 'lower';
  digits?: number;
};

/** The edgeshare instances a key can be made in. */
export type ServiceId =
  | 'service'
  | 'serviceNoEvents'
  | 'serviceNoCrc32'
  | 'serviceNoAccessLog'
  | 'serviceBlocklist'
  | 'serviceScanning';

/** Everything a case may use while preparing its variants. */
export type BenchContext = {
  workers: Record<WorkerId, BenchWorker>;
  /** The service's API key (Bearer) for the cases' requests. */
  apiKey: string;
  createApiKey: (name: string, on?: ServiceId) => Promise<{ id: string; key: string }>;
  /** A request to an instance's /admin/* with the run's admin token (which the case never sees). */
  admin: (on: ServiceId, path: string, init: Parameters<typeof send>[1]) => Promise<Reply>;
  tmpDir: string;
  /** The clamd the run started for the scanning cases (CLAMD_WORKERS), if any. */
  clamd?: Clamd;
  /** Facts a case learns on the way (e.g. bytes per D1 row), kept in the results for the load model. */
  facts: Record<string, number | string>;
};

export type BenchCase = {
  id: string;
  title: string;
  /**
   * What is sent, how, what is measured: one or two sentences, or, when longer, a list of short
   * bullets (one fact each, about two lines at most), shown as a list under the case's heading.
   */
  description: string | string[];
  reps: number;
  /** Workers of ON_DEMAND_WORKERS this case needs (the others every run starts). */
  workers?: WorkerId[];
  /**
   * Each repetition in a fresh workerd process (restarted, then warmed): for memory figures,
   * which in a long-lived process depend on what earlier requests left allocated.
   */
  freshProcess?: boolean;
  /**
   * Milliseconds to wait after each repetition (then until workerd is idle) before the next: for
   * cases whose requests leave work behind that would land in the next variant's figures (the
   * events queue's consumer, which the runtime calls up to a second after a send).
   */
  settleMs?: number;
  metrics: MetricSpec[];
  /** Untimed preparation (files, seeds, uploads to read back); returns the variants in round order. */
  prepare: (ctx: BenchContext) => Promise<Variant[]>;
  /** After the last round, or a failure: what the case started (a browser), stopped. */
  teardown?: () => Promise<void>;
};

/** Metrics every variant gets from the harness: workerd's CPU time and peak memory growth. */
export const PROBE_METRICS: MetricSpec[] = [
  { name: 'memGrowthMiB', label: 'workerd peak RSS growth', unit: 'MiB', better: 'lower', digits: 1 },
  { name: 'cpuMs', label: 'workerd CPU', unit: 'ms', better: 'lower', digits: 0 },
];

export type VariantResult = {
  id: string;
  label: string;
  role: Role;
  worker: WorkerId;
  versus: string | undefined;
  runs: Metrics[];
  summary: Record<string, Summary>;
};

export type CaseResult = {
  id: string;
  title: string;
  description: string | string[];
  reps: number;
  metrics: MetricSpec[];
  /** Variant ids in the order they ran within each round. */
  order: string[];
  variants: VariantResult[];
  seconds: number;
};

export async function runCase(
  benchCase: BenchCase,
  ctx: BenchContext,
  log: (line: string) => void,
): Promise<CaseResult> {
  const started = performance.now();
  try {
    return await runRounds(benchCase, ctx, log, started);
  } finally {
    await benchCase.teardown?.();
  }
}

async function runRounds(
  benchCase: BenchCase,
  ctx: BenchContext,
  log: (line: string) => void,
  started: number,
): Promise<CaseResult> {
  const reps = benchCase.reps;
  const variants = await benchCase.prepare(ctx);
  const runs = new Map<string, Metrics[]>(variants.map((variant) => [variant.id, []]));
  for (let round = 1; round <= reps; round++) {
    for (const variant of variants) {
      const worker = ctx.workers[variant.worker];
      if (benchCase.freshProcess) {
        await worker.restart();
        await variant.warm?.();
      }
      const [rep, probed] = await probe(worker.pid, variant.run);
      const extra = (await rep.cleanup?.()) ?? {};
      if (benchCase.settleMs) await settle(worker.pid, benchCase.settleMs);
      const metrics: Metrics = { ...rep.metrics, ...extra, cpuMs: probed.cpuMs, memGrowthMiB: probed.memGrowthMiB };
      // CPU per unit of work, where the variant says how much work it did.
      if (metrics.requests) metrics.cpuMsPerRequest = probed.cpuMs / metrics.requests;
      if (metrics.mib) metrics.cpuMsPerMiB = probed.cpuMs / metrics.mib;
      runs.get(variant.id)?.push(metrics);
      const shown = benchCase.metrics
        .slice(0, 2)
        .map((spec) => `${spec.name}=${metrics[spec.name]?.toFixed(spec.digits ?? 1)}`)
        .join(' ');
      log(`  ${benchCase.id} #${round} ${variant.id}: ${shown} mem+${probed.memGrowthMiB.toFixed(1)}MiB`);
    }
  }
  return {
    id: benchCase.id,
    title: benchCase.title,
    description: benchCase.description,
    reps,
    // Memory growth means something only from a fresh process; it stays in the runs either way.
    metrics: [
      ...benchCase.metrics,
      ...PROBE_METRICS.filter((spec) => benchCase.freshProcess || spec.name !== 'memGrowthMiB'),
    ],
    order: variants.map((variant) => variant.id),
    variants: variants.map((variant) => {
      const values = runs.get(variant.id) ?? [];
      const names = [...new Set(values.flatMap((metrics) => Object.keys(metrics)))];
      return {
        id: variant.id,
        label: variant.label,
        role: variant.role,
        worker: variant.worker,
        versus: typeof variant.versus === 'function' ? variant.versus(values) : variant.versus,
        runs: values,
        summary: Object.fromEntries(
          names.map((name) => [name, summarize(values.map((metrics) => metrics[name] ?? Number.NaN))]),
        ),
      };
    }),
    seconds: (performance.now() - started) / 1000,
  };
}

/** Waits `ms`, then until workerd has spent under 2 ms of CPU in 200 ms (at most 5 s more). */
async function settle(pid: number, ms: number): Promise<void> {
  await sleep(ms);
  const deadline = performance.now() + 5000;
  let before = cpuMs(pid);
  while (performance.now() < deadline) {
    await sleep(200);
    const now = cpuMs(pid);
    if (now - before < 2) return;
    before = now;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

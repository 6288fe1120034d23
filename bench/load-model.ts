// npm run bench:model — a small load model: where edgeshare's design stops as keys (users) grow.
// It reads the measured per-operation costs from bench/results/latest.json, combines them with the
// platform's published limits and with the operation mix below, and writes its tables into
// docs/scaling.md between the load-model markers (also printed). `npm run bench` runs it too.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResults } from './lib/results.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = join(ROOT, 'bench/results/latest.json');
const SCALING_DOC = join(ROOT, 'docs/scaling.md');
const BEGIN = '<!-- load-model:begin -->';
const END = '<!-- load-model:end -->';

/**
 * Published platform limits (Cloudflare docs, 2026-11); docs/scaling.md cites them. A Durable
 * Object's throughput is modelled at about 500 requests/s sustained: Cloudflare's guidance puts
 * an object's soft limit "around 500 to 1,000 requests per second", depending on the work each
 * does (developers.cloudflare.com/durable-objects/platform/limits/), so the model takes the low end.
 */
export const PLATFORM = {
  d1MaxBytes: 10e9,
  d1DatabasesPerAccount: 50_000,
  doRequestsPerSecondPerObject: 500,
  requestBodyBytes: { freePro: 100e6, business: 200e6, enterprise: 5e9 },
  r2MaxParts: 10_000,
};

/**
 * Operations one API request makes, as the code stands (read from src/, 2026-11-29): D1 queries
 * (a key is looked up in D1 once per isolate, then known; list is one statement reading its
 * total from key_stats), Durable Object calls (one authorize call checks the key, counts the
 * request and, for an upload, holds storage; an upload also commits to the key's account, a
 * delete gives bytes back) and R2 calls. Keep in step with src/.
 */
export const OPERATION_MIX: Record<
  string,
  { d1Reads: number; d1Writes: number; doCalls: number; r2: string; scansKeyFiles?: boolean }
> = {
  'GET /files/:id': { d1Reads: 1, d1Writes: 0, doCalls: 1, r2: '—' },
  'GET /files (list)': { d1Reads: 1, d1Writes: 0, doCalls: 1, r2: '—' },
  'GET /files/:id/download': { d1Reads: 0, d1Writes: 1, doCalls: 1, r2: '1 read (class B)' },
  // The one read: the hash blocklist's lookup (one IN list for all of a request's files).
  'POST /upload (≤ 8 MiB)': { d1Reads: 1, d1Writes: 1, doCalls: 2, r2: '1 put (class A)' },
  // With a Content-Length, the admitting call grants the whole body: no further quota calls.
  'POST /upload (300 MiB)': {
    d1Reads: 1,
    d1Writes: 1,
    doCalls: 2,
    r2: '40: create, 38 parts of 8 MiB, complete (class A)',
  },
  'DELETE /files/:id': { d1Reads: 0, d1Writes: 1, doCalls: 2, r2: '1 delete (free)' },
};

/** Assumed traffic: the share of each request kind (sums to 1). An assumption, not a measurement. */
export const TRAFFIC_SHARE: Record<string, number> = {
  'GET /files/:id': 0.3,
  'GET /files (list)': 0.3,
  'GET /files/:id/download': 0.3,
  'POST /upload (≤ 8 MiB)': 0.08,
  'DELETE /files/:id': 0.02,
};

/** Assumed per-key behaviour for the growth table. */
export const ASSUMED = { filesPerKey: 1_000, requestsPerKeyPerDay: 2_000, apiKeyRowBytes: 300, shardFill: 0.8 };

type Costs = {
  d1ReadMs: number;
  d1WriteMs: number;
  doCallMs: number;
  bytesPerFileRow: number;
  /** What each of a key's files adds to a list request (the list counts every live row of the key). */
  listMsPerFile: number;
};

function caseMedian(results: BenchResults, caseId: string, variant: string, metric: string): number {
  const found = results.cases.find((entry) => entry.id === caseId)?.variants.find((entry) => entry.id === variant);
  return found?.summary[metric]?.median ?? Number.NaN;
}

export function measuredCosts(results: BenchResults): Costs {
  return {
    d1ReadMs: caseMedian(results, 'costs', 'd1-read', 'msPerOp'),
    d1WriteMs: caseMedian(results, 'costs', 'd1-write', 'msPerOp'),
    doCallMs: caseMedian(results, 'costs', 'do-call', 'msPerOp'),
    bytesPerFileRow: Number(results.facts.d1BytesPerFileRow ?? Number.NaN),
    listMsPerFile:
      (caseMedian(results, 'list', 'large-p1', 'p50') - caseMedian(results, 'list', 'small-p1', 'p50')) /
      (Number(results.facts['list.largeKeyFiles']) - Number(results.facts['list.smallKeyFiles'])),
  };
}

const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–');
const dec = (value: number, digits = 2) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const gb = (bytes: number) => `${dec(bytes / 1e9, bytes < 1e9 ? 3 : 1)} GB`;

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

type Ops = (typeof OPERATION_MIX)[string];

/** D1 time one request of this kind keeps the database busy, at the measured costs. */
function d1Time(ops: Ops, costs: Costs): number {
  const scan = ops.scansKeyFiles ? ASSUMED.filesPerKey * costs.listMsPerFile : 0;
  return ops.d1Reads * costs.d1ReadMs + ops.d1Writes * costs.d1WriteMs + scan;
}

/** D1 time (all of it, and the primary's writes) of the average request under TRAFFIC_SHARE. */
function averageRequest(costs: Costs) {
  let d1Ms = 0;
  let primaryMs = 0;
  for (const [kind, share] of Object.entries(TRAFFIC_SHARE)) {
    const ops = OPERATION_MIX[kind];
    if (!ops) continue;
    d1Ms += share * d1Time(ops, costs);
    primaryMs += share * ops.d1Writes * costs.d1WriteMs;
  }
  return { d1Ms, primaryMs };
}

export function renderModel(results: BenchResults): string {
  const costs = measuredCosts(results);
  const average = averageRequest(costs);
  // A D1 database runs one query at a time: its capacity is 1 s of busy time per second.
  const dbRps = 1000 / average.d1Ms;
  const primaryRps = 1000 / average.primaryMs;
  const perKeyRps = Math.min(PLATFORM.doRequestsPerSecondPerObject, 1000 / costs.doCallMs);
  const rowBytes = costs.bytesPerFileRow;
  const keysPerDatabase =
    (PLATFORM.d1MaxBytes * ASSUMED.shardFill) / (ASSUMED.filesPerKey * rowBytes + ASSUMED.apiKeyRowBytes);

  const inputs = table(
    ['measured input (local runtime)', 'value', 'from'],
    [
      ['D1 read by primary key', `${dec(costs.d1ReadMs, 3)} ms`, '`costs` case, d1-read'],
      ['D1 write by primary key', `${dec(costs.d1WriteMs, 3)} ms`, '`costs` case, d1-write'],
      ['Durable Object call (one storage read + write)', `${dec(costs.doCallMs, 3)} ms`, '`costs` case, do-call'],
      [
        'D1 bytes per file row (indexes included)',
        `${int(rowBytes)} B`,
        '`list` case: database size before and after seeding',
      ],
      [
        'list request: time added per file of the key',
        `${dec(costs.listMsPerFile * 1000, 2)} µs`,
        '`list` case: p50 of page 1, large key minus small key, per extra file',
      ],
      [
        'edgeshare GET /api/v2/files/:id, 50 connections',
        `${int(caseMedian(results, 'get-c50', 'service', 'rps'))} req/s, ${dec(caseMedian(results, 'get-c50', 'service', 'cpuMsPerRequest'))} ms workerd CPU each`,
        '`get-c50` case',
      ],
    ],
  );

  const mix = table(
    ['request', 'D1 reads', 'D1 writes', 'DO calls', 'R2', 'D1 time at measured costs', 'share of traffic (assumed)'],
    Object.entries(OPERATION_MIX).map(([kind, ops]) => [
      kind,
      String(ops.d1Reads),
      String(ops.d1Writes),
      String(ops.doCalls),
      ops.r2,
      `${dec(d1Time(ops, costs))} ms${ops.scansKeyFiles ? ` (at ${int(ASSUMED.filesPerKey)} files)` : ''}`,
      TRAFFIC_SHARE[kind] === undefined ? '—' : `${Math.round((TRAFFIC_SHARE[kind] ?? 0) * 100)} %`,
    ]),
  );

  const ceilings = table(
    ['limit', 'ceiling', 'how it is computed'],
    [
      [
        'requests/s per key (its one Durable Object)',
        int(perKeyRps),
        `min(${int(PLATFORM.doRequestsPerSecondPerObject)} req/s per object, 1000 / ${dec(costs.doCallMs, 3)} ms per call)`,
      ],
      [
        'requests/s for all keys, one D1 database, no read replication',
        int(dbRps),
        `1000 / ${dec(average.d1Ms, 3)} ms of D1 time per average request`,
      ],
      [
        'requests/s for all keys, one D1 primary, reads on replicas (Sessions API)',
        int(primaryRps),
        `1000 / ${dec(average.primaryMs, 3)} ms of writes per average request`,
      ],
      [
        `keys per 10 GB database (${int(ASSUMED.filesPerKey)} files per key, filled to ${Math.round(ASSUMED.shardFill * 100)} %)`,
        int(keysPerDatabase),
        `${gb(PLATFORM.d1MaxBytes * ASSUMED.shardFill)} / (${int(ASSUMED.filesPerKey)} × ${int(rowBytes)} B + ${ASSUMED.apiKeyRowBytes} B)`,
      ],
      [
        'largest single-request upload',
        '100 MB / 200 MB / up to 5 GB',
        'Cloudflare request body limit (Free–Pro / Business / Enterprise, raised in the dashboard)',
      ],
    ],
  );

  const growth = table(
    [
      'keys (users)',
      'requests/s (all keys)',
      'D1 busy, one database',
      'D1 primary busy, with replicas',
      'D1 storage',
      'what it takes',
    ],
    [1_000, 10_000, 100_000, 1_000_000].map((keys) => {
      const rps = (keys * ASSUMED.requestsPerKeyPerDay) / 86_400;
      const busy = rps / dbRps;
      const primaryBusy = rps / primaryRps;
      const bytes = keys * (ASSUMED.filesPerKey * rowBytes + ASSUMED.apiKeyRowBytes);
      // Shards for room and for the writers; replicas where the shards' reads still overload them.
      const shardsForSize = Math.ceil(bytes / (PLATFORM.d1MaxBytes * ASSUMED.shardFill));
      const shardsForWrites = Math.ceil(primaryBusy / ASSUMED.shardFill);
      const shards = Math.max(shardsForSize, shardsForWrites, 1);
      const steps: string[] = [];
      if (busy / shards > ASSUMED.shardFill) steps.push('read replication');
      if (shards > 1) steps.push(`${int(shards)} metadata databases (sharded by key)`);
      return [
        int(keys),
        int(rps),
        `${int(busy * 100)} %`,
        `${int(primaryBusy * 100)} %`,
        `${gb(bytes)} (${int((bytes / PLATFORM.d1MaxBytes) * 100)} % of one database)`,
        steps.length ? steps.join(' + ') : 'one database as it is',
      ];
    }),
  );

  return `${BEGIN}
<!-- Generated by \`npm run bench:model\` (bench/load-model.ts) from the bench run of ${results.generatedAt}. -->

**Measured inputs.**

${inputs}

**Operations per request** (as the code stands; assumed traffic shares for the average request):

${mix}

**Ceilings** at those costs:

${ceilings}

**Growth**, assuming ${int(ASSUMED.filesPerKey)} files and ${int(ASSUMED.requestsPerKeyPerDay)} requests per key per day, spread evenly
(a busy share above 100 % means one database cannot keep up; plan for ${Math.round(ASSUMED.shardFill * 100)} %):

${growth}
${END}`;
}

/** Replaces the model's block in docs/scaling.md (between the markers) with a fresh one. */
export function updateScalingDoc(results: BenchResults): string {
  const block = renderModel(results);
  const doc = readFileSync(SCALING_DOC, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${SCALING_DOC} lacks the ${BEGIN} … ${END} markers`);
  writeFileSync(SCALING_DOC, doc.slice(0, start) + block + doc.slice(end + END.length));
  return block;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // npm run bench:model [-- RESULTS.json]: another run's results (e.g. .wrangler/bench/results.json).
  const results = JSON.parse(readFileSync(process.argv[2] ?? RESULTS, 'utf8')) as BenchResults;
  console.log(updateScalingDoc(results));
}

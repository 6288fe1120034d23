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
  /** A figure the issue asks to see, with no goal: reported as measured, never met or missed. */
  shown?: boolean;
};

export type Target = {
  id: string;
  text: string;
  evaluate: (results: Map<string, CaseResult>) => Outcome | undefined;
};

/** Memory growth under 1 MiB is sampling noise: count it as 1 MiB in memory ratios. */
export const MEMORY_FLOOR_MIB = 1;

/**
 * A Node process's RSS moves by a few MiB with its garbage collector's timing alone: CLI memory
 * growth under this counts as this in memory ratios.
 */
export const CLI_MEMORY_FLOOR_MIB = 8;

const UNITS: Record<string, string> = {
  mibPerS: 'MiB/s',
  cliGrowthMiB: 'MiB',
  memGrowthMiB: 'MiB',
  rps: 'req/s',
  p50: 'ms',
  ms: 'ms',
  cpuMsPerMiB: 'ms',
  firstByteMs: 'ms',
};

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

/** A ratio shown without a goal (`shown`): what a comparison measured, never met or missed. */
function show(a: VariantResult, b: VariantResult, metric: string, floor = 0): Outcome {
  return { ...compare(a, b, metric, Number.NaN, '>=', floor), met: true, shown: true };
}

/**
 * An absolute bound as a ratio: the largest of the runs over `limit` (≤ 1 meets it); the median
 * of the runs over it as the per-round figure.
 */
function bound(a: VariantResult, metric: string, limit: number, unit: string): Outcome {
  const runs = values(a, metric);
  const value = Math.max(...runs) / limit;
  return {
    value,
    perRound: median(runs) / limit,
    goal: 1,
    op: '<=',
    met: value <= 1,
    compared: `${a.label}: largest peak / ${limit} ${unit}`,
    medians: [Math.max(...runs), limit],
    unit,
  };
}

/** The service variant against the baseline the case decided it compares with (`versus`). */
function serviceVersus(results: Map<string, CaseResult>, caseId: string, serviceId = 'service') {
  const service = variant(results, caseId, serviceId);
  const baseline = service?.versus ? variant(results, caseId, service.versus) : undefined;
  return service && baseline ? { service, baseline } : undefined;
}

/** The service variant against a named baseline variant of the same case. */
function versusVariant(results: Map<string, CaseResult>, caseId: string, baselineId: string, serviceId = 'service') {
  const service = variant(results, caseId, serviceId);
  const baseline = variant(results, caseId, baselineId);
  return service && baseline ? { service, baseline } : undefined;
}

/** The sequential uploads against a bare Worker's bulk of the same form (shown, no goal). */
function bulkBound(id: string, text: string, bareId: string): Target {
  return {
    id,
    text,
    evaluate: (results) => {
      const bare = variant(results, 'bulk', bareId);
      const sequential = variant(results, 'bulk', 'sequential');
      return bare && sequential && show(sequential, bare, 'ms');
    },
  };
}

export const TARGETS: Target[] = [
  // Multipart upload (issue 20): a small file against the bare single put (the tutorial Worker's
  // formData() reached 0.80× of it), large files against the bare Worker's R2 multipart upload.
  {
    id: 'upload-1mib.throughput',
    text: 'upload-1mib: multipart upload throughput ≥ 0.8× the bare put Worker',
    evaluate: (results) => {
      const pair = versusVariant(results, 'upload-1mib', 'r2-single');
      return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.8, '>=');
    },
  },
  {
    id: 'upload-1mib.memory',
    text: 'upload-1mib: workerd peak memory growth ≤ 1.5× the bare put’s',
    evaluate: (results) => {
      const pair = versusVariant(results, 'upload-1mib', 'r2-single');
      return pair && compare(pair.service, pair.baseline, 'memGrowthMiB', 1.5, '<=', MEMORY_FLOOR_MIB);
    },
  },
  ...['upload-50mib', 'upload-300mib'].flatMap((caseId): Target[] => [
    {
      id: `${caseId}.throughput`,
      text: `${caseId}: multipart upload throughput ≥ 0.9× the bare multipart Worker (R2 multipart upload)`,
      evaluate: (results) => {
        const pair = versusVariant(results, caseId, 'r2-multipart');
        return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.9, '>=');
      },
    },
    {
      id: `${caseId}.memory`,
      text: `${caseId}: workerd peak memory growth ≤ 1.3× the bare multipart Worker’s (kept from issue 14)`,
      evaluate: (results) => {
        const pair = versusVariant(results, caseId, 'r2-multipart');
        return pair && compare(pair.service, pair.baseline, 'memGrowthMiB', 1.3, '<=', MEMORY_FLOOR_MIB);
      },
    },
  ]),
  // The raw-body upload (PUT /api/v2/upload/{filename}, hashed) against the bare single put.
  ...['digest-1mib', 'digest-50mib', 'digest-300mib'].flatMap((caseId): Target[] => [
    {
      id: `${caseId}.raw-throughput`,
      text: `${caseId}: raw-body upload (PUT /api/v2/upload/{filename}) throughput ≥ 0.9× the bare put Worker`,
      evaluate: (results) => {
        const pair = versusVariant(results, caseId, 'r2-single');
        return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.9, '>=');
      },
    },
    {
      id: `${caseId}.raw-memory`,
      text: `${caseId}: raw-body upload peak memory growth ≤ 1.2× the bare put’s`,
      evaluate: (results) => {
        const pair = versusVariant(results, caseId, 'r2-single');
        return pair && compare(pair.service, pair.baseline, 'memGrowthMiB', 1.2, '<=', MEMORY_FLOOR_MIB);
      },
    },
  ]),
  // The CRC-32 of every upload (issue 31): at most 3 % of an upload's throughput, A/B in the same
  // run (the service against its own code with the CRC taken out), on every path the case sends.
  ...['crc-1mib', 'crc-300mib'].flatMap((caseId): Target[] => [
    ...[
      ['form', 'multipart upload (POST /api/v2/upload)'],
      ['raw', 'raw-body upload (PUT /api/v2/upload/{filename})'],
      ['tus', 'tus upload'],
    ].flatMap(([path, what]): Target[] => [
      {
        id: `${caseId}.${path}-throughput`,
        text: `${caseId}: ${what} throughput with the CRC-32 ≥ 0.97× the same code without it`,
        evaluate: (results) => {
          const pair = serviceVersus(results, caseId, path);
          return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.97, '>=');
        },
      },
      // Wall time swings with whatever else the machine runs; workerd's CPU per MiB much less.
      {
        id: `${caseId}.${path}-cpu`,
        text: `${caseId}: ${what} workerd CPU per MiB with the CRC-32 against the same code without it (shown, no goal)`,
        evaluate: (results) => {
          const pair = serviceVersus(results, caseId, path);
          return pair && show(pair.service, pair.baseline, 'cpuMsPerMiB');
        },
      },
    ]),
    {
      id: `${caseId}.native-vs-js`,
      text: `${caseId}: a hashed put with node:zlib’s native CRC-32 against the same with a JavaScript table CRC-32 (throughput, shown, no goal)`,
      evaluate: (results) => {
        const native = variant(results, caseId, 'r2-crc-native');
        const js = variant(results, caseId, 'r2-crc-js');
        return native && js && show(native, js, 'mibPerS');
      },
    },
  ]),
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
  // What the runtime allows a tus upload at all: a bare Worker's floor of a PATCH (its state in a
  // Durable Object, the resumable SHA-256 in JavaScript, each PATCH one part) against the single
  // request (bench/workers/r2-stream, /resumable).
  {
    id: 'tus-300mib.floor-10',
    text: 'tus-300mib: the most any tus upload in 10 MiB chunks could reach here, a bare Worker’s floor of a PATCH against the single-request upload (shown, no goal)',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'tus-300mib', 'tus-floor-10mib');
      return pair && show(pair.service, pair.baseline, 'mibPerS');
    },
  },
  // tus concatenation (tus-js-client's parallelUploads): the issue asks it benchmarked with 4
  // parallel streams, without a goal. Shown beside the chunked figures.
  {
    id: 'tus-300mib.throughput-parallel4',
    text: 'tus-300mib: throughput in 4 parallel streams (concatenation, 10 MiB PATCHes) against the single-request upload (shown, no goal)',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'tus-300mib', 'tus-parallel4');
      return pair && show(pair.service, pair.baseline, 'mibPerS');
    },
  },
  {
    id: 'tus-300mib.memory-parallel4',
    text: 'tus-300mib: workerd peak memory growth in 4 parallel streams against the single-request upload’s (shown, no goal)',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'tus-300mib', 'tus-parallel4');
      return pair && show(pair.service, pair.baseline, 'memGrowthMiB', MEMORY_FLOOR_MIB);
    },
  },
  // The hash blocklist (issue 39): the one lookup every upload makes, in a table of 100,000 hashes
  // against an empty one (the same bundle, the same run). That it is one read a file is counted
  // by test/moderation/blocklist-uploads.test.ts and in the load model's table.
  {
    id: 'blocklist.throughput',
    text: 'blocklist: an upload (1 MiB, POST /api/v2/upload) with 100,000 hashes blocked ≥ 0.97× the same upload with none',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'blocklist');
      return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.97, '>=');
    },
  },
  {
    id: 'blocklist.cpu',
    text: 'blocklist: workerd CPU per MiB of that upload with 100,000 hashes blocked against none (shown, no goal)',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'blocklist');
      return pair && show(pair.service, pair.baseline, 'cpuMsPerMiB');
    },
  },
  {
    id: 'download-300mib.throughput',
    text: 'download-300mib: throughput ≥ 0.9× the bare R2 stream of an object stored the same way',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'download-300mib');
      return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.9, '>=');
    },
  },
  // Scanning with clamd (issue 39): the scan queue's consumer against a bare Worker streaming the
  // same R2 object to the same clamd (the faster of its two ways: 1 MiB reads), its memory against
  // the service's plain download of the file, and clamdscan --stream of the file beside them.
  {
    id: 'scan-300mib.throughput',
    text: 'scan-300mib: scanning throughput ≥ 0.9× a bare Worker streaming the same R2 object to the same clamd (INSTREAM)',
    evaluate: (results) => {
      const pair = versusVariant(results, 'scan-300mib', 'bare-reads');
      return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.9, '>=');
    },
  },
  {
    id: 'scan-300mib.memory',
    text: 'scan-300mib: workerd peak memory growth while scanning ≤ 1.2× a plain download of the same file’s',
    evaluate: (results) => {
      const pair = versusVariant(results, 'scan-300mib', 'download');
      return pair && compare(pair.service, pair.baseline, 'memGrowthMiB', 1.2, '<=', MEMORY_FLOOR_MIB);
    },
  },
  {
    id: 'scan-300mib.clamdscan',
    text: 'scan-300mib: the service’s scanning throughput against clamdscan --stream of the file on disk (shown, no goal)',
    evaluate: (results) => {
      const pair = versusVariant(results, 'scan-300mib', 'clamdscan');
      return pair && show(pair.service, pair.baseline, 'mibPerS');
    },
  },
  {
    id: 'share-download.throughput',
    text: 'share-download: download through a made share link (password by HTTP Basic, counted) ≥ 0.9× the bare R2 get of an object stored the same way',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'share-download');
      return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.9, '>=');
    },
  },
  {
    id: 'access-log.throughput',
    text: 'access-log: a share download with the access log on ≥ 0.97× the same download with ACCESS_LOG=off (same run)',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'access-log');
      return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.97, '>=');
    },
  },
  {
    id: 'e2e-link-download.throughput',
    text: 'e2e-link-download: a download through an encrypted file’s link ≥ 0.97× a plain link’s download of a file of the payload’s size',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'e2e-link-download');
      return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.97, '>=');
    },
  },
  ...(
    [
      ['e2e-cli-upload', 'the CLI’s `upload --e2e`', 'its plain upload'],
      ['e2e-cli-download', 'the CLI’s decrypting `download`', 'its plain download'],
    ] as const
  ).flatMap(([caseId, what, plain]): Target[] => [
    {
      id: `${caseId}.throughput`,
      text: `${caseId}: ${what} ≥ 0.8× ${plain} of the same file`,
      evaluate: (results) => {
        const pair = serviceVersus(results, caseId);
        return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.8, '>=');
      },
    },
    {
      id: `${caseId}.memory`,
      text: `${caseId}: ${what}, Node’s RSS growth ≤ 1.2× ${plain}’s`,
      evaluate: (results) => {
        const pair = serviceVersus(results, caseId);
        return pair && compare(pair.service, pair.baseline, 'cliGrowthMiB', 1.2, '<=', CLI_MEMORY_FLOOR_MIB);
      },
    },
  ]),
  // Flat memory for a large decrypting download through a link (URL#k=), against the plain download.
  {
    id: 'e2e-cli-memory.memory',
    text: 'e2e-cli-memory: the CLI’s `download URL#k=…` of the large file, Node’s RSS growth ≤ 1.2× its plain download’s',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'e2e-cli-memory');
      return pair && compare(pair.service, pair.baseline, 'cliGrowthMiB', 1.2, '<=', CLI_MEMORY_FLOOR_MIB);
    },
  },
  // End-to-end encryption in Chromium (issue 41, "Speed"): the encrypted way against the plain one,
  // each beside its floor, the same browser encrypting or decrypting the same bytes alone (shown).
  ...(
    [
      ['e2e-browser-upload', 'the web app’s encrypted upload', 'its plain upload of the same file', 'web-plain'],
      ['e2e-browser-download', 'the share page’s decrypting download', 'a plain share-page download', 'share-plain'],
    ] as const
  ).flatMap(([caseId, what, plain, plainId]): Target[] => [
    {
      id: `${caseId}.throughput`,
      text: `${caseId}: ${what} ≥ 0.7× ${plain}`,
      evaluate: (results) => {
        const pair = serviceVersus(results, caseId);
        return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.7, '>=');
      },
    },
    {
      id: `${caseId}.floor`,
      text: `${caseId}: the floor, the same browser ${caseId.endsWith('upload') ? 'hashing and encrypting' : 'decrypting and checking'} the same bytes with nothing else, against ${plain} (shown, no goal)`,
      evaluate: (results) => {
        const pair = versusVariant(results, caseId, plainId, 'floor');
        return pair && show(pair.service, pair.baseline, 'mibPerS');
      },
    },
  ]),
  {
    id: 'e2e-browser-download.heap',
    text: 'e2e-browser-download: the share page’s JS heap while it decrypts (CDP), its largest peak / 200 MB ≤ 1',
    evaluate: (results) => {
      const service = variant(results, 'e2e-browser-download', 'service');
      return service && bound(service, 'jsHeapMB', 200, 'MB');
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
  // A collection's ZIP archive (issue 31, "Speed"): against a bare Worker streaming the same R2
  // objects back to back, and beside client-zip zipping them on the fly (shown).
  ...['zip-20x16mib', 'zip-500x64kib'].flatMap((caseId): Target[] => [
    {
      id: `${caseId}.throughput`,
      text: `${caseId}: the collection archive’s throughput ≥ 0.95× a bare Worker streaming the same R2 objects back to back`,
      evaluate: (results) => {
        const pair = serviceVersus(results, caseId);
        return pair && compare(pair.service, pair.baseline, 'mibPerS', 0.95, '>=');
      },
    },
    {
      id: `${caseId}.headed`,
      text: `${caseId}: the collection archive’s throughput against a bare Worker making the same small write before each object (shown, no goal)`,
      evaluate: (results) => {
        const pair = versusVariant(results, caseId, 'concat-headed');
        return pair && show(pair.service, pair.baseline, 'mibPerS');
      },
    },
    {
      id: `${caseId}.client-zip`,
      text: `${caseId}: the collection archive’s throughput against a Worker zipping the same objects with client-zip (shown, no goal)`,
      evaluate: (results) => {
        const pair = versusVariant(results, caseId, 'client-zip');
        return pair && show(pair.service, pair.baseline, 'mibPerS');
      },
    },
  ]),
  ...(['small', 'large'] as const).map(
    (which): Target => ({
      id: `zip-memory.memory-${which}`,
      text: `zip-memory: workerd peak memory growth for the ${which === 'small' ? 'small (320 MiB)' : 'large (3 GiB)'} archive ≤ 1.2× the bare Worker streaming the same objects`,
      evaluate: (results) => {
        const pair = serviceVersus(results, 'zip-memory', `service-${which}`);
        return pair && compare(pair.service, pair.baseline, 'memGrowthMiB', 1.2, '<=', MEMORY_FLOOR_MIB);
      },
    }),
  ),
  {
    // Flat: the 3 GiB archive (192 members) grows workerd no more than 1.2× the 320 MiB one (20).
    id: 'zip-memory.flat',
    text: 'zip-memory: the archive’s memory growth flat in its size (3 GiB ≤ 1.2× 320 MiB)',
    evaluate: (results) => {
      const large = variant(results, 'zip-memory', 'service-large');
      const small = variant(results, 'zip-memory', 'service-small');
      return (
        large &&
        small &&
        compare(large, small, 'memGrowthMiB', 1.2, '<=', MEMORY_FLOOR_MIB, 'archive of 3 GiB / archive of 320 MiB')
      );
    },
  },
  {
    // The same ratio for the bare Worker: how much this runtime's own memory grows with the bytes piped.
    id: 'zip-memory.flat-bare',
    text: 'zip-memory: the bare Worker’s own memory growth, 3 GiB against 320 MiB of the same objects (shown, no goal)',
    evaluate: (results) => {
      const large = variant(results, 'zip-memory', 'concat-large');
      const small = variant(results, 'zip-memory', 'concat-small');
      return large && small && show(large, small, 'memGrowthMiB', MEMORY_FLOOR_MIB);
    },
  },
  {
    id: 'zip-memory.headed-large',
    text: 'zip-memory: the 3 GiB archive’s memory growth against the bare Worker making the same small write before each object (shown, no goal)',
    evaluate: (results) => {
      const pair = versusVariant(results, 'zip-memory', 'concat-headed-large', 'service-large');
      return pair && show(pair.service, pair.baseline, 'memGrowthMiB', MEMORY_FLOOR_MIB);
    },
  },
  {
    id: 'zip-range-ttfb.ttfb',
    text: 'zip-range-ttfb: time to first byte of a 1 MiB range from the middle of a 1 GiB archive ≤ 1.2× the same range of a single 1 GiB file',
    evaluate: (results) => {
      const pair = serviceVersus(results, 'zip-range-ttfb');
      return pair && compare(pair.service, pair.baseline, 'firstByteMs', 1.2, '<=');
    },
  },
  // What this runtime allows at all: the sequential uploads against a bare Worker storing the same
  // form (its own parser, all puts at once, nothing else)…
  bulkBound(
    'bulk.bound',
    'bulk: the most any bulk upload could gain here, 10 sequential uploads against the tutorial Worker storing the same form (shown, no goal)',
    'bare-bulk',
  ),
  // …and with the work a recorded bulk upload cannot skip: a SHA-256 per file, two calls to the
  // caller's object and one D1 batch (bench/workers/r2-stream, /recorded-bulk).
  bulkBound(
    'bulk.floor',
    'bulk: the most a recorded bulk upload could gain here, 10 sequential uploads against a bare Worker that parses, hashes, puts and records the same form (shown, no goal)',
    'recorded-bulk',
  ),
];

/** "missed by 23 %": how far the value is from the goal, relative to the goal. */
export function shortfall(outcome: Outcome): string {
  const off = outcome.op === '>=' ? 1 - outcome.value / outcome.goal : outcome.value / outcome.goal - 1;
  return `${Math.round(off * 100)} % ${outcome.op === '>=' ? 'short of' : 'over'} the goal`;
}

// npm run bench [-- --quick] [-- --only upload,get-c10] [-- --render]
// Starts edgeshare and the baseline Workers (bench/workers/) in their own workerd processes,
// runs the cases (bench/cases/) interleaved, and writes the results: a full run to
// bench/results/latest.json and docs/benchmarks.md (and the load model's table in docs/scaling.md);
// a quick or partial run to .wrangler/bench/ only. --render rewrites docs/benchmarks.md and the
// model from bench/results/latest.json without running anything (after editing bench/findings.ts);
// with --merge FILE it first puts a partial run's cases (FILE: its .wrangler/bench/results.json)
// into latest.json in place of those of the same id.
import './lib/offline.ts';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { type Clamd, startClamd } from '../scripts/clamd.ts';
import { ROOT } from '../scripts/wrangler.ts';
import { benchCases } from './cases/index.ts';
import {
  type BenchContext,
  type CaseResult,
  CLAMD_WORKERS,
  ON_DEMAND_WORKERS,
  runCase,
  type ServiceId,
  type WorkerId,
} from './lib/case.ts';
import { machine } from './lib/machine.ts';
import { mergeResults } from './lib/merge.ts';
import { renderReport } from './lib/report.ts';
import type { BenchResults } from './lib/results.ts';
import { aliasedConfig, applyMigrations, type BenchWorker, bundle, startWorker } from './lib/runtime.ts';
import { send } from './lib/transfer.ts';
import { readZipCheck } from './lib/zip-check.ts';
import { updateScalingDoc } from './load-model.ts';
import { TARGETS } from './targets.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    render: { type: 'boolean', default: false },
    merge: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(
    'usage: npm run bench [-- --quick] [-- --only CASE,CASE] [-- --render [--merge .wrangler/bench/results.json]]  (a case id or its prefix: upload, get, list, …)',
  );
  process.exit(0);
}
if (values.render) {
  const latest = join(ROOT, 'bench/results/latest.json');
  let results = JSON.parse(readFileSync(latest, 'utf8')) as BenchResults;
  if (values.merge) {
    // A partial run's cases (--only) replace those of the same id in latest.json.
    const partial = JSON.parse(readFileSync(values.merge, 'utf8')) as BenchResults;
    results = mergeResults(
      results,
      partial,
      benchCases(false).map((entry) => entry.id),
    );
    writeFileSync(latest, `${JSON.stringify(results, null, 2)}\n`);
  }
  writeFileSync(join(ROOT, 'docs/benchmarks.md'), renderReport(results, readZipCheck()));
  updateScalingDoc(results);
  console.log('rewrote docs/benchmarks.md and the load model in docs/scaling.md from bench/results/latest.json');
  process.exit(0);
}
const quick = values.quick ?? false;
const only = values.only
  ?.split(',')
  .map((item) => item.trim())
  .filter(Boolean);
const partial = quick || Boolean(only);

const started = performance.now();
const log = (line: string) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

const cases = benchCases(quick).filter((entry) => !only || only.some((name) => entry.id.startsWith(name)));
if (cases.length === 0) {
  console.error(`no case matches --only ${values.only}`);
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), 'edgeshare-bench-'));
const workers: Partial<Record<WorkerId, BenchWorker>> = {};
const SOURCES: Record<WorkerId, string> = {
  service: 'wrangler.toml',
  serviceNoEvents: 'wrangler.toml',
  serviceNoCrc32: 'wrangler.toml',
  serviceNoAccessLog: 'wrangler.toml',
  serviceBlocklist: 'wrangler.toml',
  r2: 'bench/workers/r2-stream/wrangler.toml',
  tutorial: 'bench/workers/tutorial/wrangler.toml',
  doD1: 'bench/workers/do-d1/wrangler.toml',
  zipStream: 'bench/workers/zip-stream/wrangler.toml',
  serviceScanning: 'wrangler.toml',
  clamdStream: 'bench/workers/clamd-stream/wrangler.toml',
};
// The admin token lives only in this process and the service's bindings; never printed.
const adminToken = randomBytes(32).toString('base64url');

let clamd: Clamd | undefined;

async function shutdown(): Promise<void> {
  await Promise.allSettled(Object.values(workers).map((worker) => worker.mf.dispose()));
  await clamd?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void shutdown().finally(() => process.exit(130));
  });
}

/**
 * Makes an API key the bench can hammer: a rate limit the runs never reach and a large quota.
 * The one place that knows how keys are made (today: the admin API).
 */
async function createApiKey(name: string, on: ServiceId = 'service'): Promise<{ id: string; key: string }> {
  const service = workers[on];
  if (!service) throw new Error('the service is not running');
  const body = Buffer.from(JSON.stringify({ name, rateLimitRequests: 1_000_000, storageQuotaBytes: 2 ** 40 }));
  const reply = await send(new URL('/admin/keys', service.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: Readable.from([body]),
    length: body.length,
  });
  if (reply.status !== 201) throw new Error(`POST /admin/keys: ${reply.status} ${reply.body.slice(0, 200)}`);
  const { data } = JSON.parse(reply.body) as { data: { id: string; key: string } };
  return { id: data.id, key: data.key };
}

/** A request to an instance's /admin/*, with the admin token added here. */
async function admin(on: ServiceId, path: string, init: Parameters<typeof send>[1]) {
  const service = workers[on];
  if (!service) throw new Error(`${on} is not running`);
  return send(new URL(path, service.url), {
    ...init,
    headers: { ...init.headers, authorization: `Bearer ${adminToken}` },
  });
}

/** The service's instances, by the name each workerd process gets. */
const SERVICE_NAMES: Partial<Record<WorkerId, string>> = {
  service: 'edgeshare',
  serviceNoEvents: 'edgeshare-no-events',
  serviceNoCrc32: 'edgeshare-no-crc32',
  serviceNoAccessLog: 'edgeshare-no-access-log',
  serviceBlocklist: 'edgeshare-blocklist',
  serviceScanning: 'edgeshare-scanning',
};

/** The scanning cases' clamd: limits above their 300 MiB file (StreamMaxLength, MaxFileSize, MaxScanSize). */
const CLAMD_LIMIT = '400M';
/** SCAN_MAX_BYTES of the scanning service: past the 300 MiB file. */
const SCAN_MAX_BYTES = String(400 * 2 ** 20);

async function main(): Promise<void> {
  const facts = machine();
  const wanted = new Set(cases.flatMap((entry) => entry.workers ?? []));
  const sources = (Object.entries(SOURCES) as [WorkerId, string][]).filter(
    ([id]) => !ON_DEMAND_WORKERS.includes(id) || wanted.has(id),
  );
  // The no-events, no-access-log, blocklist and scanning instances run the service's own bundle.
  const SAME_BUNDLE: WorkerId[] = ['serviceNoEvents', 'serviceNoAccessLog', 'serviceBlocklist', 'serviceScanning'];
  const bundleOf = (id: WorkerId) => (SAME_BUNDLE.includes(id) ? 'service' : id);
  if (sources.some(([id]) => CLAMD_WORKERS.includes(id))) {
    clamd = await startClamd({ streamMaxLength: CLAMD_LIMIT, maxFileSize: CLAMD_LIMIT });
    log(`started clamd (pid ${clamd.pid}) at ${clamd.scanner}`);
  }
  const varsOf = (id: WorkerId): Record<string, string> => {
    if (id === 'clamdStream') return { CLAMD: `127.0.0.1:${clamd?.port}` };
    if (!(id in SERVICE_NAMES)) return {};
    return {
      // 2 GiB: the memory case's encrypted 1 GiB is a little over 1 GiB.
      MAX_FILE_SIZE: String(2 ** 31),
      ADMIN_TOKEN: adminToken,
      ...(id === 'serviceNoAccessLog' ? { ACCESS_LOG: 'off' } : {}),
      // Scanned after the upload (async): the file is served at once, and scanned by the queue's consumer.
      ...(id === 'serviceScanning' ? { SCANNER: clamd?.scanner ?? '', SCAN_MODE: 'async', SCAN_MAX_BYTES } : {}),
    };
  };
  const bundled = sources.filter(([id]) => bundleOf(id) === id);
  log(`bundling ${bundled.length} Workers with wrangler deploy --dry-run`);
  for (const [id, config] of bundled) {
    // The no-CRC instance: the service's code with node:zlib's crc32 reading nothing.
    const source =
      id === 'serviceNoCrc32'
        ? aliasedConfig(config, { 'node:zlib': 'bench/lib/no-crc32.ts' }, join(tmp, 'configs', id))
        : config;
    bundle(source, join(tmp, 'bundles', id));
  }
  for (const [id, config] of sources) {
    const worker = await startWorker({
      name: SERVICE_NAMES[id] ?? `bench-${id}`,
      configPath: config,
      bundleDir: join(tmp, 'bundles', bundleOf(id)),
      stateDir: join(tmp, 'state', id),
      vars: varsOf(id),
      withoutQueueProducers: id === 'serviceNoEvents' ? ['EVENTS'] : [],
    });
    await applyMigrations(worker);
    workers[id] = worker;
    log(`started ${worker.name} (workerd pid ${worker.pid}) at ${worker.url.origin}`);
  }
  const ctx: BenchContext = {
    workers: workers as Record<WorkerId, BenchWorker>,
    apiKey: (await createApiKey('bench')).key,
    createApiKey,
    admin,
    tmpDir: tmp,
    clamd,
    facts: {},
  };

  const results: CaseResult[] = [];
  for (const benchCase of cases) {
    log(`${benchCase.id}: ${benchCase.title} (${benchCase.reps} rounds)`);
    results.push(await runCase(benchCase, ctx, log));
  }
  const byId = new Map(results.map((result) => [result.id, result]));
  const targets = TARGETS.flatMap((target) => {
    const outcome = target.evaluate(byId);
    return outcome ? [{ id: target.id, text: target.text, ...outcome }] : [];
  });
  const output: BenchResults = {
    generatedAt: new Date().toISOString(),
    quick,
    only: only ?? null,
    seconds: Math.round((performance.now() - started) / 1000),
    machine: facts,
    loadAverageAtEnd: loadavg().map((value) => Math.round(value * 100) / 100),
    facts: ctx.facts,
    cases: results,
    targets,
  };
  const outDir = partial ? join(ROOT, '.wrangler/bench') : join(ROOT, 'bench/results');
  const reportPath = partial ? join(ROOT, '.wrangler/bench/benchmarks.md') : join(ROOT, 'docs/benchmarks.md');
  mkdirSync(outDir, { recursive: true });
  const resultsPath = join(outDir, partial ? 'results.json' : 'latest.json');
  writeFileSync(resultsPath, `${JSON.stringify(output, null, 2)}\n`);
  writeFileSync(reportPath, renderReport(output, readZipCheck()));
  if (!partial) updateScalingDoc(output);
  for (const target of targets) {
    log(
      target.shown
        ? `shown  ${target.id}: ${target.value.toFixed(2)} (no goal)`
        : `${target.met ? 'met   ' : 'MISSED'} ${target.id}: ${target.value.toFixed(2)} (goal ${target.op} ${target.goal})`,
    );
  }
  log(`wrote ${resultsPath} and ${reportPath}`);
}

try {
  await main();
} finally {
  await shutdown();
}

// Scanning a large file with clamd: edgeshare's scan (the scan queue's consumer streaming the file
// from R2 to clamd through its scanner client) against a bare Worker that streams the same R2
// object to the same clamd with INSTREAM, with `clamdscan --stream` of the same file from disk
// beside them, and the service's plain download of the file for its memory.
import { spawn } from 'node:child_process';
import { CLAMDSCAN_PATH } from '../../scripts/clamd.ts';
import type { BenchCase, BenchContext, MetricSpec, Variant } from '../lib/case.ts';
import type { BenchWorker } from '../lib/runtime.ts';
import { bearer, storedAs, uploadFile } from '../lib/service.ts';
import { fileBody, send, transferred } from '../lib/transfer.ts';
import { downloadReader } from './downloads.ts';
import { CPU_PER_MIB, caseFiles, REQUEST_MS, THROUGHPUT, WARM_BYTES } from './uploads.ts';

const CONSUMER_MS: MetricSpec = {
  name: 'consumerMs',
  label: 'the consumer’s own time (its log line)',
  unit: 'ms',
  better: 'lower',
  digits: 0,
};

type ScanLine = { msg: string; fileId: string; status: string; ms: number };

/** The consumer's `scan recorded` line for `fileId`, once the Worker writes it (listen before the scan starts). */
function scanRecorded(worker: BenchWorker, fileId: string, timeoutMs = 600_000): Promise<ScanLine> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no scan of ${fileId} recorded in ${timeoutMs} ms`));
    }, timeoutMs);
    const stop = worker.watchLogs((message) => {
      if (!message.includes(fileId)) return;
      const line = JSON.parse(message) as ScanLine;
      if (line.msg !== 'scan recorded') return;
      clearTimeout(timer);
      stop();
      resolve(line);
    });
  });
}

/**
 * Scans a file the service holds again, as its upload did: its scan set back to pending (the one
 * place the bench reaches past the API: a file is scanned once, when it arrives) and one message
 * on its scan queue, timed until the consumer records the verdict.
 */
async function rescan(worker: BenchWorker, fileId: string): Promise<{ ms: number; line: ScanLine }> {
  const db = await worker.mf.getD1Database('DB');
  await db.prepare("UPDATE files SET scan_status = 'pending' WHERE id = ?1").bind(fileId).run();
  const queue = await worker.mf.getQueueProducer<{ fileId: string }>('SCANS');
  const recorded = scanRecorded(worker, fileId);
  const started = performance.now();
  await queue.send({ fileId });
  const line = await recorded;
  const ms = performance.now() - started;
  if (line.status !== 'clean') throw new Error(`the scan of ${fileId}: ${line.status}`);
  return { ms, line };
}

/** `clamdscan --stream` of a file on disk against the run's clamd: its wall time. */
function clamdscan(configPath: string, path: string): Promise<number> {
  const clamdscanPath = CLAMDSCAN_PATH;
  if (!clamdscanPath) throw new Error('clamdscan is not installed (Debian: apt-get install clamdscan)');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(clamdscanPath, ['--stream', '--no-summary', `--config-file=${configPath}`, path], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0 && output.trim().endsWith(': OK')) resolve(performance.now() - started);
      else reject(new Error(`clamdscan exited ${code}: ${output.trim().slice(0, 300)}`));
    });
  });
}

export function scanCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `Scan ${sizeMiB} MiB with clamd`,
    description: [
      'One clamd on 127.0.0.1 (the project’s test signatures; StreamMaxLength, MaxFileSize and MaxScanSize 400M), ' +
        'shared by every variant; the service runs with SCANNER naming it, SCAN_MODE=async, SCAN_MAX_BYTES 400 MiB.',
      'edgeshare: the file is uploaded once (untimed, its first scan warms clamd); each repetition sets its scan ' +
        'back to pending in D1, sends one message to the scan queue and is timed until the consumer’s ' +
        '`scan recorded` log line (queue delivery, row read, R2 to clamd, the verdict, its D1 write and events).',
      'bare Worker (bench/workers/clamd-stream): the same bytes stored the same way, by R2 multipart; its ' +
        '`GET /scan-reads/:key` streams the object to clamd with INSTREAM, read 1 MiB at a time into one buffer ' +
        '(readAtLeast); timed by the client.',
      '`clamdscan --stream` of the same file from disk, and the service’s plain download of the file (for its ' +
        'memory) beside them. Every repetition in a fresh workerd process, warmed by a ' +
        `${WARM_BYTES / 1024} KiB file the same way. Throughput is file size / time.`,
    ],
    reps,
    freshProcess: true,
    workers: ['serviceScanning', 'clamdStream'],
    metrics: [THROUGHPUT, REQUEST_MS, CPU_PER_MIB, CONSUMER_MS],
    async prepare(ctx) {
      return scanVariants(ctx, sizeMiB);
    },
  };
}

async function scanVariants(ctx: BenchContext, sizeMiB: number): Promise<Variant[]> {
  const clamd = ctx.clamd;
  if (!clamd) throw new Error('the scanning case needs the run’s clamd');
  const { size, path, warmPath } = caseFiles(ctx, sizeMiB);
  const { serviceScanning: service, clamdStream: bare } = ctx.workers;
  const { key } = await ctx.createApiKey('scan', 'serviceScanning');

  // The service's copies, each scanned once as it arrives (the 300 MiB one warms clamd up).
  const uploaded = async (file: string) => {
    const { id: fileId } = await uploadFile(service.url, key, file);
    await scanRecorded(service, fileId);
    return fileId;
  };
  const [fileId, warmId] = [await uploaded(path), await uploaded(warmPath)];
  if ((await storedAs(service.url, key, fileId)) !== 'multipart') throw new Error('expected R2 multipart');
  for (const [name, file] of [
    ['file', path],
    ['warm', warmPath],
  ] as const) {
    const reply = await send(new URL(`/object/${name}`, bare.url), { method: 'PUT', ...fileBody(file) });
    if (reply.status !== 200) throw new Error(`storing ${name} in the bare Worker: ${reply.status}`);
  }

  const bareScan = async (route: string, name: string, bytes: number) => {
    const reply = await send(new URL(`/${route}/${name}`, bare.url), { method: 'GET' });
    // A failed scan answers a plain-text error (workerd's 500), not JSON: say so, with its text.
    const body = (reply.status === 200 ? JSON.parse(reply.body) : {}) as { reply?: string; bytes?: number };
    if (reply.status !== 200 || body.reply !== 'stream: OK' || body.bytes !== bytes) {
      throw new Error(`bare scan of ${name}: ${reply.status} ${reply.body.slice(0, 200)}`);
    }
    return reply.ms;
  };
  const read = downloadReader(size);
  return [
    {
      id: 'bare-reads',
      label: 'bare Worker: the R2 object to clamd, read 1 MiB at a time',
      role: 'baseline',
      worker: 'clamdStream',
      run: async () => ({ metrics: transferred(await bareScan('scan-reads', 'file', size), size) }),
      warm: async () => {
        await bareScan('scan-reads', 'warm', WARM_BYTES);
      },
    },
    {
      id: 'service',
      label: 'edgeshare: the scan queue’s consumer (scanner client)',
      role: 'service',
      worker: 'serviceScanning',
      versus: 'bare-reads',
      run: async () => {
        const { ms, line } = await rescan(service, fileId);
        return { metrics: { ...transferred(ms, size), consumerMs: line.ms } };
      },
      warm: async () => {
        await rescan(service, warmId);
      },
    },
    {
      id: 'download',
      label: 'edgeshare: GET /api/v2/files/:id/download of the same file',
      role: 'peer',
      worker: 'serviceScanning',
      ...read(`/api/v2/files/${fileId}/download`, `/api/v2/files/${warmId}/download`, service.url, bearer(key)),
    },
    {
      id: 'clamdscan',
      label: 'clamdscan --stream of the file on disk',
      role: 'peer',
      // No Worker takes part; the bare Worker's process is watched (idle).
      worker: 'clamdStream',
      versus: 'bare-reads',
      run: async () => ({ metrics: transferred(await clamdscan(clamd.configPath, path), size) }),
    },
  ];
}

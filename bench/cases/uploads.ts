// Single-file uploads: edgeshare's POST /api/v2/upload against the bare stream-to-R2 Worker (single
// put and R2 multipart) and the formData() tutorial Worker, for one file size.
import { randomUUID } from 'node:crypto';
import type { BenchCase, BenchContext, MetricSpec, Rep, ServiceId, Variant } from '../lib/case.ts';
import { deleteFiles, fileParts, postForm, storedAs, uploadFile } from '../lib/service.ts';
import { median } from '../lib/stats.ts';
import { fileBody, MIB, makeFile, send, transferred } from '../lib/transfer.ts';

export const THROUGHPUT: MetricSpec = {
  name: 'mibPerS',
  label: 'throughput',
  unit: 'MiB/s',
  better: 'higher',
  digits: 1,
};
export const REQUEST_MS: MetricSpec = { name: 'ms', label: 'request time', unit: 'ms', better: 'lower', digits: 0 };
export const CPU_PER_MIB: MetricSpec = {
  name: 'cpuMsPerMiB',
  label: 'workerd CPU per MiB',
  unit: 'ms',
  better: 'lower',
  digits: 1,
};

export const RECORDED_LABEL = 'bare Worker: DO call, hashed put, DO call, D1 insert';

/** Small enough to cost nothing, large enough to go down the same code path's first steps. */
export const WARM_BYTES = 64 * 1024;

export function uploadCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `Upload ${sizeMiB} MiB`,
    description:
      'One file streamed from disk with a known Content-Length: raw bytes to the bare R2 Worker, a multipart/form-data ' +
      'body (one `file` part) to the tutorial Worker and to `POST /api/v2/upload`. Throughput is file size / request ' +
      `time. Each repetition runs in a fresh workerd process, warmed by one ${WARM_BYTES / 1024} KiB upload.`,
    reps,
    freshProcess: true,
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const { tutorial, service } = ctx.workers;
      const { variant, bare } = uploadVariants(ctx, sizeMiB);
      return [
        bare('single', 'bare Worker, one put()'),
        // Multipart is shown against the single put: what cutting a body into parts costs.
        bare('multipart', 'bare Worker, R2 multipart', 'r2-single'),
        // The floor of any authenticated, recorded, hashed upload (small files only: fixed costs).
        ...(sizeMiB <= 1 ? [bare('recorded', RECORDED_LABEL, 'r2-single')] : []),
        variant(
          {
            id: 'tutorial',
            label: 'tutorial Worker, formData() then put()',
            role: 'peer',
            worker: 'tutorial',
            versus: 'r2-single',
          },
          async (file, bytes) => {
            const { ms, json } = await postForm(new URL('/upload', tutorial.url), undefined, fileParts('file', [file]));
            return {
              metrics: transferred(ms, bytes),
              cleanup: async () => {
                await send(new URL(`/object/${String(json.key)}`, tutorial.url), { method: 'DELETE' });
                return undefined;
              },
            };
          },
        ),
        variant(
          {
            id: 'service',
            label: 'edgeshare POST /api/v2/upload',
            role: 'service',
            worker: 'service',
            // The bare Worker that stores the same way the service did.
            versus: (runs) => (median(runs.map((run) => run.multipart ?? 0)) >= 0.5 ? 'r2-multipart' : 'r2-single'),
          },
          async (file, bytes) => {
            const { id: fileId, ms, timing } = await uploadFile(service.url, ctx.apiKey, file);
            return {
              metrics: { ...transferred(ms, bytes), ...timing },
              cleanup: async () => {
                // 1 when R2 holds the file as a multipart object: picks the baseline of the same kind.
                const multipart = (await storedAs(service.url, ctx.apiKey, fileId)) === 'multipart' ? 1 : 0;
                await deleteFiles(service.url, ctx.apiKey, [fileId]);
                return { multipart };
              },
            };
          },
        ),
      ];
    },
  };
}

/**
 * What an upload case's variants share: the file (and a small one to warm up with), a variant
 * that uploads it, a bare R2 Worker route as a baseline, and the throughput of a request.
 */
/** The metrics of every case that moves one file: throughput, request time, CPU per MiB. */
export const TRANSFER_METRICS = [THROUGHPUT, REQUEST_MS, CPU_PER_MIB];

/** A case's file of `sizeMiB` and the small one its warm-up sends, on disk. */
export function caseFiles(ctx: BenchContext, sizeMiB: number) {
  const size = sizeMiB * MIB;
  return { size, path: makeFile(ctx.tmpDir, size), warmPath: makeFile(ctx.tmpDir, WARM_BYTES) };
}

/**
 * A variant's run and warm-up that send the case's file (then a small one) to an instance's
 * `POST /api/v2/upload` with `key`, and delete it after, untimed.
 */
export function formUploader(ctx: BenchContext, sizeMiB: number) {
  const { size, path, warmPath } = caseFiles(ctx, sizeMiB);
  return (worker: ServiceId, key: string): Pick<Variant, 'run' | 'warm'> => {
    const base = ctx.workers[worker].url;
    return {
      async run() {
        const { id: fileId, ms, timing } = await uploadFile(base, key, path);
        return {
          metrics: { ...transferred(ms, size), ...timing },
          cleanup: async () => {
            await deleteFiles(base, key, [fileId]);
            return undefined;
          },
        };
      },
      async warm() {
        const { id: fileId } = await uploadFile(base, key, warmPath);
        await deleteFiles(base, key, [fileId]);
      },
    };
  };
}

export function uploadVariants(ctx: BenchContext, sizeMiB: number) {
  const { size, path, warmPath } = caseFiles(ctx, sizeMiB);
  const { r2 } = ctx.workers;
  /** A variant whose run uploads the file and whose warm-up uploads a small one the same way. */
  const variant = (
    fields: Omit<Variant, 'run' | 'warm'>,
    upload: (file: string, bytes: number) => Promise<Rep>,
  ): Variant => ({
    ...fields,
    run: () => upload(path, size),
    warm: async () => {
      await (await upload(warmPath, WARM_BYTES)).cleanup?.();
    },
  });
  /** The bare R2 Worker's PUT /<route>/<key> (bench/workers/r2-stream), deleted after. */
  const bare = (route: string, label: string, versus?: string) =>
    variant({ id: `r2-${route}`, label, role: 'baseline', worker: 'r2', versus }, async (file, bytes) => {
      const key = randomUUID();
      const reply = await send(new URL(`/${route}/${key}`, r2.url), { method: 'PUT', ...fileBody(file) });
      if (reply.status !== 200) throw new Error(`r2 ${route} upload: ${reply.status} ${reply.body}`);
      return {
        metrics: transferred(reply.ms, bytes),
        cleanup: async () => {
          await send(new URL(`/object/${key}`, r2.url), { method: 'DELETE' });
          return undefined;
        },
      };
    });
  return { variant, bare };
}

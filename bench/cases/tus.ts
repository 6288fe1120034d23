// tus uploads: the same file through /api/v2/uploads in chunks of two sizes against the
// single-request POST /api/v2/upload, all through edgeshare. Throughput and workerd peak memory.
import { randomUUID } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import type { BenchCase, Rep, Variant } from '../lib/case.ts';
import { bearer, deleteFiles, FILE_TYPE, uploadFile } from '../lib/service.ts';
import { MIB, send, transferred } from '../lib/transfer.ts';
import { caseFiles, TRANSFER_METRICS, WARM_BYTES } from './uploads.ts';

const TUS = { 'tus-resumable': '1.0.0' };
const READ_CHUNK = 256 * 1024;

const METADATA = `filename ${Buffer.from('bench.bin').toString('base64')},filetype ${Buffer.from(FILE_TYPE).toString('base64')}`;

/** A tus creation; returns the upload's URL. */
async function tusCreate(base: URL, key: string, headers: Record<string, string>): Promise<string> {
  const created = await send(new URL('/api/v2/uploads', base), {
    method: 'POST',
    headers: { ...bearer(key), ...TUS, ...headers },
  });
  const location = String(created.headers.location ?? '');
  if (created.status !== 201 || !location)
    throw new Error(`tus creation: ${created.status} ${created.body.slice(0, 200)}`);
  return location;
}

/** `size` bytes of the file from `start`, read from disk, as a request body with its length. */
const fileSlice = (path: string, start: number, size: number) => ({
  body: size > 0 ? createReadStream(path, { start, end: start + size - 1, highWaterMark: READ_CHUNK }) : undefined,
  length: size,
});

/**
 * PATCHes `length` bytes of the file from `start` into the upload at `location`, in `chunk`-byte
 * requests read from disk with their Content-Length. Returns the last answer's X-File-Id (if any).
 */
async function tusPatches(location: string, key: string, path: string, start: number, length: number, chunk: number) {
  let offset = 0;
  let fileId = '';
  while (offset < length || length === 0) {
    const size = Math.min(chunk, length - offset);
    const reply = await send(new URL(location), {
      method: 'PATCH',
      headers: {
        ...bearer(key),
        ...TUS,
        'upload-offset': String(offset),
        'content-type': 'application/offset+octet-stream',
      },
      ...fileSlice(path, start + offset, size),
    });
    if (reply.status !== 204) throw new Error(`tus PATCH at ${offset}: ${reply.status} ${reply.body.slice(0, 200)}`);
    offset = Number(reply.headers['upload-offset']);
    fileId = String(reply.headers['x-file-id'] ?? '');
    if (length === 0) break;
  }
  return fileId;
}

/**
 * Uploads a file through tus as a client would: one creation, then PATCHes of `chunk` bytes read
 * from disk with their Content-Length. Returns the file's id and the time from the creation to
 * the last answer.
 */
export async function tusUpload(base: URL, key: string, path: string, chunk: number) {
  const size = statSync(path).size;
  const started = performance.now();
  const location = await tusCreate(base, key, { 'upload-length': String(size), 'upload-metadata': METADATA });
  const fileId = await tusPatches(location, key, path, 0, size, chunk);
  if (!fileId) throw new Error('the last PATCH named no file');
  return { id: fileId, ms: performance.now() - started };
}

/**
 * tus concatenation as tus-js-client's parallelUploads sends it: the file cut into `streams`
 * slices, each a partial upload (Upload-Concat: partial) sent in `chunk`-byte PATCHes, all at
 * once; then the final upload (Upload-Concat: final;…), whose answer names the file.
 */
export async function tusParallelUpload(base: URL, key: string, path: string, streams: number, chunk: number) {
  const size = statSync(path).size;
  const started = performance.now();
  const slice = Math.ceil(size / streams);
  const urls = await Promise.all(
    Array.from({ length: streams }, async (_, index) => {
      const start = Math.min(size, index * slice);
      const length = Math.min(size, start + slice) - start;
      const location = await tusCreate(base, key, { 'upload-length': String(length), 'upload-concat': 'partial' });
      await tusPatches(location, key, path, start, length, chunk);
      return location;
    }),
  );
  const final = await send(new URL('/api/v2/uploads', base), {
    method: 'POST',
    headers: { ...bearer(key), ...TUS, 'upload-concat': `final;${urls.join(' ')}`, 'upload-metadata': METADATA },
  });
  const fileId = String(final.headers['x-file-id'] ?? '');
  if (final.status !== 201 || !fileId) throw new Error(`tus final upload: ${final.status} ${final.body.slice(0, 200)}`);
  return { id: fileId, ms: performance.now() - started };
}

/**
 * The same file through the bare Worker's floor of a tus PATCH (bench/workers/r2-stream,
 * /resumable): PATCHes of `chunk` bytes, each one part, the last one completing the upload.
 */
async function resumableFloorUpload(base: URL, path: string, chunk: number) {
  const size = statSync(path).size;
  const key = randomUUID();
  const started = performance.now();
  for (let offset = 0; offset < size; offset += chunk) {
    const length = Math.min(chunk, size - offset);
    const reply = await send(new URL(`/resumable/${key}?offset=${offset}&length=${size}`, base), {
      method: 'PATCH',
      headers: { authorization: 'Bearer floor' },
      ...fileSlice(path, offset, length),
    });
    if (reply.status !== (offset + length < size ? 204 : 200))
      throw new Error(`resumable PATCH at ${offset}: ${reply.status} ${reply.body.slice(0, 200)}`);
  }
  return { key, ms: performance.now() - started };
}

/** The parallel variant: 4 streams (tus-js-client parallelUploads: 4), in PATCHes of this size. */
export const PARALLEL_STREAMS = 4;
export const PARALLEL_CHUNK_MIB = 10;

export function tusCase(id: string, sizeMiB: number, chunksMiB: number[], reps: number): BenchCase {
  return {
    id,
    title: `tus upload of ${sizeMiB} MiB in ${chunksMiB.join(' and ')} MiB chunks, and in ${PARALLEL_STREAMS} parallel streams, vs one request`,
    description: [
      `One ${sizeMiB} MiB file from disk through \`/api/v2/uploads\` (tus: a creation, then PATCHes of ` +
        `${chunksMiB.join(' or ')} MiB with their Content-Length).`,
      'The same file through `POST /api/v2/upload` in one multipart request.',
      'The same file through tus concatenation, as tus-js-client’s `parallelUploads: 4` sends it: ' +
        `${PARALLEL_STREAMS} partial uploads of a quarter each, sent at once in ${PARALLEL_CHUNK_MIB} MiB PATCHes, then the final upload.`,
      'Throughput is file size / time from the first request to the last answer.',
      `Each repetition runs in a fresh workerd process, warmed by one ${WARM_BYTES / 1024} KiB upload the same way.`,
      'Parallel streams help a client whose network is the bottleneck. Here the four share workerd’s CPU (two ' +
        'cores, with the local R2, D1 and Durable Object simulators in the same process).',
      'Each stream pays its own requests and hash, so locally they are slower than one stream of PATCHes.',
      'The figure shows that concatenation works at this size and what it costs, not a speed-up.',
    ],
    reps,
    freshProcess: true,
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const { path, warmPath } = caseFiles(ctx, sizeMiB);
      const { service } = ctx.workers;
      const measured = (ms: number, fileId: string): Rep => ({
        metrics: transferred(ms, sizeMiB * MIB),
        cleanup: async () => {
          await deleteFiles(service.url, ctx.apiKey, [fileId]);
          return undefined;
        },
      });
      const single: Variant = {
        id: 'single',
        label: 'edgeshare POST /api/v2/upload (one request)',
        role: 'baseline',
        worker: 'service',
        run: async () => {
          const { id: fileId, ms } = await uploadFile(service.url, ctx.apiKey, path);
          return measured(ms, fileId);
        },
        warm: async () => {
          const { id: fileId } = await uploadFile(service.url, ctx.apiKey, warmPath);
          await deleteFiles(service.url, ctx.apiKey, [fileId]);
        },
      };
      const tus = (chunkMiB: number): Variant => ({
        id: `tus-${chunkMiB}mib`,
        label: `edgeshare tus, ${chunkMiB} MiB chunks`,
        role: 'service',
        worker: 'service',
        versus: 'single',
        run: async () => {
          const { id: fileId, ms } = await tusUpload(service.url, ctx.apiKey, path, chunkMiB * MIB);
          return measured(ms, fileId);
        },
        warm: async () => {
          const { id: fileId } = await tusUpload(service.url, ctx.apiKey, warmPath, chunkMiB * MIB);
          await deleteFiles(service.url, ctx.apiKey, [fileId]);
        },
      });
      const sendParallel = (file: string) =>
        tusParallelUpload(service.url, ctx.apiKey, file, PARALLEL_STREAMS, PARALLEL_CHUNK_MIB * MIB);
      const parallel: Variant = {
        id: `tus-parallel${PARALLEL_STREAMS}`,
        label: `edgeshare tus, ${PARALLEL_STREAMS} parallel streams (${PARALLEL_CHUNK_MIB} MiB PATCHes, concatenation)`,
        role: 'service',
        worker: 'service',
        versus: 'single',
        run: async () => {
          const upload = await sendParallel(path);
          return measured(upload.ms, upload.id);
        },
        warm: async () => {
          const upload = await sendParallel(warmPath);
          await deleteFiles(service.url, ctx.apiKey, [upload.id]);
        },
      };
      // What any tus server here could reach: the floor of a PATCH, at the smaller chunk size.
      const floorChunkMiB = Math.min(...chunksMiB);
      const sendFloor = async (file: string): Promise<Rep> => {
        const { r2 } = ctx.workers;
        const { key, ms } = await resumableFloorUpload(r2.url, file, floorChunkMiB * MIB);
        return {
          metrics: transferred(ms, statSync(file).size),
          cleanup: async () => {
            await send(new URL(`/object/${key}`, r2.url), { method: 'DELETE' });
            return undefined;
          },
        };
      };
      const floor: Variant = {
        id: `tus-floor-${floorChunkMiB}mib`,
        label: `bare Worker: the floor of tus in ${floorChunkMiB} MiB PATCHes (3 DO calls, JavaScript SHA-256, one part each)`,
        role: 'baseline',
        worker: 'r2',
        versus: 'single',
        run: () => sendFloor(path),
        warm: async () => {
          await (await sendFloor(warmPath)).cleanup?.();
        },
      };
      return [single, ...chunksMiB.map(tus), floor, parallel];
    },
  };
}

// tus uploads: the same file through /api/v2/uploads in chunks of two sizes against the
// single-request POST /api/v2/upload, all through edgeshare. Throughput and workerd peak memory.
import { createReadStream, statSync } from 'node:fs';
import type { BenchCase, Rep, Variant } from '../lib/case.ts';
import { bearer, deleteFiles, FILE_TYPE, uploadFile } from '../lib/service.ts';
import { MIB, makeFile, send } from '../lib/transfer.ts';
import { CPU_PER_MIB, REQUEST_MS, THROUGHPUT, WARM_BYTES } from './uploads.ts';

const TUS = { 'tus-resumable': '1.0.0' };
const READ_CHUNK = 256 * 1024;

/**
 * Uploads a file through tus as a client would: one creation, then PATCHes of `chunk` bytes read
 * from disk with their Content-Length. Returns the file's id and the time from the creation to
 * the last answer.
 */
export async function tusUpload(base: URL, key: string, path: string, chunk: number) {
  const size = statSync(path).size;
  const started = performance.now();
  const created = await send(new URL('/api/v2/uploads', base), {
    method: 'POST',
    headers: {
      ...bearer(key),
      ...TUS,
      'upload-length': String(size),
      'upload-metadata': `filename ${Buffer.from('bench.bin').toString('base64')},filetype ${Buffer.from(FILE_TYPE).toString('base64')}`,
    },
  });
  const location = String(created.headers.location ?? '');
  if (created.status !== 201 || !location)
    throw new Error(`tus creation: ${created.status} ${created.body.slice(0, 200)}`);
  let offset = 0;
  let fileId = '';
  while (offset < size || size === 0) {
    const length = Math.min(chunk, size - offset);
    const reply = await send(new URL(location), {
      method: 'PATCH',
      headers: {
        ...bearer(key),
        ...TUS,
        'upload-offset': String(offset),
        'content-type': 'application/offset+octet-stream',
      },
      body:
        length > 0
          ? createReadStream(path, { start: offset, end: offset + length - 1, highWaterMark: READ_CHUNK })
          : undefined,
      length,
    });
    if (reply.status !== 204) throw new Error(`tus PATCH at ${offset}: ${reply.status} ${reply.body.slice(0, 200)}`);
    offset = Number(reply.headers['upload-offset']);
    fileId = String(reply.headers['x-file-id'] ?? '');
    if (size === 0) break;
  }
  if (!fileId) throw new Error('the last PATCH named no file');
  return { id: fileId, ms: performance.now() - started };
}

export function tusCase(id: string, sizeMiB: number, chunksMiB: number[], reps: number): BenchCase {
  return {
    id,
    title: `tus upload of ${sizeMiB} MiB in ${chunksMiB.join(' and ')} MiB chunks vs one request`,
    description:
      `One ${sizeMiB} MiB file from disk: through \`/api/v2/uploads\` (tus: a creation, then PATCHes of ` +
      `${chunksMiB.join(' or ')} MiB with their Content-Length), and through \`POST /api/v2/upload\` in one ` +
      'multipart request. Throughput is file size / time from the first request to the last answer. Each ' +
      `repetition runs in a fresh workerd process, warmed by one ${WARM_BYTES / 1024} KiB upload the same way.`,
    reps,
    freshProcess: true,
    metrics: [THROUGHPUT, REQUEST_MS, CPU_PER_MIB],
    async prepare(ctx) {
      const size = sizeMiB * MIB;
      const path = makeFile(ctx.tmpDir, size);
      const warmPath = makeFile(ctx.tmpDir, WARM_BYTES);
      const { service } = ctx.workers;
      const measured = (ms: number, fileId: string): Rep => ({
        metrics: { mibPerS: sizeMiB / (ms / 1000), ms, mib: sizeMiB },
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
      return [single, ...chunksMiB.map(tus)];
    },
  };
}

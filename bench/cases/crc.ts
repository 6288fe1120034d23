// What the CRC-32 of every upload costs (issue 31): the same uploads to edgeshare as built and to
// the same code bundled with node:zlib's crc32 reading nothing (worker serviceNoCrc32, see
// bench/lib/no-crc32.ts), side by side in each round; and the native CRC-32 against a JavaScript
// one in the bare Worker's hashed put, for one file size.
import type { BenchCase, Rep, ServiceId, Variant } from '../lib/case.ts';
import { serverTiming } from '../lib/server-timing.ts';
import { bearer, deleteFiles, uploadFile } from '../lib/service.ts';
import { fileBody, MIB, send, transferred } from '../lib/transfer.ts';
import { tusUpload } from './tus.ts';
import { TRANSFER_METRICS, uploadVariants, WARM_BYTES } from './uploads.ts';

/** The tus variants' PATCH size (tus-js-client's usual chunk), for the sizes that have them. */
const TUS_CHUNK_MIB = 10;

export function crcCase(id: string, sizeMiB: number, reps: number): BenchCase {
  const withTus = sizeMiB > TUS_CHUNK_MIB;
  return {
    id,
    title: `What the CRC-32 costs an upload, ${sizeMiB} MiB`,
    description: [
      'One file streamed from disk with a known Content-Length.',
      'To edgeshare as built, which computes every upload’s CRC-32 with its SHA-256.',
      'To the same code bundled with node:zlib’s crc32 replaced by one that reads nothing (`edgeshare-no-crc32`).',
      `Both as a multipart form (\`POST /api/v2/upload\`) and as a raw body (\`PUT /api/v2/upload/{filename}\`)${
        withTus ? `, and through tus in ${TUS_CHUNK_MIB} MiB PATCHes` : ''
      }.`,
      'The bare Worker’s hashed put (2 MiB reads), alone and with a CRC-32 of every read: native, then a JavaScript table.',
      `Fresh workerd per repetition, warmed by one ${WARM_BYTES / 1024} KiB upload the same way.`,
    ],
    reps,
    freshProcess: true,
    workers: ['serviceNoCrc32'],
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const { variant, bare } = uploadVariants(ctx, sizeMiB);
      const keys: Record<'service' | 'serviceNoCrc32', string> = {
        service: ctx.apiKey,
        serviceNoCrc32: (await ctx.createApiKey('bench-no-crc32', 'serviceNoCrc32')).key,
      };
      /** A file uploaded to one instance, measured, and deleted after. */
      const stored = (worker: ServiceId, key: string, fileId: string, metrics: Rep['metrics']): Rep => ({
        metrics,
        cleanup: async () => {
          await deleteFiles(ctx.workers[worker].url, key, [fileId]);
          return undefined;
        },
      });
      const form = (worker: 'service' | 'serviceNoCrc32') => async (file: string, bytes: number) => {
        const { id: fileId, ms, timing } = await uploadFile(ctx.workers[worker].url, keys[worker], file);
        return stored(worker, keys[worker], fileId, { ...transferred(ms, bytes), ...timing });
      };
      const raw = (worker: 'service' | 'serviceNoCrc32') => async (file: string, bytes: number) => {
        const reply = await send(new URL('/api/v2/upload/bench.bin', ctx.workers[worker].url), {
          method: 'PUT',
          headers: { ...bearer(keys[worker]), 'content-type': 'application/octet-stream' },
          ...fileBody(file),
        });
        if (reply.status !== 201) throw new Error(`raw upload: ${reply.status} ${reply.body.slice(0, 300)}`);
        const fileId = (JSON.parse(reply.body) as { data: { id: string } }).data.id;
        return stored(worker, keys[worker], fileId, {
          ...transferred(reply.ms, bytes),
          ...serverTiming(reply.headers),
        });
      };
      const tus = (worker: 'service' | 'serviceNoCrc32') => async (file: string, bytes: number) => {
        const { id: fileId, ms } = await tusUpload(ctx.workers[worker].url, keys[worker], file, TUS_CHUNK_MIB * MIB);
        return stored(worker, keys[worker], fileId, transferred(ms, bytes));
      };
      /** The same upload to the instance without the CRC (baseline), then as built (compared with it). */
      const pair = (name: string, label: string, upload: typeof form): Variant[] => [
        variant(
          { id: `${name}-no-crc32`, label: `${label}, no CRC-32`, role: 'baseline', worker: 'serviceNoCrc32' },
          upload('serviceNoCrc32'),
        ),
        variant({ id: name, label, role: 'service', worker: 'service', versus: `${name}-no-crc32` }, upload('service')),
      ];
      return [
        ...pair('form', 'edgeshare POST /api/v2/upload', form),
        ...pair('raw', 'edgeshare PUT /api/v2/upload/{filename}', raw),
        ...(withTus ? pair('tus', `edgeshare tus, ${TUS_CHUNK_MIB} MiB PATCHes`, tus) : []),
        bare('digest-reads', 'bare Worker, one put() + SHA-256, 2 MiB reads'),
        bare('crc-native', 'bare Worker, the same + CRC-32 (node:zlib, native)', 'r2-digest-reads'),
        bare('crc-js', 'bare Worker, the same + CRC-32 (JavaScript table)', 'r2-digest-reads'),
      ];
    },
  };
}

// What the SHA-256 of every upload costs, and the raw-body upload against the bare put: one file
// of a known length as raw bytes to the bare R2 Worker (one put; one put hashed on the way) and
// to edgeshare's PUT /api/v2/upload/{filename} (streamed into one put, hashed), and as a form to
// POST /api/v2/upload (hashed too), for one file size.
import type { BenchCase } from '../lib/case.ts';
import { serverTiming } from '../lib/server-timing.ts';
import { bearer, deleteFiles, uploadFile } from '../lib/service.ts';
import { fileBody, send, transferred } from '../lib/transfer.ts';
import { RECORDED_LABEL, TRANSFER_METRICS, uploadVariants, WARM_BYTES } from './uploads.ts';

export function digestCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `SHA-256 and raw upload, ${sizeMiB} MiB`,
    description: [
      'One file streamed from disk with a known Content-Length.',
      'Raw bytes to the bare R2 Worker: one put, and one put hashed through crypto.DigestStream.',
      'Raw bytes to `PUT /api/v2/upload/{filename}`, and a multipart form to `POST /api/v2/upload` (both hash every byte).',
      'The hashed bare put against the plain one is what the digest costs.',
      "The raw upload against the plain put is the service's whole cost.",
      `Fresh workerd per repetition, warmed by one ${WARM_BYTES / 1024} KiB upload.`,
    ],
    reps,
    freshProcess: true,
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const { service } = ctx.workers;
      const { variant, bare } = uploadVariants(ctx, sizeMiB);
      return [
        bare('single', 'bare Worker, one put()'),
        // What hashing costs a Worker: the same put with crypto.DigestStream on the way.
        bare('digest', 'bare Worker, one put() + SHA-256', 'r2-single'),
        // The same hash read in large pieces into one buffer, as the raw upload reads.
        bare('digest-reads', 'bare Worker, one put() + SHA-256, 2 MiB reads (readAtLeast)', 'r2-single'),
        ...(sizeMiB <= 1 ? [bare('recorded', RECORDED_LABEL, 'r2-single')] : []),
        // For a small body: hashed in one call over the buffered bytes instead of as a stream.
        ...(sizeMiB <= 1
          ? [bare('digest-buffered', 'bare Worker, body buffered, crypto.subtle.digest, one put()', 'r2-single')]
          : []),
        variant(
          {
            id: 'service',
            label: 'edgeshare PUT /api/v2/upload/{filename}',
            role: 'service',
            worker: 'service',
            versus: 'r2-single',
          },
          async (file, bytes) => {
            const reply = await send(new URL('/api/v2/upload/bench.bin', service.url), {
              method: 'PUT',
              headers: { ...bearer(ctx.apiKey), 'content-type': 'application/octet-stream' },
              ...fileBody(file),
            });
            if (reply.status !== 201) throw new Error(`raw upload: ${reply.status} ${reply.body.slice(0, 300)}`);
            const fileId = (JSON.parse(reply.body) as { data: { id: string } }).data.id;
            return {
              metrics: { ...transferred(reply.ms, bytes), ...serverTiming(reply.headers) },
              cleanup: async () => {
                await deleteFiles(service.url, ctx.apiKey, [fileId]);
                return undefined;
              },
            };
          },
        ),
        variant(
          {
            id: 'service-form',
            label: 'edgeshare POST /api/v2/upload',
            role: 'peer',
            worker: 'service',
            versus: 'r2-single',
          },
          async (file, bytes) => {
            const { id: fileId, ms, timing } = await uploadFile(service.url, ctx.apiKey, file);
            return {
              metrics: { ...transferred(ms, bytes), ...timing },
              cleanup: async () => {
                await deleteFiles(service.url, ctx.apiKey, [fileId]);
                return undefined;
              },
            };
          },
        ),
      ];
    },
  };
}

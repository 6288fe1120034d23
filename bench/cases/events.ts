// What an event costs an upload: the same 1 MiB POST /api/v2/upload to the service as configured
// (every upload puts a `file.uploaded` event on the EVENTS queue, in waitUntil) and to the same
// bundle started without the EVENTS producer, where enqueueing is skipped. Shown, not a target.
import type { BenchCase } from '../lib/case.ts';
import { formUploader, TRANSFER_METRICS, WARM_BYTES } from './uploads.ts';

export function eventsCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `What an event adds to an upload (${sizeMiB} MiB)`,
    description: [
      'One multipart upload to `POST /api/v2/upload` on edgeshare as configured: the upload enqueues a ' +
        '`file.uploaded` event in waitUntil, and the same process consumes the queue.',
      'The same upload on the same bundle started without its EVENTS queue producer (no event is enqueued).',
      "Both measured from outside, with workerd CPU: the difference is the event's whole cost.",
      `Fresh workerd per repetition, warmed by a ${WARM_BYTES / 1024} KiB upload.`,
    ],
    reps,
    freshProcess: true,
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const uploader = formUploader(ctx, sizeMiB);
      const quietKey = (await ctx.createApiKey('bench-no-events', 'serviceNoEvents')).key;
      return [
        {
          id: 'no-events',
          label: 'edgeshare POST /api/v2/upload, started without the EVENTS queue (no event)',
          role: 'baseline',
          worker: 'serviceNoEvents',
          ...uploader('serviceNoEvents', quietKey),
        },
        {
          id: 'service',
          label: 'edgeshare POST /api/v2/upload as configured (enqueues file.uploaded)',
          role: 'service',
          worker: 'service',
          versus: 'no-events',
          ...uploader('service', ctx.apiKey),
        },
      ];
    },
  };
}

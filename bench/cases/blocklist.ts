// What the hash blocklist costs an upload (issue 39): the same 1 MiB POST /api/v2/upload to
// edgeshare with an empty blocklist and to the same bundle whose blocklist holds 100,000 hashes
// (imported untimed, 10,000 a request, through POST /admin/blocklist), side by side in each round.
// Every upload asks the blocklist once, so the two differ only in the table the one lookup probes.
// The imports' own times are kept as facts: 10,000 hashes in one request, end to end.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BenchCase } from '../lib/case.ts';
import { median } from '../lib/stats.ts';
import { formUploader, TRANSFER_METRICS, WARM_BYTES } from './uploads.ts';

/** Hashes one import request carries: the API's bound (MAX_IMPORT_HASHES). */
const PER_IMPORT = 10_000;

export function blocklistCase(id: string, hashes: number, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `What the hash blocklist costs an upload (${hashes.toLocaleString('en-US')} hashes, ${sizeMiB} MiB)`,
    description: [
      'One multipart upload to `POST /api/v2/upload` on edgeshare with an empty blocklist.',
      `The same upload on the same bundle (its own state) whose blocklist holds ${hashes.toLocaleString('en-US')} ` +
        `hashes, imported untimed ${PER_IMPORT.toLocaleString('en-US')} a request (\`POST /admin/blocklist\`).`,
      'Both ask the blocklist once per upload (one indexed read, checked by test/moderation/blocklist-uploads.test.ts).',
      `Fresh workerd per repetition, warmed by a ${WARM_BYTES / 1024} KiB upload.`,
    ],
    reps,
    freshProcess: true,
    workers: ['serviceBlocklist'],
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const uploader = formUploader(ctx, sizeMiB);
      const importMs: number[] = [];
      for (let imported = 0; imported < hashes; imported += PER_IMPORT) {
        const count = Math.min(PER_IMPORT, hashes - imported);
        const lines = Array.from({ length: count }, () => randomBytes(32).toString('hex'));
        const body = Buffer.from(`${lines.join('\n')}\n`);
        const reply = await ctx.admin('serviceBlocklist', '/admin/blocklist?reason=bench', {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: Readable.from([body]),
          length: body.length,
        });
        if (reply.status !== 200) throw new Error(`blocklist import: ${reply.status} ${reply.body.slice(0, 300)}`);
        importMs.push(reply.ms);
      }
      ctx.facts[`${id}.hashes`] = hashes;
      ctx.facts[`${id}.importMsPer10000`] = Math.round(median(importMs));
      ctx.facts[`${id}.importMsMax`] = Math.round(Math.max(...importMs));
      const blockedKey = (await ctx.createApiKey('bench-blocklist', 'serviceBlocklist')).key;
      return [
        {
          id: 'empty-blocklist',
          label: 'edgeshare POST /api/v2/upload, an empty blocklist',
          role: 'baseline',
          worker: 'service',
          ...uploader('service', ctx.apiKey),
        },
        {
          id: 'service',
          label: `edgeshare POST /api/v2/upload, ${hashes.toLocaleString('en-US')} hashes blocked`,
          role: 'service',
          worker: 'serviceBlocklist',
          versus: 'empty-blocklist',
          ...uploader('serviceBlocklist', blockedKey),
        },
      ];
    },
  };
}

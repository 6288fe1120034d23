// Bulk upload: one POST /api/v2/upload/bulk with N files against N sequential POST /api/v2/upload.

import type { BenchCase, Metrics, Variant } from '../lib/case.ts';
import { deleteFiles, fileParts, postForm, uploadFile } from '../lib/service.ts';
import { MIB, makeFile, send, transferred } from '../lib/transfer.ts';

export function bulkCase(id: string, files: number, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `Bulk upload: ${files} × ${sizeMiB} MiB in one request vs ${files} sequential uploads`,
    description: [
      `\`POST /api/v2/upload/bulk\` with ${files} \`files\` parts against ${files} \`POST /api/v2/upload\` sent one after another.`,
      'Time from the first byte sent to the last answer read.',
      "The tutorial Worker takes the same form: the runtime's own parser, then every file put at once, with no key, hash or record.",
      `That is how fast this runtime stores ${files} files from one request at all.`,
      'The most a bulk upload could gain here is the sequential time over that.',
    ],
    reps,
    // Every upload enqueues events, consumed up to a second later in the same process.
    settleMs: 1100,
    metrics: [
      { name: 'ms', label: 'time for all files', unit: 'ms', better: 'lower', digits: 0 },
      { name: 'mibPerS', label: 'throughput', unit: 'MiB/s', better: 'higher', digits: 1 },
    ],
    async prepare(ctx) {
      const { service } = ctx.workers;
      const path = makeFile(ctx.tmpDir, sizeMiB * MIB);
      const paths = Array.from({ length: files }, () => path);
      const result = (ms: number, ids: string[], timing: Metrics = {}) => ({
        metrics: { ...transferred(ms, files * sizeMiB * MIB), ...timing },
        cleanup: async () => {
          await deleteFiles(service.url, ctx.apiKey, ids);
          return undefined;
        },
      });
      const sequentialUploads: Variant = {
        id: 'sequential',
        label: `${files} × POST /api/v2/upload, one after another`,
        role: 'baseline',
        worker: 'service',
        async run() {
          const started = performance.now();
          const ids: string[] = [];
          for (const file of paths) ids.push((await uploadFile(service.url, ctx.apiKey, file)).id);
          return result(performance.now() - started, ids);
        },
      };
      const bulk: Variant = {
        id: 'bulk',
        label: `POST /api/v2/upload/bulk with ${files} files`,
        role: 'service',
        worker: 'service',
        versus: 'sequential',
        async run() {
          const { ms, json, timing } = await postForm(
            new URL('/api/v2/upload/bulk', service.url),
            ctx.apiKey,
            fileParts('files', paths),
          );
          const data = json.data as { successful: number; results: { data?: { id: string } }[] };
          if (data.successful !== files) throw new Error(`bulk: ${data.successful} of ${files} stored`);
          return result(
            ms,
            data.results.flatMap((entry) => (entry.data ? [entry.data.id] : [])),
            timing,
          );
        },
      };
      /** A bare Worker's bulk route taking the same form: it answers with the keys it stored. */
      const bareBulkVariant = (id: string, label: string, worker: 'tutorial' | 'r2', path: string): Variant => {
        const base = ctx.workers[worker].url;
        return {
          id,
          label,
          role: 'baseline',
          worker,
          versus: 'sequential',
          async run() {
            const { ms, json } = await postForm(new URL(path, base), ctx.apiKey, fileParts('files', paths));
            const keys = (json as { keys: string[] }).keys;
            if (keys.length !== files) throw new Error(`${id}: ${keys.length} of ${files} stored`);
            return {
              metrics: transferred(ms, files * sizeMiB * MIB),
              cleanup: async () => {
                for (const key of keys) await send(new URL(`/object/${key}`, base), { method: 'DELETE' });
                return undefined;
              },
            };
          },
        };
      };
      // The floor: the same form through the tutorial Worker's bulk route (the runtime's own form
      // parser, every file put at once; no key, no hash, no records).
      const bareBulk = bareBulkVariant(
        'bare-bulk',
        `tutorial Worker, formData() then ${files} puts at once`,
        'tutorial',
        '/bulk',
      );
      // The floor with the work every recorded bulk upload must do: the tutorial's form parsing
      // and puts, plus a SHA-256 per file, the two calls to the caller's object and one D1 batch.
      const recordedBulk = bareBulkVariant(
        'recorded-bulk',
        `bare Worker: formData(), two DO calls, ${files} files hashed and put at once, one D1 batch`,
        'r2',
        '/recorded-bulk/bench',
      );
      return [sequentialUploads, bareBulk, recordedBulk, bulk];
    },
  };
}

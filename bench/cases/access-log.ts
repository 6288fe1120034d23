// What the access log costs a share download: the same file through the same kind of link, on
// edgeshare as configured (the download's bytes counted as they go, its event recorded after the
// answer) and on the same bundle started with ACCESS_LOG=off, in the same run.
import type { BenchCase, ServiceId, Variant } from '../lib/case.ts';
import { bearer, jsonBody, storedAs, uploadFile } from '../lib/service.ts';
import { send } from '../lib/transfer.ts';
import { downloadReader } from './downloads.ts';
import { caseFiles, TRANSFER_METRICS, WARM_BYTES } from './uploads.ts';

/** Makes a link (no password, no cap: the access log's whole cost, with no budget's) and returns its download path. */
async function openLink(base: URL, key: string, fileId: string): Promise<string> {
  const reply = await send(new URL(`/api/v2/files/${fileId}/links`, base), {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    ...jsonBody({ label: 'bench' }),
  });
  if (reply.status !== 201) throw new Error(`making a link: ${reply.status} ${reply.body.slice(0, 300)}`);
  return `${new URL((JSON.parse(reply.body) as { data: { url: string } }).data.url).pathname}/download`;
}

export function accessLogCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `What the access log costs a share download (${sizeMiB} MiB)`,
    description: [
      'The file is uploaded once to each instance (untimed) and given a made share link without a password or a cap.',
      'Each repetition reads `GET /share/<token>/download` to the end: on edgeshare as configured (the body counted ' +
        'as it goes out, the event queued after it and sent to the link’s object in waitUntil) and on the same ' +
        'bundle started with `ACCESS_LOG=off`.',
      `Fresh workerd per repetition, warmed by a ${WARM_BYTES / 1024} KiB file read the same way.`,
    ],
    reps,
    freshProcess: true,
    workers: ['serviceNoAccessLog'],
    // The event's call to the link's object runs after the answer: let it land before the next variant.
    settleMs: 300,
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const { size, path, warmPath } = caseFiles(ctx, sizeMiB);
      const quietKey = (await ctx.createApiKey('bench-no-access-log', 'serviceNoAccessLog')).key;
      const reader = downloadReader(size);
      const linked = async (worker: ServiceId, key: string): Promise<Pick<Variant, 'run' | 'warm'>> => {
        const base = ctx.workers[worker].url;
        const { id: fileId } = await uploadFile(base, key, path);
        const { id: warmId } = await uploadFile(base, key, warmPath);
        ctx.facts[`${id}.${worker}.storedAs`] = await storedAs(base, key, fileId);
        return reader(await openLink(base, key, fileId), await openLink(base, key, warmId), base);
      };
      return [
        {
          id: 'no-access-log',
          label: 'edgeshare GET /share/<token>/download, started with ACCESS_LOG=off',
          role: 'baseline',
          worker: 'serviceNoAccessLog',
          ...(await linked('serviceNoAccessLog', quietKey)),
        },
        {
          id: 'service',
          label: 'edgeshare GET /share/<token>/download as configured (the access log on)',
          role: 'service',
          worker: 'service',
          versus: 'no-access-log',
          ...(await linked('service', ctx.apiKey)),
        },
      ];
    },
  };
}

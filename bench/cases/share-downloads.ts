// A download through a made share link (password by HTTP Basic, counted against maxDownloads)
// against the bare R2 stream of an object stored the same way (one put() or R2 multipart).
import type { BenchCase } from '../lib/case.ts';
import { bearer, jsonBody, storedAs, uploadFile } from '../lib/service.ts';
import { send } from '../lib/transfer.ts';
import { bareReadVariants, downloadReader, storeBareCopies } from './downloads.ts';
import { caseFiles, TRANSFER_METRICS, WARM_BYTES } from './uploads.ts';

/** Only the bench knows it; sent as HTTP Basic with an empty user name, as scripts do. */
const PASSWORD = 'bench share-link password';

export function shareDownloadCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `Download ${sizeMiB} MiB through a share link`,
    description: [
      'The file is uploaded once through the service (untimed) and given a made share link with a password and a ' +
        'high maxDownloads.',
      'The same bytes are stored into the bare Worker by one put() and by R2 multipart (8 MiB parts).',
      'Each repetition reads `GET /share/<token>/download` with `Authorization: Basic` (empty user name) to the end.',
      'The per-address throttle, the password check (PBKDF2) and the exact download count are all in it.',
      'A second link to the same file without a password shows what the password check costs.',
      `Fresh workerd per repetition, warmed by a ${WARM_BYTES / 1024} KiB file read the same way.`,
    ],
    reps,
    freshProcess: true,
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const { size, path, warmPath } = caseFiles(ctx, sizeMiB);
      const { r2, service } = ctx.workers;
      await storeBareCopies(r2.url, 'share', path, warmPath);
      const makeLink = async (fileId: string, password: string | null = PASSWORD) => {
        const reply = await send(new URL(`/api/v2/files/${fileId}/links`, service.url), {
          method: 'POST',
          headers: { ...bearer(ctx.apiKey), 'content-type': 'application/json' },
          ...jsonBody({ label: 'bench', maxDownloads: 1_000_000, ...(password === null ? {} : { password }) }),
        });
        if (reply.status !== 201) throw new Error(`making a link: ${reply.status} ${reply.body.slice(0, 300)}`);
        const { url } = (JSON.parse(reply.body) as { data: { url: string } }).data;
        return `${new URL(url).pathname}/download`;
      };
      const { id: fileId } = await uploadFile(service.url, ctx.apiKey, path);
      const { id: warmId } = await uploadFile(service.url, ctx.apiKey, warmPath);
      const serviceStoredAs = await storedAs(service.url, ctx.apiKey, fileId);
      ctx.facts[`${id}.serviceStoredAs`] = serviceStoredAs;
      const linkPath = await makeLink(fileId);
      const warmLinkPath = await makeLink(warmId);
      // The same link without a password: what the password check (PBKDF2 per request) costs.
      const openLinkPath = await makeLink(fileId, null);
      const openWarmLinkPath = await makeLink(warmId, null);

      const reader = downloadReader(size);
      return [
        ...bareReadVariants(reader, r2.url, 'share'),
        {
          id: 'service',
          label: `edgeshare GET /share/<token>/download, password by HTTP Basic (stored by ${serviceStoredAs === 'multipart' ? 'R2 multipart' : 'one put()'})`,
          role: 'service',
          worker: 'service',
          versus: `r2-${serviceStoredAs}`,
          ...reader(linkPath, warmLinkPath, service.url, {
            authorization: `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}`,
          }),
        },
        {
          id: 'service-open',
          label: 'edgeshare GET /share/<token>/download, a link without a password',
          role: 'peer',
          worker: 'service',
          versus: `r2-${serviceStoredAs}`,
          ...reader(openLinkPath, openWarmLinkPath, service.url),
        },
      ];
    },
  };
}

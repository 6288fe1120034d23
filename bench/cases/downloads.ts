// A large download: GET /api/v2/files/:id/download against the bare R2 stream of an object stored
// by one put() and of one stored by R2 multipart.
import type { BenchCase, Variant } from '../lib/case.ts';
import { bearer, storedAs, uploadFile } from '../lib/service.ts';
import { download, fileBody, send, transferred } from '../lib/transfer.ts';
import { caseFiles, TRANSFER_METRICS, WARM_BYTES } from './uploads.ts';

export function downloadCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `Download ${sizeMiB} MiB`,
    description:
      'The file is stored once before the rounds (untimed): through the service, and into the bare Worker by one put() ' +
      'and by R2 multipart (8 MiB parts). Each repetition reads it to the end and discards it, in a fresh workerd ' +
      `process warmed by reading a ${WARM_BYTES / 1024} KiB file the same way.`,
    reps,
    freshProcess: true,
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const { size, path, warmPath } = caseFiles(ctx, sizeMiB);
      const { r2, service } = ctx.workers;
      await storeBareCopies(r2.url, 'download', path, warmPath);
      const { id: fileId } = await uploadFile(service.url, ctx.apiKey, path);
      const { id: warmId } = await uploadFile(service.url, ctx.apiKey, warmPath);
      const serviceStoredAs = await storedAs(service.url, ctx.apiKey, fileId);
      ctx.facts[`${id}.serviceStoredAs`] = serviceStoredAs;

      const reader = downloadReader(size);
      return [
        ...bareReadVariants(reader, r2.url, 'download'),
        {
          id: 'service',
          label: `edgeshare GET /api/v2/files/:id/download (stored by ${serviceStoredAs === 'multipart' ? 'R2 multipart' : 'one put()'})`,
          role: 'service',
          worker: 'service',
          versus: `r2-${serviceStoredAs}`,
          ...reader(
            `/api/v2/files/${fileId}/download`,
            `/api/v2/files/${warmId}/download`,
            service.url,
            bearer(ctx.apiKey),
          ),
        },
      ];
    },
  };
}

/** Stores the file and the warm-up file into the bare Worker by one put() and by R2 multipart (untimed). */
export async function storeBareCopies(base: URL, prefix: string, path: string, warmPath: string): Promise<void> {
  for (const route of ['single', 'multipart']) {
    for (const [name, file] of [
      [`${prefix}-${route}`, path],
      [`${prefix}-warm-${route}`, warmPath],
    ] as const) {
      const reply = await send(new URL(`/${route}/${name}`, base), { method: 'PUT', ...fileBody(file) });
      if (reply.status !== 200) throw new Error(`storing ${name}: ${reply.status}`);
    }
  }
}

/** A variant's run and warm-up that read a file of `size` bytes (or the warm-up file) to its end. */
export function downloadReader(size: number) {
  const read = async (url: URL, bytes: number, headers: Record<string, string>) => {
    const reply = await download(url, headers);
    if (reply.status !== 200 || reply.bytes !== bytes)
      throw new Error(`${url.pathname}: ${reply.status}, ${reply.bytes} bytes`);
    return reply.ms;
  };
  return (
    path: string,
    warmPath: string,
    base: URL,
    headers: Record<string, string> = {},
  ): Pick<Variant, 'run' | 'warm'> => ({
    async run() {
      const ms = await read(new URL(path, base), size, headers);
      return { metrics: transferred(ms, size) };
    },
    async warm() {
      await read(new URL(warmPath, base), WARM_BYTES, headers);
    },
  });
}

/** The bare Worker's reads of the copies storeBareCopies made: one put() (the baseline) and R2 multipart. */
export function bareReadVariants(reader: ReturnType<typeof downloadReader>, base: URL, prefix: string): Variant[] {
  return [
    {
      id: 'r2-single',
      label: 'bare Worker, object stored by one put()',
      role: 'baseline',
      worker: 'r2',
      ...reader(`/object/${prefix}-single`, `/object/${prefix}-warm-single`, base),
    },
    {
      id: 'r2-multipart',
      label: 'bare Worker, object stored by R2 multipart',
      role: 'baseline',
      worker: 'r2',
      versus: 'r2-single',
      ...reader(`/object/${prefix}-multipart`, `/object/${prefix}-warm-multipart`, base),
    },
  ];
}

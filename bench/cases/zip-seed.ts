// The members the ZIP cases read, stored once per run and shared: files of one size uploaded to
// edgeshare (raw PUT with a Content-Length: one R2 put each) and the same bytes put into the
// zip-stream Worker's bucket under keys in the same order. A case asking for the first N members
// of a size gets them, uploading only those not stored yet: the 320 MiB, 1 GiB and 3 GiB archives
// are the first 20, 64 and 192 members of one pool of 16 MiB files.
import type { BenchContext } from '../lib/case.ts';
import { bearer, jsonBody } from '../lib/service.ts';
import { fileBody, makeFile, send } from '../lib/transfer.ts';

type Pool = { prefix: string; path: string; serviceIds: string[] };

const pools = new WeakMap<BenchContext, Map<number, Pool>>();

/** Uploads at once while seeding: small members are bound by request latency, not bytes. */
const SEED_CONCURRENCY = 4;

export type ZipMembers = {
  /** The members' file ids in the service, in archive order. */
  serviceIds: string[];
  /** The zip-stream Worker's key prefix; its keys under it sort in the same order. */
  prefix: string;
  memberBytes: number;
};

/** The first `count` members of `memberBytes` each, stored in both places (untimed). */
export async function zipMembers(ctx: BenchContext, memberBytes: number, count: number): Promise<ZipMembers> {
  const byContext = pools.get(ctx) ?? new Map<number, Pool>();
  pools.set(ctx, byContext);
  const pool = byContext.get(memberBytes) ?? {
    prefix: `m${memberBytes}-`,
    path: makeFile(ctx.tmpDir, memberBytes),
    serviceIds: [],
  };
  byContext.set(memberBytes, pool);
  const { service, zipStream } = ctx.workers;
  let next = pool.serviceIds.length;
  const seedOne = async (index: number) => {
    const name = `${pool.prefix}${String(index).padStart(5, '0')}`;
    const reply = await send(new URL(`/api/v2/upload/${name}.bin`, service.url), {
      method: 'PUT',
      headers: { ...bearer(ctx.apiKey), 'content-type': 'application/octet-stream' },
      ...fileBody(pool.path),
    });
    if (reply.status !== 201) throw new Error(`seeding ${name}: ${reply.status} ${reply.body.slice(0, 300)}`);
    pool.serviceIds[index] = (JSON.parse(reply.body) as { data: { id: string } }).data.id;
    const bare = await send(new URL(`/object/${name}`, zipStream.url), { method: 'PUT', ...fileBody(pool.path) });
    if (bare.status !== 200) throw new Error(`seeding the bare ${name}: ${bare.status} ${bare.body.slice(0, 300)}`);
  };
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < count) await seedOne(next++);
    }),
  );
  return { serviceIds: pool.serviceIds.slice(0, count), prefix: pool.prefix, memberBytes };
}

/** A collection of the given files, in order (100 ids a request); returns its archive's path. */
export async function collectionArchive(ctx: BenchContext, name: string, fileIds: string[]): Promise<string> {
  const { service } = ctx.workers;
  const headers = { ...bearer(ctx.apiKey), 'content-type': 'application/json' };
  const created = await send(new URL('/api/v2/collections', service.url), {
    method: 'POST',
    headers,
    ...jsonBody({ name, fileIds: fileIds.slice(0, 100) }),
  });
  if (created.status !== 201) throw new Error(`making a collection: ${created.status} ${created.body.slice(0, 300)}`);
  const { id } = (JSON.parse(created.body) as { data: { id: string } }).data;
  for (let i = 100; i < fileIds.length; i += 100) {
    const added = await send(new URL(`/api/v2/collections/${id}/files`, service.url), {
      method: 'POST',
      headers,
      ...jsonBody({ fileIds: fileIds.slice(i, i + 100) }),
    });
    if (added.status !== 200) throw new Error(`adding to a collection: ${added.status} ${added.body.slice(0, 300)}`);
  }
  return `/api/v2/collections/${id}/archive`;
}

/** The length a HEAD of `path` announces (the archive's exact Content-Length). */
export async function contentLength(base: URL, path: string, headers: Record<string, string>): Promise<number> {
  const reply = await send(new URL(path, base), { method: 'HEAD', headers });
  const length = Number(reply.headers['content-length']);
  if (reply.status !== 200 || !Number.isSafeInteger(length)) throw new Error(`HEAD ${path}: ${reply.status}`);
  return length;
}

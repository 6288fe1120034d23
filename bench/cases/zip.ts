// A collection's ZIP archive (issue 31, "Speed"): the owner's GET /api/v2/collections/{id}/archive
// against a bare Worker streaming the same R2 objects back to back (bench/workers/zip-stream), with
// the peer a user would write (client-zip zipping on the fly) shown beside; its memory from a
// 320 MiB archive to a 3 GiB one; and the time to the first byte of a range from its middle.
import type { BenchCase, BenchContext, MetricSpec, Variant } from '../lib/case.ts';
import { medianServerTiming, serverTiming } from '../lib/server-timing.ts';
import { bearer } from '../lib/service.ts';
import { download, fileBody, MIB, makeFile, send, transferred } from '../lib/transfer.ts';
import { TRANSFER_METRICS, WARM_BYTES } from './uploads.ts';
import { collectionArchive, contentLength, type ZipMembers, zipMembers } from './zip-seed.ts';

/** PsiTransfer on this kind of machine (issue 31): context for the peer, not measured here. */
const PSITRANSFER =
  'For scale (issue 31, not measured here): PsiTransfer served a ZIP of 20 × 16 MiB on this kind of machine at ' +
  '23.5 MiB/s, deflating on the fly with a whole core busy, no Content-Length, ranges ignored.';

/** "16 MiB", "3 GiB", "64 KiB", "1.00 GiB" (two decimals where not whole). */
function size(bytes: number): string {
  const [value, unit] =
    bytes >= 2 ** 30 ? [bytes / 2 ** 30, 'GiB'] : bytes >= MIB ? [bytes / MIB, 'MiB'] : [bytes / 1024, 'KiB'];
  return `${Number.isInteger(value) ? value : value.toFixed(2)} ${unit}`;
}

/** The bytes the bare Worker writes before each object in its concat-headed variant: about a local header with its name. */
const HEADER_BYTES = 48;

/** The warm-up's archive: two small members, read the same way as the variant reads its own. */
const WARM_MEMBERS = 2;

type Read = { path: string; base: URL; headers?: Record<string, string>; bytes: (got: number) => boolean };

/** A variant's run (and warm-up) reading a whole response to its end; throughput of its own bytes. */
function reader(read: Read, warm: Read): Pick<Variant, 'run' | 'warm'> {
  const once = async ({ path, base, headers, bytes }: Read) => {
    const reply = await download(new URL(path, base), headers);
    if (reply.status !== 200 || !bytes(reply.bytes)) throw new Error(`${path}: ${reply.status}, ${reply.bytes} bytes`);
    return reply;
  };
  return {
    async run() {
      const reply = await once(read);
      return {
        metrics: {
          ...transferred(reply.ms, reply.bytes),
          firstByteMs: reply.firstByteMs,
          ...serverTiming(reply.headers),
        },
      };
    },
    async warm() {
      await once(warm);
    },
  };
}

/** The three ways of sending the same members: bare concat, edgeshare's archive, client-zip. */
async function archiveVariants(
  ctx: BenchContext,
  members: ZipMembers,
  warm: ZipMembers,
  tag: string,
  options: { clientZip: boolean },
): Promise<Variant[]> {
  const { service, zipStream } = ctx.workers;
  const count = members.serviceIds.length;
  const archivePath = await collectionArchive(ctx, `bench ${tag}`, members.serviceIds);
  const warmPath = await collectionArchive(ctx, `bench ${tag} warm-up`, warm.serviceIds);
  const auth = bearer(ctx.apiKey);
  const archiveBytes = await contentLength(service.url, archivePath, auth);
  const warmArchiveBytes = await contentLength(service.url, warmPath, auth);
  const payload = count * members.memberBytes;
  const warmPayload = WARM_MEMBERS * warm.memberBytes;
  const bare = (route: string, members: ZipMembers, n: number) =>
    `/${route}?prefix=${encodeURIComponent(members.prefix)}&count=${n}`;
  const variants: Variant[] = [
    {
      id: `concat${tag}`,
      label: `bare Worker, the same ${count} × ${size(members.memberBytes)} R2 objects back to back`,
      role: 'baseline',
      worker: 'zipStream',
      ...reader(
        { path: bare('concat', members, count), base: zipStream.url, bytes: (got) => got === payload },
        { path: bare('concat', warm, WARM_MEMBERS), base: zipStream.url, bytes: (got) => got === warmPayload },
      ),
    },
    {
      id: `service${tag}`,
      label: `edgeshare GET /api/v2/collections/{id}/archive, ${count} × ${size(members.memberBytes)}`,
      role: 'service',
      worker: 'service',
      versus: `concat${tag}`,
      ...reader(
        { path: archivePath, base: service.url, headers: auth, bytes: (got) => got === archiveBytes },
        { path: warmPath, base: service.url, headers: auth, bytes: (got) => got === warmArchiveBytes },
      ),
    },
  ];
  // The writes a ZIP needs besides its members' bytes, without the ZIP: one small write before each object.
  variants.push({
    id: `concat-headed${tag}`,
    label: `bare Worker, the same ${count} × ${size(members.memberBytes)} objects with a ${HEADER_BYTES}-byte write before each (no ZIP)`,
    role: 'peer',
    worker: 'zipStream',
    versus: `concat${tag}`,
    ...reader(
      {
        path: `${bare('concat', members, count)}&header=${HEADER_BYTES}`,
        base: zipStream.url,
        bytes: (got) => got === payload + count * HEADER_BYTES,
      },
      {
        path: `${bare('concat', warm, WARM_MEMBERS)}&header=${HEADER_BYTES}`,
        base: zipStream.url,
        bytes: (got) => got === warmPayload + WARM_MEMBERS * HEADER_BYTES,
      },
    ),
  });
  // What the archive's stream shape costs by itself, beside it: chunks through a pulled JavaScript stream.
  variants.push({
    id: `concat-js${tag}`,
    label: `bare Worker, the same ${count} × ${size(members.memberBytes)} objects through a pulled JavaScript stream (no ZIP)`,
    role: 'peer',
    worker: 'zipStream',
    versus: `concat${tag}`,
    ...reader(
      { path: bare('concat-js', members, count), base: zipStream.url, bytes: (got) => got === payload },
      { path: bare('concat-js', warm, WARM_MEMBERS), base: zipStream.url, bytes: (got) => got === warmPayload },
    ),
  });
  if (options.clientZip) {
    variants.push({
      id: `client-zip${tag}`,
      label: 'bare Worker zipping the same objects with client-zip (CRC-32 at download time, no Content-Length)',
      role: 'peer',
      worker: 'zipStream',
      versus: `concat${tag}`,
      // Its exact length is client-zip's business: more than the members, less than edgeshare's headers allow.
      ...reader(
        {
          path: bare('client-zip', members, count),
          base: zipStream.url,
          bytes: (got) => got > payload && got < payload + count * 1024 + 1024,
        },
        { path: bare('client-zip', warm, WARM_MEMBERS), base: zipStream.url, bytes: (got) => got > warmPayload },
      ),
    });
  }
  return variants;
}

/** The warm-up members: two of WARM_BYTES, shared by every ZIP case. */
const warmMembers = (ctx: BenchContext) => zipMembers(ctx, WARM_BYTES, WARM_MEMBERS);

/** A whole archive of `count` members of `memberBytes`: edgeshare against the bare concat, client-zip shown. */
export function zipThroughputCase(id: string, count: number, memberBytes: number, reps: number): BenchCase {
  return {
    id,
    title: `A collection's ZIP archive, ${count} × ${size(memberBytes)}`,
    description: [
      `${count} files of ${size(memberBytes)} (random bytes) are uploaded once before the rounds (untimed) by raw \`PUT\` ` +
        '(one R2 put each) and made into one collection; the same bytes are put into the zip-stream Worker’s bucket.',
      'edgeshare: `GET /api/v2/collections/{id}/archive` read to the end (stored entries, CRC-32s from the records, ' +
        'exact Content-Length).',
      'Baseline: a bare Worker streaming the same objects back to back in one response, each body piped into one ' +
        '`FixedLengthStream` (no headers, no checks).',
      `Beside it (no goal): the same objects with one ${HEADER_BYTES}-byte write before each, as a ZIP writes a local ` +
        'header before each member: the floor of any archive streamed this way, what one small write per member costs.',
      'Beside it (no goal): the same objects through a pulled JavaScript `ReadableStream` into a `FixedLengthStream`, ' +
        'the shape of the archive’s stream without the ZIP: what that shape costs in this runtime.',
      'Peer (shown, no goal): a bare Worker zipping the same objects with client-zip’s `downloadZip` as its README ' +
        'shows (stored, CRC-32 computed while streaming, data descriptors, no Content-Length).',
      PSITRANSFER,
      'Throughput is each response’s own bytes / request time.',
      `Fresh workerd per repetition, warmed by a ${WARM_MEMBERS} × ${size(WARM_BYTES)} archive read the same way.`,
    ],
    reps,
    freshProcess: true,
    workers: ['zipStream'],
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const members = await zipMembers(ctx, memberBytes, count);
      return archiveVariants(ctx, members, await warmMembers(ctx), '', { clientZip: true });
    },
  };
}

/** Memory of the service's process for a small and a large archive of the same members, each against the bare concat. */
export function zipMemoryCase(
  id: string,
  memberBytes: number,
  smallCount: number,
  largeCount: number,
  reps: number,
): BenchCase {
  const small = size(smallCount * memberBytes);
  const large = size(largeCount * memberBytes);
  return {
    id,
    title: `A collection's ZIP archive: memory from ${small} to ${large}`,
    description: [
      `The first ${smallCount} and the first ${largeCount} of one set of ${size(memberBytes)} files (uploaded once, ` +
        'untimed, shared with the other ZIP cases) as two collections.',
      'Each archive read whole through `GET /api/v2/collections/{id}/archive`, and the same objects streamed back to ' +
        'back by the bare Worker.',
      `Beside each, the same objects with a ${HEADER_BYTES}-byte write before each (a local header’s writes without ` +
        'the ZIP), and through a pulled JavaScript stream (the archive’s shape without the ZIP).',
      'What matters here is workerd’s peak memory growth: against the bare Worker at each size, and the large ' +
        'archive’s against the small one’s (flat means it does not grow with the archive).',
      `Fresh workerd per repetition, warmed by a ${WARM_MEMBERS} × ${size(WARM_BYTES)} archive read the same way.`,
    ],
    reps,
    freshProcess: true,
    workers: ['zipStream'],
    metrics: TRANSFER_METRICS,
    async prepare(ctx) {
      const warm = await warmMembers(ctx);
      const members = await zipMembers(ctx, memberBytes, largeCount);
      const first = { ...members, serviceIds: members.serviceIds.slice(0, smallCount) };
      return [
        ...(await archiveVariants(ctx, first, warm, '-small', { clientZip: false })),
        ...(await archiveVariants(ctx, members, warm, '-large', { clientZip: false })),
      ];
    },
  };
}

export const TTFB_METRICS: MetricSpec[] = [
  { name: 'firstByteMs', label: 'time to first byte', unit: 'ms', better: 'lower', digits: 1 },
  { name: 'ms', label: 'range request time', unit: 'ms', better: 'lower', digits: 1 },
];

/** Ranged requests per repetition; the repetition reports their medians. */
const RANGES_PER_REP = 5;

/**
 * A 1 MiB range from the middle of an archive of `count` members against the same range of one
 * file of the same total size (GET /api/v2/files/{id}/download): time to the first byte.
 */
export function zipRangeCase(id: string, memberBytes: number, count: number, reps: number): BenchCase {
  const total = memberBytes * count;
  return {
    id,
    title: `A 1 MiB range from the middle of a ${size(total)} ZIP archive`,
    description: [
      `An archive of ${count} × ${size(memberBytes)} (the first members of the set the other ZIP cases use) and one ` +
        `file of ${size(total)}, uploaded once before the rounds (untimed) by raw \`PUT\` (one R2 put each).`,
      `edgeshare: \`Range\` of 1 MiB from the archive’s middle (plus a quarter member, so the range starts inside a ` +
        'member’s bytes, not at a header made from the records) through `GET /api/v2/collections/{id}/archive`.',
      'Baseline: the same 1 MiB from the single file’s middle through `GET /api/v2/files/{id}/download`; beside ' +
        'it, the floor: a bare Worker’s ranged get of the same bytes stored the same way.',
      `Each repetition sends ${RANGES_PER_REP} ranged requests one after another and reports their medians; ` +
        'time to first byte is from sending the request to the first byte of the body.',
    ],
    reps,
    workers: ['zipStream'],
    metrics: TTFB_METRICS,
    async prepare(ctx) {
      const { service, zipStream } = ctx.workers;
      const auth = bearer(ctx.apiKey);
      const members = await zipMembers(ctx, memberBytes, count);
      const archivePath = await collectionArchive(ctx, 'bench range', members.serviceIds);
      const archiveBytes = await contentLength(service.url, archivePath, auth);
      const reply = await send(new URL('/api/v2/upload/bench-range.bin', service.url), {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        ...fileBody(makeFile(ctx.tmpDir, total)),
      });
      if (reply.status !== 201)
        throw new Error(`uploading the single file: ${reply.status} ${reply.body.slice(0, 300)}`);
      const filePath = `/api/v2/files/${(JSON.parse(reply.body) as { data: { id: string } }).data.id}/download`;
      const bareKey = `single-${total}`;
      const bare = await send(new URL(`/object/${bareKey}`, zipStream.url), {
        method: 'PUT',
        ...fileBody(makeFile(ctx.tmpDir, total)),
      });
      if (bare.status !== 200)
        throw new Error(`storing the bare single file: ${bare.status} ${bare.body.slice(0, 300)}`);
      const ranged = (
        base: URL,
        path: string,
        start: number,
        headers: Record<string, string>,
      ): Pick<Variant, 'run'> => {
        const range = { ...headers, range: `bytes=${start}-${start + MIB - 1}` };
        const once = async () => {
          const got = await download(new URL(path, base), range);
          if (got.status !== 206 || got.bytes !== MIB)
            throw new Error(`${path} ${range.range}: ${got.status}, ${got.bytes} bytes`);
          return got;
        };
        return {
          async run() {
            const runs = [];
            for (let i = 0; i < RANGES_PER_REP; i++) runs.push(await once());
            const middle = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
            return {
              metrics: {
                firstByteMs: middle(runs.map((run) => run.firstByteMs)),
                ms: middle(runs.map((run) => run.ms)),
                requests: RANGES_PER_REP,
                ...medianServerTiming(runs.map((run) => serverTiming(run.headers))),
              },
            };
          },
        };
      };
      const bareFile = ranged(zipStream.url, `/object/${bareKey}`, Math.floor(total / 2), {});
      const file = ranged(service.url, filePath, Math.floor(total / 2), auth);
      const archive = ranged(
        service.url,
        archivePath,
        Math.floor(archiveBytes / 2) + Math.floor(memberBytes / 4),
        auth,
      );
      // One untimed request down each path, so the first round does not pay for compiling it.
      for (const variant of [bareFile, file, archive]) await variant.run();
      return [
        {
          id: 'r2-range',
          label: `bare Worker, 1 MiB range of a ${size(total)} R2 object (the floor)`,
          role: 'baseline',
          worker: 'zipStream',
          ...bareFile,
        },
        {
          id: 'file-range',
          label: `edgeshare GET /api/v2/files/{id}/download, 1 MiB range of ${size(total)}`,
          role: 'baseline',
          worker: 'service',
          versus: 'r2-range',
          ...file,
        },
        {
          id: 'service',
          label: `edgeshare GET /api/v2/collections/{id}/archive, 1 MiB range of ${size(archiveBytes)}`,
          role: 'service',
          worker: 'service',
          versus: 'file-range',
          ...archive,
        },
      ];
    },
  };
}

// One ZIP archive of several files (a collection's, or a file request's), answered without ever
// being built: its layout follows from the members' records (src/lib/zip.ts), and its bytes, or
// any range of them, stream from R2 with ranged gets, one member after another. Every way in
// (the owner's routes here; a collection link's /share/<token>/archive.zip) goes through
// prepareArchive → planArchive → archiveResponse, with the deps it has. No HTTP framework here.
import { ApiError, archiveChanged, tooManyFiles } from '../errors';
import { type EventSink, emitEvents } from '../events/emit';
import { bytesCarried, countsAsDownload, type DownloadPlan, parseRange } from '../files/download';
import { contentDisposition } from '../files/names';
import { crc32, crc32Combine } from '../lib/crc32';
import { sha256Hex } from '../lib/crypto';
import { membersTouched, type ZipLayout, zipEtagInput, zipLayoutOfFiles, zipMemberName, zipRange } from '../lib/zip';
import { log } from '../log';
import { type ArchiveMemberRow, segmentsOfFiles, zipFileOf } from '../storage/archive-repo';
import { type ByteRange, isSegmented, piecesOf, readSegments } from '../storage/segments';
import type { Segment } from '../storage/segments-repo';

/**
 * A member as the archive holds it. An end-to-end encrypted one (src/e2e/) is the entry `<stored
 * name>` holding `header ‖ payload`, a whole age file: its size is both together, its CRC-32
 * combined from the header's and the stored payload's (no byte read), so the archive's length
 * stays exact and its ranges work; `payload` says where the header ends.
 */
export type ArchiveMember = ArchiveMemberRow & { payload?: { header: Uint8Array; size: number } };

/** What an archive is made of: its members' rows in order, the name it downloads as, its last change. */
export type ArchiveSource = {
  /** The archive's name without `.zip` (a collection's name). */
  name: string;
  /** An ASCII name (an id) for the Content-Disposition fallback when `name` has none. */
  fallbackName: string;
  members: ArchiveMember[];
  /** When its bytes last changed as far as the records know (ISO 8601): Last-Modified. */
  lastModified: string;
};

export type PreparedArchive = {
  source: ArchiveSource;
  layout: ZipLayout;
  /** Strong (`"…"`) when every member's CRC-32 is known, weak (`W/"…"`) otherwise. */
  etag: string;
  /** The archive's exact length: Content-Length of a whole download, a link's budget unit. */
  length: number;
};

/**
 * What a request costs besides its member reads: the key's limiter or the visitor's throttle
 * and link counter, the D1 reads that found the archive and its segments, the event. Kept apart
 * from SUBREQUEST_BUDGET so an archive is refused before it could ever be cut off.
 */
export const ARCHIVE_FIXED_SUBREQUESTS = 10;

/** An encrypted member with its way in's header, as the archive holds it (see ArchiveMember). */
function asServed(member: ArchiveMember): ArchiveMember {
  if (!member.encryption || !member.header || member.payload) return member;
  const header = new TextEncoder().encode(member.header);
  return {
    ...member,
    size: header.length + member.size,
    crc32: member.crc32 === null ? null : crc32Combine(crc32(header), member.crc32, member.size),
    payload: { header, size: member.size },
  };
}

/** The layout and validators of the archive of these members (no read of any byte). */
export async function prepareArchive(given: ArchiveSource): Promise<PreparedArchive> {
  const source = { ...given, members: given.members.map(asServed) };
  const { layout, etag } = await layoutOf(source.members);
  return { source, layout, etag, length: layout.length };
}

/** The layout of the archive of these members, in order (encrypted ones as served), and its ETag. */
async function layoutOf(given: readonly ArchiveMember[]): Promise<{ layout: ZipLayout; etag: string }> {
  const members = given.map(asServed);
  const layout = zipLayoutOfFiles(members.map(zipFileOf));
  // The records' part of the bytes, and each member's content by its file id (a file's bytes
  // never change once stored, and a backfilled digest must not move the ETag): the same ETag is
  // always the same bytes. Only a member swapped for an identical copy moves it needlessly.
  // An encrypted member's bytes are also its header's (a link's own): the header is in it too.
  const content = members.map((member) => (member.header ? `${member.id}:${member.header}` : member.id)).join('\n');
  const hash = await sha256Hex(`${zipEtagInput(layout)}\n${content}`);
  // With a CRC-32 still to compute the records do not fix every byte: weak, so never a range's validator.
  return { layout, etag: layout.rangeable ? `"${hash}"` : `W/"${hash}"` };
}

// An archive ETag's opaque value (between the quotes) is URL-safe as it is; a weak one's `W/`
// becomes `W.`, which no opaque value of this alphabet holds, so every ETag has one version and
// every version one ETag.
const ARCHIVE_ETAG = /^(W\/)?"([A-Za-z0-9_-]+)"$/;

/**
 * The archive's version as a URL carries it (`?v=<version>`): its ETag, URL-safe. `"<hex>"` is
 * `<hex>`; a weak `W/"<hex>"` is `W.<hex>`.
 */
export function archiveVersion(etag: string): string {
  const parts = ARCHIVE_ETAG.exec(etag);
  if (!parts) throw new Error(`not an archive ETag: ${etag}`);
  return `${parts[1] ? 'W.' : ''}${parts[2]}`;
}

/** The version of the archive of these members, in order (what prepareArchive's ETag would be). */
export async function versionOf(members: readonly ArchiveMemberRow[]): Promise<string> {
  return archiveVersion((await layoutOf(members)).etag);
}

/** `url` with `v` set to `version` (any other `v` replaced; the rest of its query kept). */
function versionedUrl(url: string, version: string): string {
  const versioned = new URL(url);
  versioned.searchParams.set('v', version);
  return versioned.href;
}

/**
 * 412 ARCHIVE_CHANGED when the request's URL names a version (`?v=`, given once or more) that is
 * not the archive's current one, a malformed one included; null when it names the current one or
 * none (a URL without `v` is answered as ever). The error's details name the same URL with the
 * current version. Checked before anything else about the request: no range, validator or budget.
 */
export function staleVersion(requestUrl: string, archive: PreparedArchive): ApiError | null {
  const named = new URL(requestUrl).searchParams.getAll('v');
  const current = archiveVersion(archive.etag);
  if (named.every((version) => version === current)) return null;
  return archiveChanged(versionedUrl(requestUrl, current));
}

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/**
 * What to answer: 304 when If-None-Match names the ETag (weak comparison, as RFC 9110 asks), a
 * range (one, `bytes=`) when the archive is rangeable and If-Range (an ETag; a date never
 * matches) still holds, else the whole archive. If-Modified-Since is not used: the ETag is the
 * archive's validator, and a file request's archive cannot date the loss of a deleted file.
 */
export function planArchive(headers: Headers, archive: PreparedArchive): DownloadPlan {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) {
    const current = opaque(archive.etag);
    if (ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === current)) {
      return { kind: 'not-modified' };
    }
  }
  const range = headers.get('range');
  // Without every CRC-32 the bytes of a part are unknown until the parts before it are read.
  if (range === null || !archive.layout.rangeable) return { kind: 'full' };
  const ifRange = headers.get('if-range');
  if (ifRange !== null && ifRange.trim() !== archive.etag) return { kind: 'full' };
  return parseRange(range, archive.length);
}

/** The bytes an answer carries (what a capped link reserves of its budget); 0 for HEAD, 304, 416. */
export const archiveBytes = (plan: DownloadPlan, archive: PreparedArchive, method: string) =>
  bytesCarried(plan, archive.length, method);

/** A 200, or a 206 from byte 0 to the end, to a GET: a download of the archive (counted, and an event). */
export const archiveCounts = (plan: DownloadPlan, archive: PreparedArchive, method: string) =>
  method === 'GET' && countsAsDownload(plan, archive.length);

export type ArchiveDeps = {
  bucket: R2Bucket;
  db: D1Database;
  /** SUBREQUEST_BUDGET: what one request may spend in all. */
  subrequestBudget: number;
};

/** The headers every answer about the archive carries (304 included). */
function validators(archive: PreparedArchive): Headers {
  return new Headers({
    ETag: archive.etag,
    'Last-Modified': new Date(archive.source.lastModified).toUTCString(),
    'Cache-Control': 'private, no-transform',
  });
}

/**
 * The answer for a plan: 304, 416, or the archive (whole, 200) or the range (206), streamed.
 * Before anything is read, the R2 reads it needs (one per member the bytes touch, one per
 * segment for a file stored in segments) plus ARCHIVE_FIXED_SUBREQUESTS are held against the
 * budget: past it, 400 TOO_MANY_FILES, never a body cut off at the platform's limit. HEAD gets
 * the same headers (and the same refusal) without a read.
 */
export async function archiveResponse(
  deps: ArchiveDeps,
  archive: PreparedArchive,
  plan: DownloadPlan,
  method: string,
): Promise<Response> {
  const { layout } = archive;
  const headers = validators(archive);
  if (plan.kind === 'not-modified') return new Response(null, { status: 304, headers });
  if (plan.kind === 'unsatisfiable') rangeNotSatisfiable(archive.length);
  const span: ByteRange = plan.kind === 'partial' ? plan : { offset: 0, length: archive.length };
  const start = span.offset;
  const end = span.offset + span.length - 1;
  const segments = await segmentsTouched(deps.db, archive, start, end);
  const reads = readsNeeded(archive, segments, start, end);
  if (reads + ARCHIVE_FIXED_SUBREQUESTS > deps.subrequestBudget) {
    throw tooManyFiles(
      `This ${plan.kind === 'partial' ? 'range of the archive' : 'archive'} needs ${reads} storage reads, more than ` +
        `one request may make here (SUBREQUEST_BUDGET ${deps.subrequestBudget}, less ${ARCHIVE_FIXED_SUBREQUESTS} ` +
        'for the request itself)' +
        (layout.rangeable ? ': download it in ranges (Range: bytes=…), or as smaller collections' : ''),
    );
  }
  headers.set('Content-Type', 'application/zip');
  headers.set('Content-Disposition', disposition(archive.source));
  headers.set('Accept-Ranges', layout.rangeable ? 'bytes' : 'none');
  headers.set('X-Content-Type-Options', 'nosniff');
  headers.set('Content-Length', String(span.length));
  // The archive's bytes exactly as counted: never compressed on the way (see files/download.ts).
  headers.set('Content-Encoding', 'identity');
  const status = plan.kind === 'partial' ? 206 : 200;
  if (plan.kind === 'partial') headers.set('Content-Range', `bytes ${start}-${end}/${archive.length}`);
  if (method === 'HEAD') return new Response(null, { status, headers });
  const body = zipRange(layout, start, end, memberReader(deps.bucket, archive, segments));
  return new Response(body, { status, headers });
}

/** The 416 of an archive, with the length a client may ask within. */
function rangeNotSatisfiable(length: number): never {
  throw new ApiError('RANGE_NOT_SATISFIABLE', 'Requested range not satisfiable', {
    headers: { 'Content-Range': `bytes */${length}`, 'Accept-Ranges': 'bytes' },
  });
}

/** `<name>.zip`, the name made safe as a member's is (no separators, `..` or controls). */
function disposition(source: ArchiveSource): string {
  return contentDisposition(`${zipMemberName(source.name)}.zip`, `${source.fallbackName}.zip`);
}

/** The segments of the members stored in segments whose bytes [start, end] touches, by file id. */
async function segmentsTouched(db: D1Database, archive: PreparedArchive, start: number, end: number) {
  const ids: string[] = [];
  archive.source.members.forEach((member, index) => {
    if (isSegmented(member.r2_key) && spanOf(archive.layout, index, start, end)) ids.push(member.id);
  });
  return segmentsOfFiles(db, ids);
}

/** The part of member `index`'s own bytes inside [start, end], relative to the member. */
function spanOf(layout: ZipLayout, index: number, start: number, end: number): ByteRange | null {
  const member = layout.members[index];
  if (!member) return null;
  const from = Math.max(start, member.dataOffset);
  const to = Math.min(end + 1, member.dataOffset + member.size);
  return to > from ? { offset: from - member.dataOffset, length: to - from } : null;
}

/** R2 reads for bytes [start, end]: one per member touched, one per segment touched of a segmented one. */
function readsNeeded(archive: PreparedArchive, segments: Map<string, Segment[]>, start: number, end: number): number {
  let reads = membersTouched(archive.layout, start, end);
  archive.source.members.forEach((member, index) => {
    const list = segments.get(member.id);
    const span = list ? spanOf(archive.layout, index, start, end) : null;
    if (list && span) reads += piecesOf(list, payloadSpan(member, span)).length - 1;
  });
  return reads;
}

/** The part of a member's span in its stored bytes: past an encrypted member's header (empty inside it). */
function payloadSpan(member: ArchiveMember, span: ByteRange): ByteRange {
  const skip = member.payload?.header.length ?? 0;
  const from = Math.max(span.offset, skip);
  return { offset: from - skip, length: Math.max(0, span.offset + span.length - from) };
}

class MissingMember extends Error {
  override name = 'MissingMember';
}

/** Reads a member's bytes for the ZIP stream: a ranged get, or its segments one after another. */
function memberReader(bucket: R2Bucket, archive: PreparedArchive, segments: Map<string, Segment[]>) {
  return async (index: number, offset: number, length: number): Promise<ReadableStream<Uint8Array>> => {
    const member = archive.source.members[index] as ArchiveMember;
    const list = segments.get(member.id);
    // An encrypted member's header is not stored with its payload: its slice comes from the record.
    const header = member.payload?.header ?? new Uint8Array(0);
    const head = header.subarray(Math.min(offset, header.length), Math.min(offset + length, header.length));
    const stored = payloadSpan(member, { offset, length });
    if (stored.length === 0) return throughJavaScript(null, head) as ReadableStream<Uint8Array>;
    // A segmented member's stream is a FixedLengthStream's, which the runtime cannot pipe into
    // the archive's own: it goes through a JavaScript stream (tus concatenations only).
    const read = list
      ? await readSegments(bucket, list, stored)
      : ((await bucket.get(member.r2_key, { range: stored }))?.body ?? null);
    const body = read && (list || head.length > 0 ? throughJavaScript(read, head) : read);
    if (!body) {
      // Its row outlived its bytes (or it was deleted while the archive streamed): the stream
      // fails, so the client sees a cut body, never an archive with wrong bytes in it.
      log('error', 'archive member without its bytes', { fileId: member.id });
      throw new MissingMember(`member ${member.id} has no bytes`);
    }
    return body;
  };
}

/**
 * The same bytes as a JavaScript stream, pulled only as it is read, after `head` (an encrypted
 * member's header slice); `head` alone when there is no body.
 */
function throughJavaScript(
  body: ReadableStream<Uint8Array> | null,
  head: Uint8Array = new Uint8Array(0),
): ReadableStream<Uint8Array> | null {
  if (!body && head.length === 0) return null;
  const reader = body?.getReader();
  let first: Uint8Array | undefined = head.length > 0 ? head.slice() : undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (first) {
          controller.enqueue(first);
          first = undefined;
          return;
        }
        const next = await reader?.read();
        if (!next || next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: (reason) => reader?.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** The event of a counted download of a collection's archive. */
export function emitCollectionDownloaded(
  sink: EventSink,
  accountId: string,
  collection: { id: string; name: string },
  archive: PreparedArchive,
  via: { kind: 'owner' } | { kind: 'link'; linkId: string },
): void {
  emitEvents(sink, [
    {
      accountId,
      type: 'collection.downloaded',
      data: {
        collectionId: collection.id,
        name: collection.name,
        fileIds: archive.source.members.map((member) => member.id),
        fileCount: archive.source.members.length,
        size: archive.length,
        via: via.kind,
        ...(via.kind === 'link' ? { linkId: via.linkId } : {}),
      },
    },
  ]);
}

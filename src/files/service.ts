// The file service: reads, downloads and deletes for one key's files. R2 and D1 together, no HTTP.
import { ApiError } from '../errors';
import { type EventSink, emitEvents } from '../events/emit';
import type { DownloadVia } from '../events/types';
import { assertServable } from '../moderation/standing';
import {
  countOwnedDownload,
  deleteOwnedFile,
  deleteOwnedFiles,
  type FileRow,
  findOwnedFile,
  findSharedFile,
  incrementDownloadCount,
  type ListOrder,
  type ListSort,
  listOwnedFiles,
  type WithSuspension,
} from '../storage/files-repo';
import { isoNow } from '../time';
import { countsAsDownload, isConditional, planDownload, servedFile, serveFile } from './download';
import { FILE_ID_PATTERN } from './ids';
import { fileEventData } from './records';
import { type RemovalDeps, removeBlobsOf } from './removal';

type Storage = { bucket: R2Bucket; db: D1Database };

const notFound = () => new ApiError('FILE_NOT_FOUND');

export async function getOwnedFile(storage: Storage, id: string, keyId: string): Promise<FileRow> {
  if (!FILE_ID_PATTERN.test(id)) throw notFound();
  const row = await findOwnedFile(storage.db, id, keyId, isoNow());
  if (!row) throw notFound();
  return row;
}

/** The natural direction of each order: newest and largest first, names from A. */
const DEFAULT_ORDER: Record<ListSort, ListOrder> = { uploadedAt: 'desc', size: 'desc', name: 'asc' };

export type ListOptions = { page: number; limit: number; sort?: ListSort; order?: ListOrder; q?: string };

export async function listFiles(storage: Storage, keyId: string, options: ListOptions) {
  const { page, limit } = options;
  const sort = options.sort ?? 'uploadedAt';
  const order = options.order ?? DEFAULT_ORDER[sort];
  const { rows, total } = await listOwnedFiles(storage.db, keyId, isoNow(), { page, limit, sort, order, q: options.q });
  const totalPages = Math.ceil(total / limit);
  return { rows, pagination: { page, limit, total, totalPages, hasMore: page < totalPages } };
}

/**
 * Deletes the row, then the blob (a failed blob delete is recorded for the sweep), and gives
 * the bytes back to the key's quota. Once the row is gone no reader can reach the file.
 */
export async function deleteFile(storage: RemovalDeps, id: string, keyId: string): Promise<FileRow> {
  if (!FILE_ID_PATTERN.test(id)) throw notFound();
  const row = await deleteOwnedFile(storage.db, id, keyId, isoNow());
  if (!row) throw notFound();
  await removeBlobsOf(storage, [row]);
  emitDeleted(storage.events, [row]);
  return row;
}

const emitDeleted = (sink: EventSink, rows: FileRow[]) =>
  emitEvents(
    sink,
    rows.map((row) => ({ accountId: row.account_id, type: 'file.deleted', data: { file: fileEventData(row) } })),
  );

export const MAX_BULK_DELETE = 50;

export type BulkDeleteResult =
  | { id: string; success: true }
  | { id: string; success: false; error: string; code: 'FILE_NOT_FOUND' };

/**
 * Deletes up to 50 of the caller's files: one D1 statement for the rows, one R2 call for the
 * blobs. Duplicates count once; unknown, malformed and other keys' ids fail as FILE_NOT_FOUND.
 */
export async function deleteFiles(storage: RemovalDeps, ids: string[], keyId: string): Promise<BulkDeleteResult[]> {
  const unique = [...new Set(ids)];
  if (unique.length > MAX_BULK_DELETE) {
    throw new ApiError('TOO_MANY_FILES', `At most ${MAX_BULK_DELETE} ids per bulk delete`);
  }
  const wellFormed = unique.filter((id) => FILE_ID_PATTERN.test(id));
  const rows = await deleteOwnedFiles(storage.db, wellFormed, keyId, isoNow());
  await removeBlobsOf(storage, rows);
  emitDeleted(storage.events, rows);
  const deleted = new Set(rows.map((row) => row.id));
  return unique.map((id) =>
    deleted.has(id)
      ? { id, success: true as const }
      : { id, success: false as const, error: 'File not found', code: 'FILE_NOT_FOUND' as const },
  );
}

type Lookup = {
  /**
   * Finds the row and counts one download, in one statement; absent for reads that never count.
   * Only a file in good standing is counted: null for any other (then `find` tells why).
   */
  findCounting?: (now: string) => Promise<FileRow | null>;
  find: (now: string) => Promise<FileRow | null>;
};

/**
 * Serves a download. A plain GET counts itself while it reads the row; a conditional or
 * ranged GET counts only when it answers the whole file (a 200, or a 206 from byte 0 to the end).
 * A file under moderation is served to no one, its owner included (451, src/moderation/standing.ts);
 * finding that out costs a second read only on that refusal.
 */
async function download(
  storage: DownloadStorage,
  request: Request,
  lookup: Lookup,
  via: DownloadVia,
): Promise<Response> {
  const now = isoNow();
  const counting = request.method === 'GET' && lookup.findCounting !== undefined;
  let plain = counting && !isConditional(request.headers);
  let row = plain && lookup.findCounting ? await lookup.findCounting(now) : await lookup.find(now);
  if (!row && plain) {
    row = await lookup.find(now);
    plain = false;
  }
  if (!row) throw notFound();
  assertServable({ file: row }, 'owner');
  // An encrypted file is served as the owner's header and its payload: a whole age file.
  const served = await servedFile(row, row.e2e_header);
  if (!served) throw notFound();
  const plan = planDownload(request.headers, served);
  let counted = plain;
  if (counting && !plain && countsAsDownload(plan, served.size)) {
    await incrementDownloadCount(storage.db, row.id);
    counted = true;
  }
  const response = await serveFile(storage, served, plan, request.method);
  if (counted) {
    const file = fileEventData(plain ? row : { ...row, download_count: row.download_count + 1 });
    emitEvents(storage.events, [{ accountId: row.account_id, type: 'file.downloaded', data: { file, via } }]);
  }
  return response;
}

/** Downloads count, and a counted download is a file.downloaded event. */
type DownloadStorage = Storage & { events: EventSink };

export function downloadOwnedFile(storage: DownloadStorage, request: Request, id: string, keyId: string) {
  if (!FILE_ID_PATTERN.test(id)) throw notFound();
  return download(
    storage,
    request,
    {
      findCounting: (now) => countOwnedDownload(storage.db, id, keyId, now),
      find: (now) => findOwnedFile(storage.db, id, keyId, now),
    },
    'owner',
  );
}

export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export async function findShared(storage: Storage, token: string): Promise<(FileRow & WithSuspension) | null> {
  if (!SHARE_TOKEN_PATTERN.test(token)) return null;
  return findSharedFile(storage.db, token, isoNow());
}

// What follows a file received through a request (multipart, raw PUT or tus): its counts, events,
// an upload URL closed once its file is in, and what its uploader is shown.
import { type EventSink, emitEvents, type NewEvent } from '../events/emit';
import { fileEventData } from '../files/records';
import { log } from '../log';
import type { FileRow } from '../storage/files-repo';
import { closeOwnedRequest, type RequestWithOwner, recordCounts } from '../storage/requests-repo';
import { isoNow } from '../time';
import type { RequestCounts } from './request-counter-contract';

export type ReceivedEvent = {
  db: D1Database;
  events: EventSink;
  request: RequestWithOwner;
  /** The files this upload added (each once). */
  files: FileRow[];
  /** The request's counts after them (the request's counter object answers them, serialised). */
  counts: RequestCounts;
};

/**
 * Files came in through a request: D1 learns the request's counts, each file is a
 * `request.received` event, and the upload that takes the request to its maxFiles or maxBytes
 * is also `request.full`. Called once per accepted upload, after the rows and the counter's
 * commit; the counter serialises commits, so exactly one upload crosses from not full to full.
 */
export async function onRequestReceived(event: ReceivedEvent): Promise<void> {
  const { request, files, counts } = event;
  await recordCounts(event.db, request.id, counts).catch((error: unknown) =>
    log('error', 'request counts not written', { requestId: request.id, error: String(error) }),
  );
  if (files.length === 0) return;
  const accountId = request.account_id;
  const events: NewEvent[] = files.map((row) => ({
    accountId,
    type: 'request.received',
    data: { requestId: request.id, file: fileEventData(row) },
  }));
  const before = {
    files: counts.files - files.length,
    bytes: counts.bytes - files.reduce((sum, row) => sum + row.size, 0),
  };
  if (isFull(request, counts) && !isFull(request, before)) {
    log('info', 'file request full', { requestId: request.id });
    if (request.exact_bytes !== null) await closeUploadUrl(event.db, request);
    events.push({
      accountId,
      type: 'request.full',
      data: { requestId: request.id, fileCount: counts.files, bytes: counts.bytes },
    });
  }
  emitEvents(event.events, events);
}

/**
 * An upload URL (MCP's create_upload_url: the one kind of request with an exact size) has done its
 * one job once its file is in: it is closed, so the owner's list shows it done, not open. The
 * file is kept whatever this write does; a failure leaves the request full, which takes nothing either.
 */
async function closeUploadUrl(db: D1Database, request: RequestWithOwner): Promise<void> {
  await closeOwnedRequest(db, request.id, request.account_id, isoNow()).catch((error: unknown) =>
    log('error', 'upload URL not closed', { requestId: request.id, error: String(error) }),
  );
}

export const isFull = (request: Pick<RequestWithOwner, 'max_files' | 'max_bytes'>, counts: RequestCounts) =>
  counts.files >= request.max_files || (request.max_bytes !== null && counts.bytes >= request.max_bytes);

/** What an uploader is shown of a file they sent: its name, size, type and SHA-256, never anything else of the account. */
export function receiptOf(row: FileRow) {
  return {
    success: true as const,
    name: row.original_name,
    size: row.size,
    mimeType: row.mime_type,
    sha256: row.sha256,
  };
}

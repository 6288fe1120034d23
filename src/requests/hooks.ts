// The single call sites other branches plug into once they land. Each is a no-op today.
import type { FileRow } from '../storage/files-repo';
import type { RequestWithOwner } from '../storage/requests-repo';
import type { RequestCounts } from './counter-contract';

export type ReceivedEvent = {
  request: RequestWithOwner;
  files: FileRow[];
  counts: RequestCounts;
  waitUntil: (promise: Promise<unknown>) => void;
};

/**
 * Files came in through a request (multipart or tus). WEBHOOKS (issue 19): emit `request.received`
 * for `files` here, and `request.full` when `counts` reach the request's maxFiles or maxBytes
 * (see `isFull`). Called once per accepted upload, after the rows and the request's counts.
 */
export function onRequestReceived(_event: ReceivedEvent): void {}

export const isFull = (request: Pick<RequestWithOwner, 'max_files' | 'max_bytes'>, counts: RequestCounts) =>
  counts.files >= request.max_files || (request.max_bytes !== null && counts.bytes >= request.max_bytes);

/**
 * What an uploader is shown of a file they sent: its name, size and type, never anything else
 * of the account. DIGESTS (issue 18): add `sha256` from the row here once rows carry it.
 */
export function receiptOf(row: FileRow) {
  return { success: true as const, name: row.original_name, size: row.size, mimeType: row.mime_type };
}

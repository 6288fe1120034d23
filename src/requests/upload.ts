// A multipart upload through a request's uploadUrl: one or more `file` parts, no key. Each file
// holds a slot of the request before it is read and its bytes (in the request and in the
// owner's quota) before they are kept; the files become the owner's, with the request's id.

import { holdTtlMs } from '../config';
import { validationError } from '../errors';
import { recordFiles } from '../files/upload';
import { uploadError } from '../files/upload-errors';
import { type PartRules, readFileParts } from '../files/upload-parts';
import { declaredLength, uploadRawFile } from '../files/upload-raw';
import { inSession, openUpload, type UploadContext, type UploadDeps } from '../files/upload-session';
import type { FileRow } from '../storage/files-repo';
import type { RequestWithOwner } from '../storage/requests-repo';
import { checkExactSize, requestLimits } from './limits';
import { receivedExpiry, receivedPublic } from './owner';
import { type CounterNamespace, counterOf, RequestTicket } from './request-counter-client';
import type { RequestCounts } from './request-counter-contract';

/** At most this many parts per body; files beyond the request's slots are refused anyway. */
const MAX_PARTS = 120;
const FILE_FIELDS = new Set(['file']);

/**
 * An upload through a request: its owner is the request's account (requestOwner in owner.ts), its
 * configuration the server's narrowed to the request (limits.ts), and `counters` the requests'
 * objects that hold its slots.
 */
export type ReceiveDeps = UploadContext & { counters: CounterNamespace };

export type Received = { rows: FileRow[]; failures: { name: string; error: Error }[]; counts?: RequestCounts };

/**
 * Runs `receive` in an upload session whose quota is the request's ticket (the request's slots
 * and bytes, then the owner's account; each file's size against the request's exact size when it
 * has one, before anything of it counts), then counts the files it kept for the request before the
 * session ends (and releases what is left of the hold).
 */
async function inRequestSession(
  deps: ReceiveDeps,
  request: RequestWithOwner,
  receive: (
    uploadDeps: UploadDeps,
    ticket: RequestTicket,
  ) => Promise<{ rows: FileRow[]; failures: Received['failures'] }>,
): Promise<Received> {
  const ticket = new RequestTicket(
    deps.accounts,
    deps.owner,
    counterOf(deps.counters, request.id),
    requestLimits(request),
    Date.now() + holdTtlMs(deps.config),
    (size) => checkExactSize(request, size),
  );
  const uploadDeps = openUpload(deps, ticket);
  return inSession(uploadDeps.session, async () => {
    const { rows, failures } = await receive(uploadDeps, ticket);
    const counts = await ticket.received(rows.map((row) => ({ id: row.id, size: row.size })));
    return { rows, failures, counts };
  });
}

/**
 * Where a file received through a request lands: the request's visibility (private while the
 * owner's policy bars default links), its id, and the expiry the owner's policy gives received
 * files (the uploader chooses none).
 */
const requestOptions = (deps: ReceiveDeps, request: RequestWithOwner) => ({
  isPublic: receivedPublic(deps.config, request),
  expiresInSeconds: receivedExpiry(deps.config, request),
  requestId: request.id,
});

/**
 * Reads every `file` part into R2 and records the files. All or nothing while reading: a file
 * refused (type, size, the request full, the quota) fails the whole body and nothing of it is
 * kept. At the commit a file the owner's account no longer takes is reported on its own. Other
 * fields (isPublic, expiresIn, …) are the request's to decide: skipped.
 */
export function receiveFiles(deps: ReceiveDeps, request: RequestWithOwner, body: Request): Promise<Received> {
  return inRequestSession(deps, request, (uploadDeps, ticket) => {
    const rules: PartRules = {
      maxParts: MAX_PARTS,
      fileFields: FILE_FIELDS,
      // Each file that will be read holds one of the request's slots first.
      admit: (part) => (part.filename ? ticket.slot() : undefined),
    };
    return readFileParts(uploadDeps, body, rules, async (parts) => {
      const files = parts.flatMap((part) => (part.file ? [part.file] : []));
      if (files.length === 0) throw validationError('file', 'at least one file part is required');
      const { rows, failures } = await recordFiles(uploadDeps, files, requestOptions(deps, request));
      return {
        rows,
        failures: files.flatMap((file) => {
          const error = failures.get(file.id);
          return error ? [{ name: file.originalName, error }] : [];
        }),
      };
    });
  });
}

/**
 * `PUT {uploadUrl}/{filename}`: the raw body is one file, stored exactly as `PUT /upload/{filename}`
 * stores it (src/files/upload-raw.ts: one streamed put with a Content-Length, the multipart writer
 * without, the asserted digest checked), holding one slot of the request, and its Content-Length
 * when it states one, before the body is read (a Content-Length other than the request's exact
 * size is refused there, the body unread).
 */
export function receiveRawFile(
  deps: ReceiveDeps,
  request: RequestWithOwner,
  body: Request,
  name: string,
): Promise<Received> {
  return inRequestSession(deps, request, async (uploadDeps, ticket) => {
    try {
      const length = declaredLength(body);
      // A length past the file size limit is refused as such by the raw upload, not held.
      await ticket.slot(length !== undefined && length <= uploadDeps.config.MAX_FILE_SIZE ? length : undefined);
    } catch (error) {
      await body.body?.cancel().catch(() => undefined);
      throw uploadError(error);
    }
    const row = await uploadRawFile(uploadDeps, body, { name, options: requestOptions(deps, request) });
    return { rows: [row], failures: [] };
  });
}

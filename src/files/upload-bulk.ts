// POST /upload/bulk (v2): many `files` parts, one isPublic/expiresIn for all, per-file results.
import { ApiError, type ErrorCode, validationError } from '../errors';
import { HEX_SHA256 } from '../lib/digest';
import { MultipartError, type MultipartReader } from '../lib/multipart';
import type { FileRow } from '../storage/files-repo';
import { cleanOriginalName } from './names';
import { checkDigest, type PendingFile, readFilePart, recordFiles } from './upload';
import { openMultipart, uploadError } from './upload-errors';
import { readFormField, recordOptions } from './upload-fields';
import type { UploadDeps } from './upload-session';

const FILE_FIELDS = new Set(['files', 'files[]']);
const MAX_PARTS = 120;
// Finishing writes (a small file's put, a large one's last part) that may run while the next
// file is read: with the part being uploaded, this stays under the Workers limit of six
// simultaneous connections.
const MAX_FINISHING = 3;

export type BulkOutcome = { ok: true; row: FileRow } | { ok: false; filename: string; error: string; code: ErrorCode };

type Slot = { filename: string; isFile: boolean; file?: PendingFile; error?: ApiError };

/**
 * Reads the files one after another from the body (it is one stream), but lets each file's
 * final write overlap with reading the next, then records every stored file in one D1 batch.
 * A file that fails leaves nothing behind and does not stop the others.
 */
export async function uploadBulk(deps: UploadDeps, request: Request, maxFiles: number): Promise<BulkOutcome[]> {
  const reader = openMultipart(request);
  const fields: Record<string, string> = {};
  // One per file, in part order: the n-th sha256 field is the n-th file's ('' asserts nothing).
  const digests: string[] = [];
  const slots: Slot[] = [];
  const finishing = new Set<Promise<unknown>>();
  const writes = () => slots.flatMap((slot) => (slot.file ? [slot.file.stored.catch(() => undefined)] : []));

  try {
    let parts = 0;
    for (let part = await reader.nextPart(); part; part = await reader.nextPart()) {
      if (++parts > MAX_PARTS) throw validationError('body', `at most ${MAX_PARTS} form parts are accepted`);
      deps.session.check();
      if (part.name === 'sha256') {
        digests.push(await readDigestField(reader));
        continue;
      }
      if (!FILE_FIELDS.has(part.name)) {
        await readFormField(reader, part, fields);
        continue;
      }
      // An empty file input: nothing was chosen.
      if (part.filename === '') continue;
      if (slots.length >= maxFiles) {
        if (part.name === 'sha256') {
          digests.push(await readDigestField(reader));
          continue;
        }
        throw new ApiError('TOO_MANY_FILES', `At most ${maxFiles} files per bulk upload`);
      }
      const filename = cleanOriginalName(part.filename ?? part.name);
      if (part.filename === undefined) {
        slots.push({ filename, isFile: false, error: validationError(part.name, 'must be a file, not a text field') });
        continue;
      }
      while (finishing.size >= MAX_FINISHING) await Promise.race(finishing);
      try {
        const file = await readFilePart(deps, reader, part);
        const settled = file.stored.catch(() => undefined);
        finishing.add(settled);
        void settled.then(() => finishing.delete(settled));
        slots.push({ filename, isFile: true, file });
      } catch (error) {
        // A broken body makes the whole request unusable; anything else fails this file only.
        if (error instanceof MultipartError) throw error;
        slots.push({ filename, isFile: true, error: uploadError(error) });
      }
    }
    // Text fields named `files` alone are no files at all.
    if (!slots.some((slot) => slot.isFile)) throw validationError('files', 'at least one file is required');
    const options = recordOptions(fields);
    refuseMismatches(deps, slots, digests);
    const files = slots.flatMap((slot) => (slot.file && !slot.error ? [slot.file] : []));
    let recorded: Awaited<ReturnType<typeof recordFiles>> = { rows: [], failures: new Map() };
    let recordError: ApiError | undefined;
    try {
      recorded = await recordFiles(deps, files, options);
    } catch (error) {
      recordError = uploadError(error);
      // Out of time: the request as a whole failed, not its files one by one.
      if (recordError.code === 'REQUEST_TIMEOUT') throw recordError;
    }
    const rowsById = new Map(recorded.rows.map((row) => [row.id, row]));
    return slots.map((slot): BulkOutcome => {
      const row = slot.file && !slot.error && rowsById.get(slot.file.id);
      if (row) return { ok: true, row };
      const error =
        slot.error ??
        (slot.file && recorded.failures.get(slot.file.id)) ??
        recordError ??
        new ApiError('UPLOAD_FAILED');
      return { ok: false, filename: slot.filename, error: error.message, code: error.code };
    });
  } catch (error) {
    await reader.cancel();
    // Writes still finishing end before the session deletes what this request owns.
    await Promise.all(writes());
    throw uploadError(error);
  }
}

/** One `sha256` field of a bulk upload: empty (no assertion for its file) or 64 hex digits. */
async function readDigestField(reader: MultipartReader): Promise<string> {
  const value = (await reader.readText(MAX_DIGEST_FIELD_BYTES)).trim();
  if (value !== '' && !HEX_SHA256.test(value)) {
    throw validationError('sha256', 'each must be 64 hexadecimal digits (a SHA-256), or empty');
  }
  return value.toLowerCase();
}
const MAX_DIGEST_FIELD_BYTES = 256;

/**
 * Files whose bytes do not hash to the sha256 field sent for them fail alone (DIGEST_MISMATCH):
 * they are left out of the commit, so nothing of them is stored or charged. The fields pair with
 * the file parts in order; a count that differs cannot be paired and refuses the request.
 */
function refuseMismatches(deps: UploadDeps, slots: Slot[], digests: string[]): void {
  if (digests.length === 0) return;
  const fileSlots = slots.filter((slot) => slot.isFile);
  if (digests.length !== fileSlots.length) {
    throw validationError(
      'sha256',
      `give one sha256 field per file, in the files' order (${fileSlots.length} files, ${digests.length} sha256 fields)`,
    );
  }
  fileSlots.forEach((slot, index) => {
    const expected = digests[index];
    if (!slot.file || slot.error || !expected) return;
    try {
      checkDigest(slot.file, expected, 'sha256');
    } catch (error) {
      slot.error = uploadError(error);
      deps.session.quota.drop(slot.file.id);
    }
  });
}

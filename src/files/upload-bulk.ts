// POST /upload/bulk (v2): many `files` parts, one isPublic/expiresIn for all, per-file results.
import { ApiError, type ErrorCode, validationError } from '../errors';
import { HEX_SHA256 } from '../lib/digest';
import type { MultipartReader } from '../lib/multipart';
import type { UploadRules } from '../policy/service';
import type { FileRow } from '../storage/files-repo';
import { checkDigest, recordFiles } from './upload';
import { uploadError } from './upload-errors';
import { readFormField, recordOptions } from './upload-fields';
import { type FilePart, type PartRules, readFileParts } from './upload-parts';
import type { UploadDeps } from './upload-session';

const FILE_FIELDS = new Set(['files', 'files[]']);
const MAX_PARTS = 120;

export type BulkOutcome = { ok: true; row: FileRow } | { ok: false; filename: string; error: string; code: ErrorCode };

/**
 * Reads the files one after another from the body (it is one stream), but lets each file's
 * final write overlap with reading the next, then records every stored file in one D1 batch.
 * A file that fails leaves nothing behind and does not stop the others.
 */
export async function uploadBulk(
  deps: UploadDeps,
  request: Request,
  maxFiles: number,
  policyRules: UploadRules,
): Promise<BulkOutcome[]> {
  const fields: Record<string, string> = {};
  // One per file, in part order: the n-th sha256 field is the n-th file's ('' asserts nothing).
  const digests: string[] = [];
  const rules: PartRules = {
    maxParts: MAX_PARTS,
    fileFields: FILE_FIELDS,
    field: async (reader, part) => {
      if (part.name === 'sha256') digests.push(await readDigestField(reader));
      else await readFormField(reader, part, fields, policyRules);
    },
    admit: (part, files) => {
      // An empty file input is no file (the loop skips it), so it is never one too many.
      if (part.filename !== '' && files.length >= maxFiles) {
        throw new ApiError('TOO_MANY_FILES', `At most ${maxFiles} files per bulk upload`);
      }
    },
    eachFileAlone: true,
  };
  return readFileParts(deps, request, rules, async (parts) => {
    // Text fields named `files` alone are no files at all.
    if (parts.every((part) => part.text)) throw validationError('files', 'at least one file is required');
    const options = recordOptions(fields, policyRules);
    refuseMismatches(deps, parts, digests);
    const files = parts.flatMap((part) => (part.file && !part.error ? [part.file] : []));
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
    return parts.map((part): BulkOutcome => {
      const row = part.file && !part.error && rowsById.get(part.file.id);
      if (row) return { ok: true, row };
      const error =
        part.error ??
        (part.file && recorded.failures.get(part.file.id)) ??
        recordError ??
        new ApiError('UPLOAD_FAILED');
      return { ok: false, filename: part.name, error: error.message, code: error.code };
    });
  });
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
function refuseMismatches(deps: UploadDeps, parts: FilePart[], digests: string[]): void {
  if (digests.length === 0) return;
  const fileParts = parts.filter((part) => !part.text);
  if (digests.length !== fileParts.length) {
    throw validationError(
      'sha256',
      `give one sha256 field per file, in the files' order (${fileParts.length} files, ${digests.length} sha256 fields)`,
    );
  }
  fileParts.forEach((part, index) => {
    const expected = digests[index];
    if (!part.file || part.error || !expected) return;
    try {
      checkDigest(part.file, expected, 'sha256');
    } catch (error) {
      part.error = uploadError(error);
      deps.session.quota.drop(part.file.id);
    }
  });
}

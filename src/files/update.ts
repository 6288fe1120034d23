// Changing a file an owner keeps: who can open its share link, its name, its expiry.
import type { ApiKeyContext } from '../env';
import { ApiError, validationError } from '../errors';
import { MAX_EXPIRY_SECONDS } from '../expiry';
import { rescheduleFiles } from '../limiter/key-limiter-client';
import { checkFileChange, type Policy } from '../policy/service';
import { type FileChanges, type FileRow, updateOwnedFile } from '../storage/files-repo';
import { isoNow } from '../time';
import { FILE_ID_PATTERN } from './ids';
import { cleanName } from './names';
import type { RemovalDeps } from './removal';
import { runnableExtension } from './runnable';

/** The longest expiry an upload may ask for; a change may not go further ahead. */

/** What a PATCH asks for, validated in shape; absent fields stay as they are. */
export type FilePatch = {
  isPublic?: boolean;
  originalName?: string;
  /** ISO 8601, or null for no expiry. */
  expiresAt?: string | null;
  /** Seconds from now, or null for no expiry. */
  expiresIn?: number | null;
};

/**
 * Applies a change to the caller's live file and returns the row as it is after it. A new expiry
 * must keep to the account's policy (`policy`, src/policy/); a change that leaves the expiry
 * alone is not judged on it. The row is
 * written first (one D1 trip); when its expiry changed, the key's account learns the new time,
 * so the file leaves the quota exactly when it expires. The sweep needs nothing: it reads
 * expires_at from D1. A private file's share link is dead from the row on.
 */
export async function updateFile(
  storage: RemovalDeps,
  id: string,
  key: Pick<ApiKeyContext, 'id' | 'accountId'>,
  patch: FilePatch,
  policy: Policy,
  now = Date.now(),
): Promise<FileRow> {
  const changes: FileChanges = {};
  if (patch.isPublic !== undefined) changes.isPublic = patch.isPublic;
  if (patch.originalName !== undefined) changes.originalName = newName(patch.originalName);
  const expiresAt = newExpiry(patch, now);
  if (expiresAt !== undefined) changes.expiresAt = expiresAt;
  if (!FILE_ID_PATTERN.test(id)) throw new ApiError('FILE_NOT_FOUND');
  checkFileChange(policy, patch, now);

  const updated = await updateOwnedFile(storage.db, id, key.accountId, isoNow(now), changes);
  if (!updated) throw new ApiError('FILE_NOT_FOUND');
  const { row, previousExpiresAt } = updated;
  if (expiresAt !== undefined && previousExpiresAt !== row.expires_at) {
    await rescheduleFiles(storage.limiter, key, [
      { id: row.id, size: row.size, expiresAt: row.expires_at, previous: previousExpiresAt },
    ]);
  }
  return row;
}

/** Cleaned like an upload's name; a name that runs when opened is refused as an upload would be. */
function newName(raw: string): string {
  const name = cleanName(raw);
  if (name === '') throw validationError('originalName', 'must keep at least one character once cleaned');
  const extension = runnableExtension(name);
  if (extension) throw new ApiError('INVALID_FILE_TYPE', `File type not allowed: .${extension} files are not allowed`);
  return name;
}

/** The new expiry (ISO 8601 UTC with milliseconds), null to clear it, undefined to leave it. */
export function newExpiry(patch: Pick<FilePatch, 'expiresAt' | 'expiresIn'>, now: number): string | null | undefined {
  if (patch.expiresIn !== undefined) {
    return patch.expiresIn === null ? null : isoNow(now + patch.expiresIn * 1000);
  }
  if (patch.expiresAt === undefined || patch.expiresAt === null) return patch.expiresAt;
  const at = Date.parse(patch.expiresAt);
  if (!(at > now)) throw validationError('expiresAt', 'must be in the future');
  if (at > now + MAX_EXPIRY_SECONDS * 1000) {
    throw validationError('expiresAt', `must be at most ${MAX_EXPIRY_SECONDS} seconds (365 days) ahead`);
  }
  return isoNow(at);
}

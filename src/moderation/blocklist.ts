// The hash blocklist's one check: which files of an upload are blocked. Every upload path records
// its files through one commit (recordFiles, src/files/upload.ts), and that commit asks this before
// anything of them counts, so no way in can skip it. The operator's side (adding, removing,
// importing hashes) is src/abuse/blocklist.ts.
import { blockedAmong } from '../storage/blocklist-repo';

/**
 * What the check knows of a file: its SHA-256 (null: not known, a tus upload begun before digests)
 * and whether it is encrypted. An encrypted (age) file's SHA-256 is of its ciphertext, which differs
 * for every encryption of the same content: no hash block can apply to it, so it is not looked up.
 */
export type Screened = { id: string; sha256: string | null; encrypted: boolean };

/**
 * The ids of the files whose SHA-256 is on the blocklist: one D1 statement for all of them (one
 * probe of the primary key per hash), none when no file has a hash to check.
 */
export async function blockedFiles(db: D1Database, files: Screened[]): Promise<Set<string>> {
  const checked = files.filter(
    (file): file is Screened & { sha256: string } => file.sha256 !== null && !file.encrypted,
  );
  if (checked.length === 0) return new Set();
  const blocked = await blockedAmong(
    db,
    checked.map((file) => file.sha256),
  );
  return new Set(checked.filter((file) => blocked.has(file.sha256)).map((file) => file.id));
}

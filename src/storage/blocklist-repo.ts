// D1 access for the hash blocklist (migration 0016's `blocklist`): the check every upload makes
// (which of these SHA-256s are blocked: one probe of the primary key per hash), and the
// operator's entries (one put, one delete, a page newest first, an import of many at once).
// Hashes are lowercase hex here: the table's CHECK refuses anything else.

export type BlocklistRow = { sha256: string; reason: string | null; created_at: string };

/** At most this many hashes in one IN list: D1 binds at most 100 parameters per statement. */
const PER_STATEMENT = 100;

/**
 * Which of `hashes` are on the blocklist: one statement (up to 100 hashes; more are batched, 100 a
 * statement), each hash one lookup of the primary key's index.
 */
export async function blockedAmong(db: D1Database, hashes: string[]): Promise<Set<string>> {
  const unique = [...new Set(hashes)];
  if (unique.length === 0) return new Set();
  const statements: D1PreparedStatement[] = [];
  for (let at = 0; at < unique.length; at += PER_STATEMENT) {
    const chunk = unique.slice(at, at + PER_STATEMENT);
    const marks = chunk.map((_, index) => `?${index + 1}`).join(', ');
    statements.push(db.prepare(`SELECT sha256 FROM blocklist WHERE sha256 IN (${marks})`).bind(...chunk));
  }
  const [first] = statements;
  const results =
    statements.length === 1 && first
      ? [await first.all<{ sha256: string }>()]
      : await db.batch<{ sha256: string }>(statements);
  return new Set(results.flatMap((result) => result.results.map((row) => row.sha256)));
}

export function findBlocked(db: D1Database, sha256: string) {
  return db
    .prepare('SELECT sha256, reason, created_at FROM blocklist WHERE sha256 = ?1')
    .bind(sha256)
    .first<BlocklistRow>();
}

/**
 * Blocks a hash, or gives a blocked one its new reason (its time stays the first). The entry as
 * it is after, and whether this call added it.
 */
export async function putBlocked(
  db: D1Database,
  sha256: string,
  reason: string,
  now: string,
): Promise<{ row: BlocklistRow; added: boolean }> {
  const [before, after] = await db.batch<BlocklistRow>([
    db.prepare('SELECT sha256, reason, created_at FROM blocklist WHERE sha256 = ?1').bind(sha256),
    db
      .prepare(
        `INSERT INTO blocklist (sha256, reason, created_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (sha256) DO UPDATE SET reason = excluded.reason RETURNING sha256, reason, created_at`,
      )
      .bind(sha256, reason, now),
  ]);
  const row = after?.results[0];
  if (!row) throw new Error('the blocklist entry was not written');
  return { row, added: (before?.results.length ?? 0) === 0 };
}

/** Unblocks a hash: the entry it had, or null when it was not blocked. */
export function deleteBlocked(db: D1Database, sha256: string) {
  return db
    .prepare('DELETE FROM blocklist WHERE sha256 = ?1 RETURNING sha256, reason, created_at')
    .bind(sha256)
    .first<BlocklistRow>();
}

/** Where a page of the blocklist ends: the last entry's time and hash (newest first). */
export type BlocklistPosition = { createdAt: string; sha256: string };

/**
 * One page of the blocklist, newest first (created_at, then sha256, both descending), after
 * `after`: one walk of blocklist_by_age. Reads `limit + 1` so the caller knows whether more follow.
 */
export async function listBlocked(db: D1Database, limit: number, after?: BlocklistPosition): Promise<BlocklistRow[]> {
  const { results } = await db
    .prepare(
      `SELECT sha256, reason, created_at FROM blocklist
       WHERE ?1 IS NULL OR (created_at, sha256) < (?1, ?2)
       ORDER BY created_at DESC, sha256 DESC LIMIT ?3`,
    )
    .bind(after?.createdAt ?? null, after?.sha256 ?? '', limit + 1)
    .all<BlocklistRow>();
  return results;
}

/**
 * Blocks many hashes at once (an import): one statement whatever their number, the hashes bound
 * as ONE parameter (a JSON array read by json_each), so it stays within D1's 100 bound parameters
 * and its limit of queries per invocation. A hash blocked already keeps its entry. How many were
 * added.
 */
export async function importBlocked(
  db: D1Database,
  hashes: string[],
  reason: string | null,
  now: string,
): Promise<number> {
  if (hashes.length === 0) return 0;
  const result = await db
    .prepare(
      `INSERT OR IGNORE INTO blocklist (sha256, reason, created_at)
       SELECT value, ?2, ?3 FROM json_each(?1)`,
    )
    .bind(JSON.stringify(hashes), reason, now)
    .run();
  return result.meta.changes;
}

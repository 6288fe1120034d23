// D1 access for the digest backfill: files stored before digests (SHA-256, migration 0008) or
// before CRC-32s (migration 0012), and what they lack once it is known.

/** A file that lacks its SHA-256, its CRC-32 or both (the column it has is shown as stored). */
export type UnhashedFile = {
  id: string;
  r2_key: string;
  etag: string;
  size: number;
  uploaded_at: string;
  sha256: string | null;
  crc32: number | null;
};

/**
 * Up to `limit` files that lack a SHA-256 or a CRC-32, oldest first, after the position
 * (uploaded_at, id) the last run stopped at: a file that cannot be read (its blob is gone) never
 * holds up the others. Each half walks its own partial index (files_without_sha256,
 * files_without_crc32) for at most `limit` rows; a file lacking both comes once.
 */
export async function filesWithoutDigest(
  db: D1Database,
  after: { uploadedAt: string; id: string } | undefined,
  limit: number,
): Promise<UnhashedFile[]> {
  const lacking = (column: string) =>
    `SELECT rowid FROM (SELECT rowid FROM files WHERE ${column} IS NULL AND (uploaded_at, id) > (?1, ?2)
       ORDER BY uploaded_at, id LIMIT ?3)`;
  const { results } = await db
    .prepare(
      `SELECT id, r2_key, etag, size, uploaded_at, sha256, crc32 FROM files
       WHERE rowid IN (${lacking('sha256')} UNION ALL ${lacking('crc32')})
       ORDER BY uploaded_at, id LIMIT ?3`,
    )
    .bind(after?.uploadedAt ?? '', after?.id ?? '', limit)
    .all<UnhashedFile>();
  return results;
}

/**
 * Records what a file lacked (a value it has already is kept), while the row still names the
 * same blob (ETag). False when nothing changed: the row is gone, names other bytes, or has both.
 */
export async function setDigests(
  db: D1Database,
  id: string,
  etag: string,
  digests: { sha256: string | null; crc32: number | null },
): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE files SET sha256 = COALESCE(sha256, ?3), crc32 = COALESCE(crc32, ?4)
       WHERE id = ?1 AND etag = ?2 AND ((sha256 IS NULL AND ?3 IS NOT NULL) OR (crc32 IS NULL AND ?4 IS NOT NULL))`,
    )
    .bind(id, etag, digests.sha256, digests.crc32)
    .run();
  return result.meta.changes > 0;
}

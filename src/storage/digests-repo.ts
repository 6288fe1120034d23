// D1 access for the digest backfill: files stored before digests, and their digest once known.

export type UnhashedFile = { id: string; r2_key: string; etag: string; size: number; uploaded_at: string };

/**
 * Up to `limit` files that have no SHA-256 yet, oldest first, after the position (uploaded_at, id)
 * the last run stopped at (index files_without_sha256): a file that cannot be hashed (its blob is
 * gone) never holds up the others.
 */
export async function filesWithoutDigest(
  db: D1Database,
  after: { uploadedAt: string; id: string } | undefined,
  limit: number,
): Promise<UnhashedFile[]> {
  const { results } = await db
    .prepare(
      `SELECT id, r2_key, etag, size, uploaded_at FROM files
       WHERE sha256 IS NULL AND (uploaded_at, id) > (?1, ?2)
       ORDER BY uploaded_at, id LIMIT ?3`,
    )
    .bind(after?.uploadedAt ?? '', after?.id ?? '', limit)
    .all<UnhashedFile>();
  return results;
}

/** Records a file's digest while the row still names the same blob (ETag) and has none. */
export async function setDigest(db: D1Database, id: string, etag: string, sha256: string): Promise<boolean> {
  const result = await db
    .prepare('UPDATE files SET sha256 = ?3 WHERE id = ?1 AND etag = ?2 AND sha256 IS NULL')
    .bind(id, etag, sha256)
    .run();
  return result.meta.changes > 0;
}

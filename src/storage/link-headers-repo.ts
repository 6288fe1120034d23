// D1 access for share links' age headers (migration 0017, docs/e2e.md): one per (link, encrypted
// file), a file's link holding one, a collection's link one per encrypted member it serves. The
// triggers of 0017 drop a link's headers when it is revoked or deleted, and a file's when it goes
// or leaves the collection. No HTTP here.

export type LinkHeaderRow = {
  link_id: string;
  file_id: string;
  header: string;
  created_at: string;
  updated_at: string;
};

/** One header to keep for a link. */
export type NewLinkHeader = { fileId: string; header: string };

/**
 * The statements that keep a new link's headers, for the batch that inserts the link: each only
 * if the link's row went in (its insert may be refused by the bound on links per target).
 */
export function headerInserts(db: D1Database, linkId: string, headers: NewLinkHeader[], now: string) {
  const insert = db.prepare(
    `INSERT INTO link_headers (link_id, file_id, header, created_at, updated_at)
     SELECT ?1, ?2, ?3, ?4, ?4 WHERE EXISTS (SELECT 1 FROM share_links WHERE id = ?1)`,
  );
  return headers.map(({ fileId, header }) => insert.bind(linkId, fileId, header, now));
}

/** Keeps (or replaces) a link's header for a file; returns the row as it is now. */
export function upsertLinkHeader(db: D1Database, linkId: string, fileId: string, header: string, now: string) {
  return db
    .prepare(
      `INSERT INTO link_headers (link_id, file_id, header, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
       ON CONFLICT (link_id, file_id) DO UPDATE SET header = excluded.header, updated_at = excluded.updated_at
       RETURNING link_id, file_id, header, created_at, updated_at`,
    )
    .bind(linkId, fileId, header, now)
    .first<LinkHeaderRow>();
}

/** A link's headers, by file (at most one per member: a collection has at most MAX_COLLECTION_FILES). */
export async function headersOfLink(db: D1Database, linkId: string): Promise<LinkHeaderRow[]> {
  const { results } = await db
    .prepare(
      'SELECT link_id, file_id, header, created_at, updated_at FROM link_headers WHERE link_id = ?1 ORDER BY file_id',
    )
    .bind(linkId)
    .all<LinkHeaderRow>();
  return results;
}

/** A link's header for one file, or null. */
export async function linkHeaderOf(db: D1Database, linkId: string, fileId: string): Promise<string | null> {
  const row = await db
    .prepare('SELECT header FROM link_headers WHERE link_id = ?1 AND file_id = ?2')
    .bind(linkId, fileId)
    .first<{ header: string }>();
  return row?.header ?? null;
}

/**
 * Of `fileIds`, the live members of the account's collection with whether each is encrypted (the
 * others are missing from the answer), in one statement.
 */
export async function membersEncryption(
  db: D1Database,
  collectionId: string,
  accountId: string,
  fileIds: readonly string[],
  now: string,
): Promise<Map<string, boolean>> {
  const { results } = await db
    .prepare(
      `SELECT f.id, f.encryption FROM collection_files cf JOIN files f ON f.id = cf.file_id
       WHERE cf.collection_id = ?1 AND f.account_id = ?2 AND (f.expires_at IS NULL OR f.expires_at > ?3)
         AND cf.file_id IN (SELECT value FROM json_each(?4))`,
    )
    .bind(collectionId, accountId, now, JSON.stringify(fileIds))
    .all<{ id: string; encryption: string | null }>();
  return new Map(results.map((row) => [row.id, row.encryption !== null]));
}

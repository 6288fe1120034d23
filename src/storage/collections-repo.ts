// D1 access for collections and their members (migration 0013). No HTTP here: callers get rows.
// A member counts only while its file is live: an expired file has left every collection before
// the sweep deletes it (and, through the trigger of migration 0013, its member rows).
import { FILE_COLUMNS, type FileRow } from './files-repo';

export type CollectionRow = {
  id: string;
  account_id: string;
  name: string;
  note: string | null;
  created_at: string;
  updated_at: string;
};

/** A collection with what its live members add up to. */
export type CollectionWithCounts = CollectionRow & { file_count: number; bytes: number };

const COLUMNS = 'id, account_id, name, note, created_at, updated_at';
const C = COLUMNS.split(', ')
  .map((column) => `c.${column}`)
  .join(', ');
const F = FILE_COLUMNS.split(', ')
  .map((column) => `f.${column}`)
  .join(', ');

const liveFile = (alias: string, now: string) => `(${alias}.expires_at IS NULL OR ${alias}.expires_at > ${now})`;

/** The collection ?1 of account ?2 with its live members' count and bytes (?3: now). */
const WITH_COUNTS = `SELECT ${C}, COUNT(f.id) AS file_count, COALESCE(SUM(f.size), 0) AS bytes
  FROM collections c
  LEFT JOIN collection_files cf ON cf.collection_id = c.id
  LEFT JOIN files f ON f.id = cf.file_id AND ${liveFile('f', '?3')}
  WHERE c.id = ?1 AND c.account_id = ?2 GROUP BY c.id`;

const withCounts = (db: D1Database, id: string, accountId: string, now: string) =>
  db.prepare(WITH_COUNTS).bind(id, accountId, now);

/** Of `ids` (a JSON array, ?1), those that are not live files of account ?2 at ?3, as a JSON array. */
const MISSING_FILES = `SELECT json_group_array(j.value) AS missing FROM json_each(?1) j
  WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = j.value AND f.account_id = ?2 AND ${liveFile('f', '?3')})`;

const missingOf = (result: D1Result | undefined): string[] =>
  JSON.parse((result?.results[0] as { missing: string } | undefined)?.missing ?? '[]') as string[];

export function findOwnedCollection(db: D1Database, id: string, accountId: string, now: string) {
  return withCounts(db, id, accountId, now).first<CollectionWithCounts>();
}

export type CreateOutcome = { created: CollectionWithCounts } | { missing: string[] };

/**
 * Creates a collection with its first members, in the order given, in one transaction: nothing
 * is created unless every id is a live file of the account (`missing` names those that are not).
 */
export async function insertCollection(
  db: D1Database,
  row: CollectionRow,
  fileIds: readonly string[],
  now: string,
): Promise<CreateOutcome> {
  const ids = JSON.stringify(fileIds);
  const [missing, , , created] = await db.batch([
    db.prepare(MISSING_FILES).bind(ids, row.account_id, now),
    db
      .prepare(
        `INSERT INTO collections (${COLUMNS}) SELECT ?1, ?2, ?3, ?4, ?5, ?6
         WHERE NOT EXISTS (SELECT 1 FROM json_each(?7) j WHERE NOT EXISTS (
           SELECT 1 FROM files f WHERE f.id = j.value AND f.account_id = ?2 AND ${liveFile('f', '?8')}))`,
      )
      .bind(row.id, row.account_id, row.name, row.note, row.created_at, row.updated_at, ids, now),
    db
      .prepare(
        `INSERT INTO collection_files (collection_id, file_id, position, added_at)
         SELECT ?1, j.value, j.key + 1, ?3 FROM json_each(?2) j WHERE EXISTS (SELECT 1 FROM collections WHERE id = ?1)`,
      )
      .bind(row.id, ids, row.created_at),
    withCounts(db, row.id, row.account_id, now),
  ]);
  const found = created?.results[0] as CollectionWithCounts | undefined;
  return found ? { created: found } : { missing: missingOf(missing) };
}

export type CollectionPage = { rows: CollectionWithCounts[]; total: number };

/** One page of the account's collections, newest first, with their total. */
export async function listOwnedCollections(
  db: D1Database,
  accountId: string,
  now: string,
  page: { limit: number; offset: number },
): Promise<CollectionPage> {
  const [rows, total] = await db.batch<CollectionWithCounts | { total: number }>([
    db
      .prepare(
        `SELECT ${C}, COUNT(f.id) AS file_count, COALESCE(SUM(f.size), 0) AS bytes
         FROM (SELECT ${COLUMNS} FROM collections WHERE account_id = ?1
               ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4) c
         LEFT JOIN collection_files cf ON cf.collection_id = c.id
         LEFT JOIN files f ON f.id = cf.file_id AND ${liveFile('f', '?2')}
         GROUP BY c.id ORDER BY c.created_at DESC, c.id DESC`,
      )
      .bind(accountId, now, page.limit, page.offset),
    db.prepare('SELECT COUNT(*) AS total FROM collections WHERE account_id = ?1').bind(accountId),
  ]);
  return {
    rows: (rows?.results ?? []) as CollectionWithCounts[],
    total: (total?.results[0] as { total: number } | undefined)?.total ?? 0,
  };
}

/** What an owner may change on a collection; absent fields stay as they are. */
export type CollectionChanges = { name?: string; note?: string | null };

/** Changes the account's collection and returns it as it is after, or null when there is none. */
export async function updateOwnedCollection(
  db: D1Database,
  id: string,
  accountId: string,
  now: string,
  changes: CollectionChanges,
): Promise<CollectionWithCounts | null> {
  const [, after] = await db.batch([
    db
      .prepare(
        `UPDATE collections SET name = COALESCE(?3, name), note = CASE WHEN ?4 = 1 THEN ?5 ELSE note END,
           updated_at = ?6 WHERE id = ?1 AND account_id = ?2`,
      )
      .bind(id, accountId, changes.name ?? null, changes.note === undefined ? 0 : 1, changes.note ?? null, now),
    withCounts(db, id, accountId, now),
  ]);
  return (after?.results[0] as CollectionWithCounts | undefined) ?? null;
}

/** Deletes the account's collection (its members and links go with it, by trigger); false when there is none. */
export async function deleteOwnedCollection(db: D1Database, id: string, accountId: string): Promise<boolean> {
  const row = await db
    .prepare('DELETE FROM collections WHERE id = ?1 AND account_id = ?2 RETURNING id')
    .bind(id, accountId)
    .first();
  return row !== null;
}

export type AddOutcome =
  | { kind: 'added'; collection: CollectionWithCounts }
  | { kind: 'no-collection' }
  | { kind: 'missing'; ids: string[] }
  | { kind: 'too-many'; members: number; adding: number };

/**
 * Appends files to the account's collection in the order given, ids already there ignored, in
 * one transaction: nothing is added unless every id is a live file of the account and the live
 * members stay within `max` (checked in the insert itself, so concurrent adds cannot pass it).
 */
export async function addMembers(
  db: D1Database,
  id: string,
  accountId: string,
  fileIds: readonly string[],
  max: number,
  now: string,
): Promise<AddOutcome> {
  const ids = JSON.stringify(fileIds);
  const found = 'EXISTS (SELECT 1 FROM collections WHERE id = ?1 AND account_id = ?2)';
  const members = `(SELECT COUNT(*) FROM collection_files m JOIN files f ON f.id = m.file_id
    WHERE m.collection_id = ?1 AND ${liveFile('f', '?4')})`;
  const absent = (alias: string) =>
    `NOT EXISTS (SELECT 1 FROM collection_files p WHERE p.collection_id = ?1 AND p.file_id = ${alias}.value)`;
  const adding = `(SELECT COUNT(*) FROM json_each(?3) n WHERE ${absent('n')})`;
  const allLive = `NOT EXISTS (SELECT 1 FROM json_each(?3) k WHERE NOT EXISTS (
    SELECT 1 FROM files f WHERE f.id = k.value AND f.account_id = ?2 AND ${liveFile('f', '?4')}))`;
  const [state, missing, , , after] = await db.batch([
    db.prepare(`SELECT ${found} AS found, ${members} AS members, ${adding} AS adding`).bind(id, accountId, ids, now),
    db.prepare(MISSING_FILES).bind(ids, accountId, now),
    db
      .prepare(
        `INSERT INTO collection_files (collection_id, file_id, position, added_at)
         SELECT ?1, j.value, (SELECT COALESCE(MAX(position), 0) FROM collection_files WHERE collection_id = ?1) + j.key + 1, ?4
         FROM json_each(?3) j
         WHERE ${absent('j')} AND ${found} AND ${allLive} AND ${members} + ${adding} <= ?5`,
      )
      .bind(id, accountId, ids, now, max),
    db
      .prepare(
        `UPDATE collections SET updated_at = ?3 WHERE id = ?1 AND account_id = ?2
           AND EXISTS (SELECT 1 FROM collection_files WHERE collection_id = ?1 AND added_at = ?3)`,
      )
      .bind(id, accountId, now),
    withCounts(db, id, accountId, now),
  ]);
  const counts = state?.results[0] as { found: number; members: number; adding: number } | undefined;
  if (!counts?.found) return { kind: 'no-collection' };
  const absentIds = missingOf(missing);
  if (absentIds.length > 0) return { kind: 'missing', ids: absentIds };
  if (counts.members + counts.adding > max) return { kind: 'too-many', members: counts.members, adding: counts.adding };
  return { kind: 'added', collection: after?.results[0] as CollectionWithCounts };
}

export type RemoveOutcome =
  | { kind: 'removed'; collection: CollectionWithCounts }
  | { kind: 'no-collection' }
  | { kind: 'no-member' };

/** Takes a live file out of the account's collection (the file itself stays). */
export async function removeMember(
  db: D1Database,
  id: string,
  accountId: string,
  fileId: string,
  now: string,
): Promise<RemoveOutcome> {
  const [found, removed] = await db.batch([
    db.prepare('SELECT 1 AS found FROM collections WHERE id = ?1 AND account_id = ?2').bind(id, accountId),
    db
      .prepare(
        `DELETE FROM collection_files WHERE collection_id = ?1 AND file_id = ?3
           AND EXISTS (SELECT 1 FROM collections WHERE id = ?1 AND account_id = ?2)
           AND EXISTS (SELECT 1 FROM files f WHERE f.id = ?3 AND ${liveFile('f', '?4')})
         RETURNING file_id`,
      )
      .bind(id, accountId, fileId, now),
  ]);
  if ((found?.results.length ?? 0) === 0) return { kind: 'no-collection' };
  if ((removed?.results.length ?? 0) === 0) return { kind: 'no-member' };
  const [, after] = await db.batch([
    db.prepare('UPDATE collections SET updated_at = ?3 WHERE id = ?1 AND account_id = ?2').bind(id, accountId, now),
    withCounts(db, id, accountId, now),
  ]);
  const collection = after?.results[0] as CollectionWithCounts | undefined;
  // Deleted between the two batches: as if it had never been found.
  return collection ? { kind: 'removed', collection } : { kind: 'no-collection' };
}

export type MemberPage = { found: boolean; rows: FileRow[]; total: number };

/** One page of the collection's live member files, in collection order, with their total. */
export async function listMembers(
  db: D1Database,
  id: string,
  accountId: string,
  now: string,
  page: { limit: number; offset: number },
): Promise<MemberPage> {
  const from = `FROM collection_files cf JOIN files f ON f.id = cf.file_id
    WHERE cf.collection_id = ?1 AND ${liveFile('f', '?2')}`;
  const [found, rows, total] = await db.batch<FileRow | { total: number } | { found: number }>([
    db.prepare('SELECT 1 AS found FROM collections WHERE id = ?1 AND account_id = ?2').bind(id, accountId),
    db.prepare(`SELECT ${F} ${from} ORDER BY cf.position LIMIT ?3 OFFSET ?4`).bind(id, now, page.limit, page.offset),
    db.prepare(`SELECT COUNT(*) AS total ${from}`).bind(id, now),
  ]);
  return {
    found: (found?.results.length ?? 0) > 0,
    rows: (rows?.results ?? []) as FileRow[],
    total: (total?.results[0] as { total: number } | undefined)?.total ?? 0,
  };
}

/**
 * The file ?3 while it is a live member of account ?2's collection ?1 (a collection link's one
 * member): null for a file that is not in it, another account's, expired or deleted.
 */
export function findMember(db: D1Database, id: string, accountId: string, fileId: string, now: string) {
  return db
    .prepare(
      `SELECT ${F} FROM collection_files cf JOIN files f ON f.id = cf.file_id
       JOIN collections c ON c.id = cf.collection_id
       WHERE cf.collection_id = ?1 AND c.account_id = ?2 AND f.account_id = ?2 AND cf.file_id = ?3
         AND ${liveFile('f', '?4')}`,
    )
    .bind(id, accountId, fileId, now)
    .first<FileRow>();
}

// D1 reads for a ZIP archive of several files (src/collections/archive.ts): its members' records
// in order, CRC-32 included (migration 0012; NULL while unknown), and the segments of members
// stored in segments (migration 0011), each in one statement whatever the member count.
import type { ZipFile } from '../lib/zip';
import type { CollectionRow } from './collections-repo';
import type { FileStanding } from './files-repo';
import type { Segment } from './segments-repo';

/** What an archive needs of one member's file row. */
export type ArchiveMemberRow = {
  id: string;
  original_name: string;
  size: number;
  /** The unsigned CRC-32 of the bytes; null until it is known. */
  crc32: number | null;
  uploaded_at: string;
  updated_at: string;
  r2_key: string;
  /** Not in the archive's bytes: what a collection's share page says of each file. */
  mime_type: string;
  /** 'age' for an end-to-end encrypted file (its size and CRC-32 are its payload's), else null. */
  encryption: string | null;
  /** An encrypted member's sealed `meta` (opened only in a browser, with the key), else null. */
  meta: string | null;
  /** An encrypted member's age header for this archive's way in (the owner's, or a link's); else null. */
  header: string | null;
  /** The file request it came through (its scan mode), or null. */
  request_id: string | null;
} & Pick<FileStanding, 'moderation_state' | 'moderation_statement' | 'scan_status' | 'released_at'>;

/** What the archive's layout reads of a member (src/lib/zip.ts). */
export const zipFileOf = (member: ArchiveMemberRow): ZipFile => ({
  originalName: member.original_name,
  size: member.size,
  crc32: member.crc32,
  modified: new Date(member.uploaded_at),
});

// With each member's standing (migration 0016): an archive leaves out those it may not serve.
const MEMBER_COLUMNS =
  'f.id, f.original_name, f.size, f.crc32, f.uploaded_at, f.updated_at, f.r2_key, f.mime_type, f.request_id, ' +
  'f.moderation_state, f.moderation_statement, f.scan_status, f.released_at, f.encryption, f.meta';
/**
 * An encrypted member's header for the way in (?4: a link's id, or NULL for the owner's), and the
 * condition that keeps a member: plain, or encrypted with a header there (migration 0017).
 */
const HEADER = 'CASE WHEN ?4 IS NULL THEN f.e2e_header ELSE h.header END';
const HEADERS_JOIN = 'LEFT JOIN link_headers h ON h.link_id = ?4 AND h.file_id = f.id';
const SERVED = `(f.encryption IS NULL OR ${HEADER} IS NOT NULL)`;
const live = (now: string) => `(f.expires_at IS NULL OR f.expires_at > ${now})`;

/**
 * The account's collection and its live members in collection order, in one transaction, or
 * null when there is no such collection. `expired_at`: the latest expiry of a member that has
 * expired but not yet been swept (it left the collection then: the archive's bytes changed).
 * `linkId`: the members as that link serves them (an encrypted one only with the link's header);
 * absent, as the owner's (with the owner's headers).
 */
export async function collectionArchive(
  db: D1Database,
  id: string,
  accountId: string,
  now: string,
  linkId: string | null = null,
): Promise<{ collection: CollectionRow & { expired_at: string | null }; members: ArchiveMemberRow[] } | null> {
  const [collection, members] = await db.batch<(CollectionRow & { expired_at: string | null }) | ArchiveMemberRow>([
    db
      .prepare(
        `SELECT c.id, c.account_id, c.name, c.note, c.created_at, c.updated_at,
           (SELECT MAX(f.expires_at) FROM collection_files cf JOIN files f ON f.id = cf.file_id
            WHERE cf.collection_id = c.id AND f.expires_at <= ?3) AS expired_at
         FROM collections c WHERE c.id = ?1 AND c.account_id = ?2`,
      )
      .bind(id, accountId, now),
    db
      .prepare(
        `SELECT ${MEMBER_COLUMNS}, ${HEADER} AS header FROM collection_files cf JOIN files f ON f.id = cf.file_id
         ${HEADERS_JOIN}
         WHERE cf.collection_id = ?1 AND ${live('?2')} AND ${SERVED}
           AND EXISTS (SELECT 1 FROM collections WHERE id = ?1 AND account_id = ?3)
         ORDER BY cf.position`,
      )
      .bind(id, now, accountId, linkId),
  ]);
  const row = collection?.results[0] as (CollectionRow & { expired_at: string | null }) | undefined;
  if (!row) return null;
  return { collection: row, members: (members?.results ?? []) as ArchiveMemberRow[] };
}

/**
 * The members the owner's archive serves of each of the account's collections `ids`, in collection
 * order, by collection id (one statement, whatever the count): what the records' archiveUrl
 * versions are made from, so that they name the archive the owner gets. Live, and in good
 * standing: a quarantined or removed file is served to no one, its owner included
 * (src/moderation/standing.ts), so the owner's archive leaves it out. A collection without such
 * members (or not the account's) is absent.
 */
export async function membersOfCollections(
  db: D1Database,
  ids: readonly string[],
  accountId: string,
  now: string,
): Promise<Map<string, ArchiveMemberRow[]>> {
  const byCollection = new Map<string, ArchiveMemberRow[]>();
  if (ids.length === 0) return byCollection;
  const { results } = await db
    .prepare(
      `SELECT cf.collection_id, ${MEMBER_COLUMNS}, f.e2e_header AS header FROM collection_files cf JOIN files f ON f.id = cf.file_id
       JOIN collections c ON c.id = cf.collection_id
       WHERE cf.collection_id IN (SELECT value FROM json_each(?1)) AND c.account_id = ?2 AND ${live('?3')}
         AND f.moderation_state IS NULL
       ORDER BY cf.collection_id, cf.position`,
    )
    .bind(JSON.stringify(ids), accountId, now)
    .all<ArchiveMemberRow & { collection_id: string }>();
  for (const { collection_id, ...member } of results) {
    const list = byCollection.get(collection_id) ?? [];
    list.push(member);
    byCollection.set(collection_id, list);
  }
  return byCollection;
}

/** The live files that came through the account's request ?1, oldest first. */
export async function requestArchiveMembers(
  db: D1Database,
  requestId: string,
  accountId: string,
  now: string,
): Promise<ArchiveMemberRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${MEMBER_COLUMNS}, f.e2e_header AS header FROM files f
       WHERE f.request_id = ?1 AND f.account_id = ?2 AND ${live('?3')}
       ORDER BY f.uploaded_at ASC, f.id ASC`,
    )
    .bind(requestId, accountId, now)
    .all<ArchiveMemberRow>();
  return results;
}

/** The segments of each of these files stored in segments, in order, by file id (one statement). */
export async function segmentsOfFiles(db: D1Database, fileIds: readonly string[]): Promise<Map<string, Segment[]>> {
  const bySegmented = new Map<string, Segment[]>();
  if (fileIds.length === 0) return bySegmented;
  const { results } = await db
    .prepare(
      'SELECT file_id, r2_key, size, start FROM file_segments WHERE file_id IN (SELECT value FROM json_each(?1)) ORDER BY file_id, seq',
    )
    .bind(JSON.stringify(fileIds))
    .all<Segment & { file_id: string }>();
  for (const { file_id, r2_key, size, start } of results) {
    const list = bySegmented.get(file_id) ?? [];
    list.push({ r2_key, size, start });
    bySegmented.set(file_id, list);
  }
  return bySegmented;
}

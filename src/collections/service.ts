// The owner's side of collections: make, list, read, change and delete an account's collections,
// their members and their share links. Rules only: no HTTP here, SQL in storage/collections-repo.ts.
import type { Origins } from '../env';
import { ApiError, collectionNotFound, filesNotFound, tooManyFiles, validationError } from '../errors';
import { FILE_ID_PATTERN } from '../files/ids';
import { randomBase64Url } from '../lib/crypto';
import { type AccessQuery, accessOfLinks } from '../links/access-log';
import type { LinkCounterNamespace } from '../links/link-counter-client';
import type { LinkRecord } from '../links/records';
import { createLinkTo, listCollectionLinks, type NewLink } from '../links/service';
import type { Policy } from '../policy/service';
import { membersOfCollections } from '../storage/archive-repo';
import {
  addMembers,
  type CollectionChanges,
  type CollectionRow,
  type CollectionWithCounts,
  deleteOwnedCollection,
  findOwnedCollection,
  insertCollection,
  listMembers,
  listOwnedCollections,
  removeMember,
  updateOwnedCollection,
} from '../storage/collections-repo';
import type { FileRow } from '../storage/files-repo';
import { membersEncryption, type NewLinkHeader } from '../storage/link-headers-repo';
import { listLinksOfCollection } from '../storage/links-repo';
import { isoNow } from '../time';
import { versionOf } from './archive';
import { type CollectionRecord, collectionRecord } from './records';

/**
 * What the collection rules work with: D1, the links' counters, where URLs point, the bounds of
 * the account's links (its policy), the member cap.
 */
export type CollectionDeps = {
  db: D1Database;
  counters: LinkCounterNamespace;
  origins: Origins;
  policy: Policy;
  /** MAX_COLLECTION_FILES: live members a collection may hold. */
  maxFiles: number;
};

/** `col_` and 128 random bits, base64url. */
export const COLLECTION_ID_PATTERN = /^col_[A-Za-z0-9_-]{22}$/;
export const newCollectionId = () => `col_${randomBase64Url(16)}`;

export type Pagination = { page: number; limit: number; total: number; totalPages: number; hasMore: boolean };
export type PageQuery = { page: number; limit: number };

const pagination = ({ page, limit }: PageQuery, total: number): Pagination => {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, totalPages, hasMore: page < totalPages };
};

/** Refuses a malformed id as if it were unknown: the same 404 either way. */
function checkId(id: string): void {
  if (!COLLECTION_ID_PATTERN.test(id)) throw collectionNotFound();
}

const overCap = (max: number) =>
  tooManyFiles(`A collection holds at most ${max} files (MAX_COLLECTION_FILES); nothing was added`);

/** Each id once, in the order first given. */
const unique = (ids: readonly string[]) => [...new Set(ids)];

/**
 * The records of the account's collections, each `archiveUrl` in its archive's version now: one
 * read of all their members, made after the rows were, so a version is never older than the
 * record it is in (a change in between gives the record the newer one, which is the archive's).
 */
async function recordsOf(
  deps: CollectionDeps,
  accountId: string,
  rows: readonly CollectionWithCounts[],
  now: number,
): Promise<CollectionRecord[]> {
  const ids = rows.map((row) => row.id);
  const members = await membersOfCollections(deps.db, ids, accountId, isoNow(now));
  return Promise.all(
    rows.map(async (row) => collectionRecord(row, deps.origins, await versionOf(members.get(row.id) ?? []))),
  );
}

const recordOf = async (deps: CollectionDeps, accountId: string, row: CollectionWithCounts, now: number) =>
  (await recordsOf(deps, accountId, [row], now))[0] as CollectionRecord;

export type NewCollection = { name: string; note?: string; fileIds?: string[] };

export async function createCollection(
  deps: CollectionDeps,
  accountId: string,
  input: NewCollection,
  now = Date.now(),
): Promise<CollectionRecord> {
  const fileIds = unique(input.fileIds ?? []);
  if (fileIds.length > deps.maxFiles) throw overCap(deps.maxFiles);
  const row: CollectionRow = {
    id: newCollectionId(),
    account_id: accountId,
    name: input.name,
    note: input.note ?? null,
    created_at: isoNow(now),
    updated_at: isoNow(now),
  };
  const outcome = await insertCollection(deps.db, row, fileIds, isoNow(now));
  if ('missing' in outcome) throw filesNotFound(outcome.missing);
  return recordOf(deps, accountId, outcome.created, now);
}

export async function listCollections(deps: CollectionDeps, accountId: string, query: PageQuery, now = Date.now()) {
  const { rows, total } = await listOwnedCollections(deps.db, accountId, isoNow(now), {
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
  });
  return {
    collections: await recordsOf(deps, accountId, rows, now),
    pagination: pagination(query, total),
  };
}

export async function getCollection(deps: CollectionDeps, id: string, accountId: string, now = Date.now()) {
  checkId(id);
  const row = await findOwnedCollection(deps.db, id, accountId, isoNow(now));
  if (!row) throw collectionNotFound();
  return recordOf(deps, accountId, row, now);
}

export type CollectionPatch = { name?: string; note?: string | null };

export async function updateCollection(
  deps: CollectionDeps,
  id: string,
  accountId: string,
  patch: CollectionPatch,
  now = Date.now(),
): Promise<CollectionRecord> {
  checkId(id);
  const changes: CollectionChanges = {};
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.note !== undefined) changes.note = patch.note;
  const row = await updateOwnedCollection(deps.db, id, accountId, isoNow(now), changes);
  if (!row) throw collectionNotFound();
  return recordOf(deps, accountId, row, now);
}

/** Deletes the collection, its members and its links; never its files. */
export async function deleteCollection(deps: CollectionDeps, id: string, accountId: string): Promise<void> {
  checkId(id);
  if (!(await deleteOwnedCollection(deps.db, id, accountId))) throw collectionNotFound();
}

/** One page of the collection's live members, as file rows, in collection order. */
export async function listCollectionFiles(
  deps: CollectionDeps,
  id: string,
  accountId: string,
  query: PageQuery,
  now = Date.now(),
): Promise<{ rows: FileRow[]; pagination: Pagination }> {
  checkId(id);
  const page = await listMembers(deps.db, id, accountId, isoNow(now), {
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
  });
  if (!page.found) throw collectionNotFound();
  return { rows: page.rows, pagination: pagination(query, page.total) };
}

/**
 * Appends files, in the order given (ids already members are ignored). Every id must be a live
 * file of the account (else 404 FILE_NOT_FOUND naming each one, nothing added), and the
 * collection stays within MAX_COLLECTION_FILES (else 400 TOO_MANY_FILES, nothing added).
 */
export async function addCollectionFiles(
  deps: CollectionDeps,
  id: string,
  accountId: string,
  fileIds: readonly string[],
  now = Date.now(),
): Promise<CollectionRecord> {
  checkId(id);
  const outcome = await addMembers(deps.db, id, accountId, unique(fileIds), deps.maxFiles, isoNow(now));
  switch (outcome.kind) {
    case 'no-collection':
      throw collectionNotFound();
    case 'missing':
      throw filesNotFound(outcome.ids);
    case 'too-many':
      throw tooManyFiles(
        `A collection holds at most ${deps.maxFiles} files (MAX_COLLECTION_FILES): it has ${outcome.members}, ` +
          `and ${outcome.adding} would join; nothing was added`,
      );
    case 'added':
      return recordOf(deps, accountId, outcome.collection, now);
  }
}

/** Takes a file out of the collection (the file stays); 404 FILE_NOT_FOUND when it is not a member. */
export async function removeCollectionFile(
  deps: CollectionDeps,
  id: string,
  accountId: string,
  fileId: string,
  now = Date.now(),
): Promise<CollectionRecord> {
  checkId(id);
  if (!FILE_ID_PATTERN.test(fileId)) {
    await getCollection(deps, id, accountId, now);
    throw new ApiError('FILE_NOT_FOUND', 'File not found in this collection');
  }
  const outcome = await removeMember(deps.db, id, accountId, fileId, isoNow(now));
  if (outcome.kind === 'no-collection') throw collectionNotFound();
  if (outcome.kind === 'no-member') throw new ApiError('FILE_NOT_FOUND', 'File not found in this collection');
  return recordOf(deps, accountId, outcome.collection, now);
}

const requireCollection = (deps: CollectionDeps, id: string, accountId: string, now: number) => async () => {
  await getCollection(deps, id, accountId, now);
};

/**
 * A share link to the collection: the same body and controls as a file's link, and an age header
 * for each encrypted member it is to serve (`e2eHeaders`, by file id): an id that is no live
 * member is 404 FILE_NOT_FOUND naming it, a plain member 400. An encrypted member without one is
 * left out of this link's page and ZIP until PUT /links/{linkId}/headers/{fileId}.
 */
export function createCollectionLink(
  deps: CollectionDeps,
  id: string,
  accountId: string,
  input: NewLink,
  now = Date.now(),
): Promise<LinkRecord> {
  if (input.e2eHeader !== undefined) {
    throw validationError('e2eHeader', 'is for a file’s link; a collection’s link takes e2eHeaders');
  }
  const requireTarget = async (): Promise<NewLinkHeader[]> => {
    await getCollection(deps, id, accountId, now);
    const headers = Object.entries(input.e2eHeaders ?? {});
    if (headers.length === 0) return [];
    const members = await membersEncryption(
      deps.db,
      id,
      accountId,
      headers.map(([fileId]) => fileId),
      isoNow(now),
    );
    const missing = headers.flatMap(([fileId]) => (members.has(fileId) ? [] : [fileId]));
    if (missing.length > 0) throw filesNotFound(missing);
    const plain = headers.find(([fileId]) => !members.get(fileId));
    if (plain)
      throw validationError(`e2eHeaders.${plain[0]}`, 'is a plain file: only an encrypted member takes a header');
    return headers.map(([fileId, header]) => ({ fileId, header }));
  };
  return createLinkTo(deps, { collectionId: id }, accountId, input, requireTarget, now);
}

/** The collection's links, newest first (revoked and expired ones included). */
export async function collectionLinks(
  deps: CollectionDeps,
  id: string,
  accountId: string,
  now = Date.now(),
): Promise<LinkRecord[]> {
  await requireCollection(deps, id, accountId, now)();
  return listCollectionLinks(deps, id, accountId, now);
}

/**
 * The access logs of every link made to the collection (revoked and expired ones included),
 * merged newest first; COLLECTION_NOT_FOUND as for the collection itself.
 */
export async function collectionAccessLog(
  deps: CollectionDeps,
  id: string,
  accountId: string,
  query: AccessQuery,
  now = Date.now(),
) {
  await requireCollection(deps, id, accountId, now)();
  const links = await listLinksOfCollection(deps.db, id, accountId);
  return accessOfLinks(
    deps.counters,
    links.map((link) => link.id),
    query,
  );
}

// The owner's side of share links: make, list, read, change and revoke links to the account's
// own live files. Rules only: no HTTP here, SQL in storage/links-repo.ts.

import { checkHeaderText } from '../e2e/age-checks';
import type { Origins } from '../env';
import { ApiError, validationError } from '../errors';
import { servedSize } from '../files/download';
import { FILE_ID_PATTERN } from '../files/ids';
import { newExpiry } from '../files/update';
import { randomBase64Url } from '../lib/crypto';
import { zipLayoutOfFiles } from '../lib/zip';
import { assertServable } from '../moderation/standing';
import { checkLink, type Policy } from '../policy/service';
import { collectionArchive, zipFileOf } from '../storage/archive-repo';
import { type FileRow, findOwnedFile } from '../storage/files-repo';
import {
  headerInserts,
  headersOfLink,
  type LinkHeaderRow,
  linkHeaderOf,
  membersEncryption,
  type NewLinkHeader,
  upsertLinkHeader,
} from '../storage/link-headers-repo';
import {
  findOwnedLink,
  insertLink,
  type LinkChanges,
  type LinkRow,
  listLinksOfCollection,
  listLinksOfFile,
  revokeOwnedLink,
  updateOwnedLink,
} from '../storage/links-repo';
import { isoNow } from '../time';
import { hashPassword } from '../visitors/password';
import { countOf, type LinkCounterNamespace } from './link-counter-client';
import { type LinkRecord, linkRecord } from './records';

/** `policy`: the bounds of the account's links (src/policy/), checked before any link is made or changed. */
export type LinkDeps = { db: D1Database; counters: LinkCounterNamespace; origins: Origins; policy: Policy };

/** A file, or a collection, has at most this many links (revoked ones included): a list stays one page. */
export const MAX_LINKS_PER_FILE = 100;

export const LINK_ID_PATTERN = /^lnk_[A-Za-z0-9_-]{22}$/;
/** 32 random bytes: 256 bits, never derived from any id. Default links' tokens are 32 characters. */
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const newLinkToken = () => randomBase64Url(32);

export type NewLink = {
  label?: string;
  password?: string;
  maxDownloads?: number;
  expiresIn?: number;
  expiresAt?: string;
  /** A file's link to an end-to-end encrypted file: the age header it serves (src/e2e/). */
  e2eHeader?: string;
  /** A collection's link: its age header for each encrypted member, by file id. */
  e2eHeaders?: Record<string, string>;
};

export type LinkPatch = {
  label?: string | null;
  password?: string | null;
  maxDownloads?: number | null;
  expiresIn?: number | null;
  expiresAt?: string | null;
};

const fileNotFound = () => new ApiError('FILE_NOT_FOUND');
const linkNotFound = () => new ApiError('LINK_NOT_FOUND');

/** The account's live file, which a new link may share: not one under moderation (451: no URL is handed out for it). */
async function requireOwnedFile(db: D1Database, fileId: string, accountId: string, now: number): Promise<FileRow> {
  const file = FILE_ID_PATTERN.test(fileId) ? await findOwnedFile(db, fileId, accountId, isoNow(now)) : null;
  if (!file) throw fileNotFound();
  return file;
}

/**
 * The header a file's link keeps: required for an encrypted file (what its downloads serve before
 * the payload), refused for a plain one.
 */
function fileLinkHeaders(file: FileRow, header: string | undefined): NewLinkHeader[] {
  if (!file.encryption) {
    if (header !== undefined) throw validationError('e2eHeader', 'is only taken for an end-to-end encrypted file');
    return [];
  }
  if (header === undefined) {
    throw validationError(
      'e2eHeader',
      'is required for an end-to-end encrypted file: the age header this link serves, wrapping the file key for the link',
    );
  }
  return [{ fileId: file.id, header }];
}

/**
 * The length of what a capped link shares now, the unit of its byte budget: its file's size, or
 * the length of its collection's archive as a visitor would get it now (the members the share
 * door finds, laid out by the same zipLayoutOfFiles). An encrypted file counts as this link serves
 * it: the link's header and the payload. 0 for an uncapped link, which has no budget to measure.
 */
async function sharedLength(db: D1Database, link: LinkRow, now: number): Promise<number> {
  if (link.max_downloads === null) return 0;
  if (link.collection_id !== null) {
    const found = await collectionArchive(db, link.collection_id, link.account_id, isoNow(now), link.id);
    const served = (found?.members ?? []).map((member) => ({ ...member, size: servedSize(member, member.header) }));
    return zipLayoutOfFiles(served.map(zipFileOf)).length;
  }
  const file = link.file_id === null ? null : await findOwnedFile(db, link.file_id, link.account_id, isoNow(now));
  if (!file) return 0;
  return servedSize(file, file.encryption ? await linkHeaderOf(db, link.id, file.id) : null);
}

/** What a link shares: one file, or one collection (its ZIP and its members). */
export type LinkTarget = { fileId: string } | { collectionId: string };

export function createLink(
  deps: LinkDeps,
  fileId: string,
  accountId: string,
  input: NewLink,
  now = Date.now(),
): Promise<LinkRecord> {
  if (input.e2eHeaders !== undefined) {
    throw validationError('e2eHeaders', 'is for a collection’s link; a file’s link takes e2eHeader');
  }
  const shareable = async () => {
    const file = await requireOwnedFile(deps.db, fileId, accountId, now);
    assertServable({ file }, 'owner');
    return fileLinkHeaders(file, input.e2eHeader);
  };
  return createLinkTo(deps, { fileId }, accountId, input, shareable, now);
}

/**
 * Makes a link to a target of the account. The body is checked first (its age headers' grammar
 * included), then `requireTarget` (which throws the target's own 404, and says which headers the
 * link keeps), then the password is hashed and the row inserted with its headers, within the
 * bound of MAX_LINKS_PER_FILE links per file or collection.
 */
export async function createLinkTo(
  deps: LinkDeps,
  target: LinkTarget,
  accountId: string,
  input: NewLink,
  requireTarget: () => Promise<NewLinkHeader[]>,
  now = Date.now(),
): Promise<LinkRecord> {
  const expiresAt = newExpiry(input, now) ?? null;
  if (input.e2eHeader !== undefined) checkHeaderText(input.e2eHeader, 'e2eHeader');
  for (const [fileId, header] of Object.entries(input.e2eHeaders ?? {})) {
    checkHeaderText(header, `e2eHeaders.${fileId}`);
  }
  checkLink(deps.policy, input, { now });
  const headers = await requireTarget();
  const password = input.password === undefined ? undefined : await hashPassword(input.password);
  const row: LinkRow = {
    id: `lnk_${randomBase64Url(16)}`,
    file_id: 'fileId' in target ? target.fileId : null,
    collection_id: 'collectionId' in target ? target.collectionId : null,
    account_id: accountId,
    token: newLinkToken(),
    label: input.label ?? null,
    password_hash: password?.hash ?? null,
    password_salt: password?.salt ?? null,
    password_iterations: password?.iterations ?? null,
    max_downloads: input.maxDownloads ?? null,
    download_count: 0,
    expires_at: expiresAt,
    last_downloaded_at: null,
    created_at: isoNow(now),
    updated_at: isoNow(now),
    revoked_at: null,
  };
  if (!(await insertLink(deps.db, row, MAX_LINKS_PER_FILE, headerInserts(deps.db, row.id, headers, row.created_at)))) {
    const what = 'fileId' in target ? 'A file' : 'A collection';
    throw new ApiError('TOO_MANY_LINKS', `${what} can have at most ${MAX_LINKS_PER_FILE} links`);
  }
  const access = { lastAccessAt: null, visitors: 0, droppedEvents: 0 };
  const remaining = row.max_downloads === null ? null : row.max_downloads * (await sharedLength(deps.db, row, now));
  return linkRecord(row, { count: 0, lastDownloadedAt: null, exhausted: false, remaining, access }, deps.origins, now);
}

/**
 * Each record's counts come from its link's counter object: exact, not D1's flushed copy.
 * `length`: what the link shares now (sharedLength), when the caller has it already.
 */
const withCounts = async (deps: LinkDeps, row: LinkRow, now: number, length?: number) => {
  const counts = await countOf(deps.counters, row, length ?? (await sharedLength(deps.db, row, now)));
  return linkRecord(row, counts, deps.origins, now);
};

export async function listLinks(deps: LinkDeps, fileId: string, accountId: string, now = Date.now()) {
  const file = await requireOwnedFile(deps.db, fileId, accountId, now);
  const rows = await listLinksOfFile(deps.db, fileId, accountId);
  return Promise.all(rows.map((row) => withCounts(deps, row, now, file.size)));
}

/** The links of a collection the caller has found to be the account's, newest first. */
export async function listCollectionLinks(deps: LinkDeps, collectionId: string, accountId: string, now = Date.now()) {
  const rows = await listLinksOfCollection(deps.db, collectionId, accountId);
  // One archive for every capped link of the collection (none when no link is capped).
  const capped = rows.find((row) => row.max_downloads !== null);
  const length = capped ? await sharedLength(deps.db, capped, now) : 0;
  return Promise.all(rows.map((row) => withCounts(deps, row, now, length)));
}

export async function getLink(deps: LinkDeps, linkId: string, accountId: string, now = Date.now()) {
  if (!LINK_ID_PATTERN.test(linkId)) throw linkNotFound();
  const row = await findOwnedLink(deps.db, linkId, accountId, isoNow(now));
  if (!row) throw linkNotFound();
  return withCounts(deps, row, now);
}

/**
 * Changes a link. Only the fields sent change; null clears a password, a cap, an expiry or a
 * label. A revoked link stays revoked. Raising the cap of an exhausted link opens it again.
 */
export async function updateLink(
  deps: LinkDeps,
  linkId: string,
  accountId: string,
  patch: LinkPatch,
  now = Date.now(),
): Promise<LinkRecord> {
  const changes: LinkChanges = {};
  if (patch.label !== undefined) changes.label = patch.label;
  if (patch.maxDownloads !== undefined) changes.maxDownloads = patch.maxDownloads;
  const expiresAt = newExpiry(patch, now);
  if (expiresAt !== undefined) changes.expiresAt = expiresAt;
  if (!LINK_ID_PATTERN.test(linkId)) throw linkNotFound();
  // Only what the patch touches is judged: a link made before a bound tightened keeps working.
  checkLink(deps.policy, patch, { change: true, now });
  if (patch.password !== undefined) {
    changes.password = patch.password === null ? null : await hashPassword(patch.password);
  }
  const row = await updateOwnedLink(deps.db, linkId, accountId, isoNow(now), changes);
  if (!row) throw linkNotFound();
  return withCounts(deps, row, now);
}

/** A link's age header for one file, as the owner sees it. */
export type LinkHeaderRecord = { linkId: string; fileId: string; header: string; createdAt: string; updatedAt: string };

const headerRecord = (row: LinkHeaderRow): LinkHeaderRecord => ({
  linkId: row.link_id,
  fileId: row.file_id,
  header: row.header,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * Gives a live link its age header for an encrypted file it shares (a collection member added
 * after the link was made), or replaces the one it has (its downloads' ETag changes with it): the
 * link's own file, or a live member of its collection. 404 for a link that is not the account's
 * or is revoked, and for a file it does not share; 400 for a plain file; 422 for a bad header.
 */
export async function putLinkHeader(
  deps: LinkDeps,
  linkId: string,
  accountId: string,
  fileId: string,
  header: string,
  now = Date.now(),
): Promise<LinkHeaderRecord> {
  if (!LINK_ID_PATTERN.test(linkId)) throw linkNotFound();
  checkHeaderText(header, 'header');
  const link = await findOwnedLink(deps.db, linkId, accountId, isoNow(now));
  if (!link || link.revoked_at !== null) throw linkNotFound();
  let encrypted: boolean | undefined;
  if (link.file_id !== null) {
    encrypted =
      fileId === link.file_id
        ? Boolean((await requireOwnedFile(deps.db, fileId, accountId, now)).encryption)
        : undefined;
  } else if (link.collection_id !== null && FILE_ID_PATTERN.test(fileId)) {
    encrypted = (await membersEncryption(deps.db, link.collection_id, accountId, [fileId], isoNow(now))).get(fileId);
  }
  if (encrypted === undefined) throw fileNotFound();
  if (!encrypted) throw validationError('fileId', 'is a plain file: only an end-to-end encrypted file takes a header');
  const row = await upsertLinkHeader(deps.db, linkId, fileId, header, isoNow(now));
  if (!row) throw linkNotFound();
  return headerRecord(row);
}

/** A link's age headers (one per encrypted file it serves), for its owner. */
export async function listLinkHeaders(deps: LinkDeps, linkId: string, accountId: string, now = Date.now()) {
  if (!LINK_ID_PATTERN.test(linkId)) throw linkNotFound();
  if (!(await findOwnedLink(deps.db, linkId, accountId, isoNow(now)))) throw linkNotFound();
  return (await headersOfLink(deps.db, linkId)).map(headerRecord);
}

/** Revokes a link for good: every path of its URL is 404 from now on. Revoking twice is no error. */
export async function revokeLink(deps: LinkDeps, linkId: string, accountId: string, now = Date.now()) {
  if (!LINK_ID_PATTERN.test(linkId)) throw linkNotFound();
  const row = await revokeOwnedLink(deps.db, linkId, accountId, isoNow(now));
  if (!row) throw linkNotFound();
  return withCounts(deps, row, now);
}

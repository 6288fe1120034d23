// The operator's side of the hash blocklist (/admin/blocklist, docs/abuse.md): block one hash with
// a reason, unblock it, read the list a page at a time, import a list of hashes. What an upload
// does with the list is src/moderation/blocklist.ts.
import { ApiError, validationError } from '../errors';
import { HEX_SHA256 } from '../lib/digest';
import {
  type BlocklistPosition,
  type BlocklistRow,
  deleteBlocked,
  findBlocked,
  importBlocked,
  listBlocked,
  putBlocked,
} from '../storage/blocklist-repo';
import { isoNow } from '../time';
import { type PagePosition, pageOf, positionOf } from './paging';

export type BlocklistDeps = { db: D1Database };

/** At most this many hashes in one import (POST /admin/blocklist). */
export const MAX_IMPORT_HASHES = 10_000;
/** An import's body: 10,000 lines of 64 digits and CRLF take 660,000 bytes, the rest is room for comments. */
export const MAX_IMPORT_BYTES = 1024 * 1024;
/** How many bad lines an import's refusal names (it says how many there are in all). */
const NAMED_BAD_LINES = 20;

/** A SHA-256 as the blocklist keeps it (lowercase hex), or 400 naming `field`. */
export function hashOf(text: string, field = 'sha256'): string {
  if (!HEX_SHA256.test(text)) throw validationError(field, 'must be a SHA-256: 64 hexadecimal digits');
  return text.toLowerCase();
}

/** Blocks a hash with the operator's reason (a blocked one gets the new reason); whether it was added. */
export async function blockHash(deps: BlocklistDeps, sha256: string, reason: string) {
  return putBlocked(deps.db, hashOf(sha256), reason, isoNow());
}

/** One entry of the blocklist, or 404 NOT_FOUND. */
export async function blockedHash(deps: BlocklistDeps, sha256: string): Promise<BlocklistRow> {
  const row = await findBlocked(deps.db, hashOf(sha256));
  if (!row) throw notBlocked();
  return row;
}

/** Unblocks a hash: the entry it had, or 404 NOT_FOUND when it was not blocked. */
export async function unblockHash(deps: BlocklistDeps, sha256: string): Promise<BlocklistRow> {
  const row = await deleteBlocked(deps.db, hashOf(sha256));
  if (!row) throw notBlocked();
  return row;
}

const notBlocked = () => new ApiError('NOT_FOUND', 'This SHA-256 is not on the blocklist');

/** One page of the blocklist, newest first; `cursor` is the `nextCursor` of the page before. */
export async function blocklistPage(
  deps: BlocklistDeps,
  limit: number,
  cursor?: string,
): Promise<{ rows: BlocklistRow[]; nextCursor: string | null }> {
  const after = cursor === undefined ? undefined : blocklistPosition(positionOf(cursor));
  const rows = await listBlocked(deps.db, limit, after);
  return pageOf(rows, limit, (last) => [last.created_at, last.sha256]);
}

const blocklistPosition = ([createdAt, sha256]: PagePosition): BlocklistPosition => ({ createdAt, sha256 });

/** What an import did: hashes in the body (repeats counted), newly blocked, blocked already. */
export type ImportOutcome = { received: number; added: number; alreadyBlocked: number };

/**
 * Imports a list: one hex SHA-256 per line (any case; blank lines and lines starting with `#`
 * skipped; surrounding spaces and CRLF line ends allowed), at most MAX_IMPORT_HASHES. Any other
 * line refuses the whole list (400 naming the lines): nothing is imported. The hashes go in as
 * one statement; a hash blocked already keeps its entry.
 */
export async function importHashes(deps: BlocklistDeps, text: string, reason: string | null): Promise<ImportOutcome> {
  const hashes = parseHashList(text);
  const distinct = [...new Set(hashes)];
  const added = await importBlocked(deps.db, distinct, reason, isoNow());
  return { received: hashes.length, added, alreadyBlocked: distinct.length - added };
}

/** The hashes of an import's body, lowercase, in order; 400 naming the bad lines (or the count past the bound). */
export function parseHashList(text: string): string[] {
  const hashes: string[] = [];
  const bad: number[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    if (HEX_SHA256.test(line)) hashes.push(line.toLowerCase());
    else bad.push(index + 1);
  }
  if (bad.length > 0) throw badLines(bad);
  if (hashes.length === 0) throw validationError('body', 'must hold at least one SHA-256, one per line');
  if (hashes.length > MAX_IMPORT_HASHES) {
    throw validationError('body', `must hold at most ${MAX_IMPORT_HASHES} SHA-256s (it holds ${hashes.length})`);
  }
  return hashes;
}

/** The refusal of a list with lines that are not hashes: each named (the first NAMED_BAD_LINES), nothing imported. */
function badLines(bad: number[]): ApiError {
  const named = bad.slice(0, NAMED_BAD_LINES);
  const more = bad.length - named.length;
  const list = `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  const details = named.map((line) => ({
    field: `line ${line}`,
    message: `line ${line} is not a SHA-256 (64 hexadecimal digits)`,
  }));
  if (more > 0) details.push({ field: 'body', message: `${more} more lines are not SHA-256s` });
  const lines = bad.length === 1 ? `Line ${list} is` : `Lines ${list} are`;
  return new ApiError('VALIDATION_ERROR', `${lines} not a SHA-256 (64 hexadecimal digits); nothing was imported`, {
    details,
  });
}

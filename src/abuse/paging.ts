// The operator's lists under /admin (reports, the hash blocklist) are paged the same way: newest
// first by (time, id), a page read as `limit + 1` rows so the last one says whether more follow,
// and a cursor that is the last row's time and id, opaque to the client (src/lib/cursor.ts).
import { validationError } from '../errors';
import { decodeCursor, encodeCursor } from '../lib/cursor';

/** Where a page ends: the last row's time and id (a report's id, a blocked hash). */
export type PagePosition = readonly [at: string, id: string];

/** The position a `?cursor=` names; 400 VALIDATION_ERROR for anything this paging did not give. */
export function positionOf(cursor: string): PagePosition {
  const value = decodeCursor(cursor);
  if (!Array.isArray(value) || value.length !== 2 || !value.every((part) => typeof part === 'string')) {
    throw validationError('cursor', 'is not a cursor this list gave');
  }
  return value as unknown as PagePosition;
}

/**
 * A page of at most `limit` of `rows` (read as `limit + 1`), and the cursor of the page after it,
 * made from its last row's position (null when no row follows).
 */
export function pageOf<Row>(
  rows: Row[],
  limit: number,
  position: (row: Row) => PagePosition,
): { rows: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const more = rows.length > limit && last !== undefined;
  return { rows: page, nextCursor: more ? encodeCursor(position(last)) : null };
}

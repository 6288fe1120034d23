// The types the LinkCounter object and its client share (so neither imports the other's code),
// and the one rule of a capped link's byte budget.
import type { AccessSummary } from '../access-log/access-log-contract';

/**
 * One response through a link: reserve the bytes it will send before it starts. A cap of N is a
 * budget of N × `size` bytes summed over every response that carries content (whole, any range,
 * previews); `counts` marks a download (the whole file or archive: a 200, or a 206 from byte 0 to
 * the end), the link's downloadCount.
 */
export type ReserveRequest = {
  linkId: string;
  /** The link's cap as D1 has it now (a PATCH may change it), null: no cap. */
  max: number | null;
  /** The length of what the link shares (the file): the budget is max × size. */
  size: number;
  /** Bytes this response will send (0 for HEAD, 304 and errors). */
  bytes: number;
  /** A whole download (a 200, or a 206 from byte 0 to the end): counted in downloadCount. */
  counts: boolean;
  /** D1's count: where a new object starts counting. */
  seed: number;
  now?: number;
};
/** `count`: the link's downloadCount after it; `exhausted`: this reservation spent the last of the budget. */
export type ReserveResult = { ok: boolean; count: number; exhausted: boolean };

/** Gives back what a reserved response did not send (its client broke off). */
export type GiveBackRequest = { linkId: string; bytes: number };

/**
 * `size`: the length of what the link shares now (a file's size; a collection's archive grows and
 * shrinks with its members, and its budget with it).
 */
export type PeekRequest = { linkId: string; seed: number; max: number | null; size: number; now?: number };
/**
 * `remaining`: bytes the budget still allows (null: no cap); `exhausted`: it cannot serve another
 * byte (an empty file's cap: its downloads are spent). `access`: what the link's access log says
 * of it (src/access-log/).
 */
export type CountView = {
  count: number;
  lastDownloadedAt: string | null;
  exhausted: boolean;
  remaining: number | null;
  access: AccessSummary;
};

/** A file's default link (its share token, no cap): counted downloads, flushed to the file's row. */
export type FileCountRequest = { fileId: string; now?: number };

export type WindowRequest = { limit: number; windowSeconds: number; now?: number };
/** `reset`: when the window ends, Unix seconds. */
export type WindowResult = { blocked: boolean; reset: number };

/** What the budget rule reads: downloads counted, bytes reserved and not given back. */
export type Spent = { count: number; served: number };

/**
 * Whether a link with cap `max` over something of `size` bytes may send `bytes` more. An empty
 * file (size 0) carries no bytes to budget: its cap counts downloads instead.
 */
export function admits(spent: Spent, max: number | null, size: number, bytes: number): boolean {
  if (max === null) return true;
  if (size === 0) return spent.count < max;
  const budget = max * size;
  return spent.served < budget && spent.served + bytes <= budget;
}

/**
 * Bytes the budget of a link with cap `max` over something of `size` bytes still allows: never
 * below 0 (a collection's archive that shrank may leave a budget already passed); null: no cap.
 */
export function remainingBytes(spent: Spent, max: number | null, size: number): number | null {
  if (max === null) return null;
  return Math.max(0, max * size - spent.served);
}

/**
 * True once nothing more may be served (every request to the link is then 404): the budget has
 * not one byte left, or, for an empty file, its downloads are spent.
 */
export function isSpent(spent: Spent, max: number | null, size: number): boolean {
  if (max === null) return false;
  if (size === 0) return spent.count >= max;
  return (remainingBytes(spent, max, size) ?? 0) < 1;
}

// Types shared by the request's Durable Object and its client (no runtime imports).

/** The request's limits as they are now (the owner may change them; every call states them). */
export type RequestLimits = { maxFiles: number; maxBytes: number | null };

export type SlotRequest = {
  /** The hold to update or open (a tus upload's id); a new random one when absent. */
  holdId?: string;
  files: number;
  bytes: number;
  /**
   * Headroom granted beyond `bytes` when there is room now (fewer calls for a long upload). Only
   * `bytes` is held against other uploads: the holder states its exact bytes again before commit.
   */
  aheadBytes: number;
  limits: RequestLimits;
  /** When the hold lapses if nobody commits or releases it (ms since the epoch). */
  until: number;
  now?: number;
};

/** `bytes`: what the holder may read before asking again (its hold plus headroom, see aheadBytes). */
export type SlotGrant = { id: string; files: number; bytes: number };
export type SlotResult = { grant: SlotGrant | null; full: 'files' | 'bytes' | null };

export type RequestCounts = { files: number; bytes: number };
/** A commit's answer: the counts after it, and how many of its files were new (a repeated commit adds none). */
export type CommitResult = RequestCounts & { added: number };

/** A window counter's answer; `reset` in Unix seconds. */
export type WindowResult = { allowed: boolean; count: number; reset: number };

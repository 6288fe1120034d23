// The account's storage object's contract: what its callers (the key's object, tus upload
// objects, the sweep) send it. Types only, so anything may import it without the class. Every
// call names the account: the object rebuilds it from the account's rows in D1 at first use.

/** An account's storage limits, as the Worker resolved them (per-key overrides or the configured defaults). */
export type QuotaLimits = {
  quotaBytes: number;
  maxFiles: number;
  /** A hold older than this belongs to a request that can no longer be running (see docs/limits.md). */
  holdTtlMs: number;
};

/** Whose storage an upload uses: an account, with its limits as the Worker resolved them. */
export type StorageOwner = { accountId: string; limits: QuotaLimits };

/**
 * What one upload request may use without asking again: totals over all its files. The hold
 * itself counts the upload's real needs (or its declared bound), never the grant's headroom.
 */
export type Grant = { id: string; bytes: number; files: number };

export type AccountReserveRequest = {
  accountId: string;
  holdId?: string;
  /** Bytes and files the request holds right now (files read so far, not yet committed). */
  needBytes: number;
  needFiles: number;
  /** Headroom asked for beyond the need, so a streaming upload asks rarely. */
  aheadBytes: number;
  aheadFiles: number;
  limits: QuotaLimits;
  /**
   * Makes the hold a reservation (a tus upload's declared length): it lives until this time
   * (ms since the epoch) or its release, and every other upload must fit beside it.
   */
  until?: number;
  now?: number;
};

export type Exceeded = 'bytes' | 'files';
/** Either a grant, or which limit the need would pass. */
export type ReserveResult = { grant: Grant | null; exceeded: Exceeded | null };

/** A stored file as the account sees it. `expiresAt` is ISO 8601 or null. */
export type AccountFile = { id: string; size: number; expiresAt: string | null };

export type AccountCommitRequest = {
  accountId: string;
  holdId?: string;
  /**
   * More holds the commit ends, in the same step: the reservations of the tus partial uploads
   * whose bytes become one file (a final upload). Their room becomes the file's, so nothing is
   * counted twice and nothing is let go before the file counts. Ended only when the commit
   * accepts the file; refused, they stay as they were.
   */
  holdIds?: string[];
  files: AccountFile[];
  limits: QuotaLimits;
  now?: number;
};
export type CommitResult = { accepted: string[]; refused: { id: string; exceeded: Exceeded }[] };

export type Usage = { usedBytes: number; files: number; heldBytes: number; heldFiles: number };

/** An upload's declared bound (its Content-Length, and how many files it may hold). */
export type OpenRequest = { accountId: string; bytes: number; files: number; limits: QuotaLimits; now?: number };
export type AccountFreeRequest = { accountId: string; files: AccountFile[]; now?: number };
export type AccountRescheduleRequest = {
  accountId: string;
  files: (AccountFile & { previous: string | null })[];
  now?: number;
};
/** The access log's visitor secret for the period `now` falls in (periods of `periodMs` from the epoch). */
export type VisitorKeyRequest = { periodMs: number; now?: number };
export type AccountUsageRequest = { accountId: string; limits?: QuotaLimits; now?: number };
export type { Grant as AccountGrant };

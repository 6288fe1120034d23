// The key limiter's contract: what the Worker sends its per-key Durable Object and what it
// answers. No runtime imports, so the Worker, the client, env.ts and Node tools share it
// without loading the Durable Object class. The storage calls (hold, reserve, commit, …) are
// the account's (src/accounts/): the key's object passes them on to its account's object.
import type { Scope } from './scopes';

/** A key's storage limits, as the Worker resolved them (per-key overrides or the configured defaults). */
export type QuotaLimits = {
  quotaBytes: number;
  maxFiles: number;
  /** A hold older than this belongs to a request that can no longer be running (see docs/limits.md). */
  holdTtlMs: number;
};

export type AdmitRequest = {
  limit: number;
  windowSeconds: number;
  now?: number;
  /** Hold storage in the same call: an upload that announced its length. */
  hold?: HoldRequest;
  /** false: report the window without counting this request, and never refuse it (a tus PATCH, see src/tus/http.ts). */
  count?: boolean;
};

export type AdmitResult = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds (UTC) when the current window ends. */
  reset: number;
  grant?: Grant;
};

/** An upload's declared upper bound: its Content-Length, and how many files it may hold. */
export type HoldRequest = { keyId: string; accountId?: string; bytes: number; files: number; limits: QuotaLimits };

/**
 * What one upload request may use without asking again: totals over all its files. The hold
 * itself counts the upload's real needs (or its declared bound), never the grant's headroom.
 */
export type Grant = { id: string; bytes: number; files: number };

export type ReserveRequest = {
  keyId: string;
  /** The key's account (the key's own id for keys made before accounts, the default). */
  accountId?: string;
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

export type CommitRequest = {
  keyId: string;
  accountId?: string;
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

/** A key's effective limits: its overrides, or the configured defaults. */
export type KeyLimits = {
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
  storageQuotaBytes: number;
  maxFiles: number;
  holdTtlMs: number;
};

/**
 * What the object knows of its key (from D1): the hash to check, the status, its account, its
 * scopes (null: all) and expiry (ms since the epoch, or null), and the overrides (rate limit:
 * the key's; storage: its account's).
 */
export type KeyState = {
  id: string;
  hash: string;
  status: 'active' | 'revoked';
  accountId: string;
  scopes: Scope[] | null;
  expiresAt: number | null;
  overrides: { [K in Exclude<keyof KeyLimits, 'holdTtlMs'>]: number | null };
};

/** A change pushed to the key's object (the admin API, the keys routes): applies at once. */
export type KeyUpdate = Partial<Pick<KeyState, 'status' | 'expiresAt'>> & {
  overrides?: Partial<KeyState['overrides']>;
};

/** The key as the request sees it once its object has checked it. */
export type AuthorizedKey = Pick<KeyState, 'id' | 'accountId' | 'scopes' | 'expiresAt'>;

export type AuthorizeRequest = {
  keyId: string;
  keyHash: string;
  defaults: KeyLimits;
  /** The scope the route needs (null: any key will do). Missing, nothing else happens. */
  scope: Scope | null;
  hold?: { bytes: number; files: number };
  /** false: authenticate and report the window, but do not count the request (see AdmitRequest.count). */
  count?: boolean;
  /** Also read the key's account (GET /api/v2/usage): no second call for it. */
  usage?: boolean;
  now?: number;
};
/**
 * `limits` and `admission` are null when the key is unknown, revoked, expired, or not the one
 * presented. `forbidden` names the scope the key lacks (the request was counted, nothing held).
 */
export type AuthorizeResult = {
  limits: KeyLimits | null;
  admission: AdmitResult | null;
  key?: AuthorizedKey;
  forbidden?: Scope;
  usage?: Usage;
};

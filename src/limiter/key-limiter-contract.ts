// The key limiter's contract: what the Worker sends its per-key Durable Object and what it
// answers. No runtime imports, so the Worker, the client, env.ts and Node tools share it
// without loading the Durable Object class. The storage calls (hold, reserve, commit, …) are
// the account's (src/accounts/): the key's object passes them on to its account's object.
import type {
  AccountCommitRequest,
  AccountFile,
  AccountReserveRequest,
  CommitResult,
  Exceeded,
  Grant,
  QuotaLimits,
  ReserveResult,
  Usage,
} from '../accounts/account-storage-contract.ts';
import type { Scope } from './scopes.ts';

export type { AccountFile, CommitResult, Exceeded, Grant, QuotaLimits, ReserveResult, Scope, Usage };

/**
 * How old a key's status (and overrides) may be in its Durable Object before it is read from D1
 * again. The admin API tells the object at once; a change made straight in D1 (the key CLI) is
 * in effect everywhere after this long, and the CLI waits for it before it returns.
 */
export const KEY_STATE_MAX_AGE_MS = 3_000;

/** A storage call made through the key's object: it names the key (its account is found from it). */
type OfKey<T> = Omit<T, 'accountId'> & {
  keyId: string;
  /** The key's account (the key's own id for keys made before accounts, the default). */
  accountId?: string;
};
export type ReserveRequest = OfKey<AccountReserveRequest>;
export type CommitRequest = OfKey<AccountCommitRequest>;

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
  /**
   * The account's policy overrides as D1 keeps them (JSON, or null: none), read with the key so a
   * request learns its bounds without another trip; src/policy/ reads them.
   */
  policy: string | null;
  /**
   * The account's suspension (the operator's statement), or null: every request of the key is then
   * 403 ACCOUNT_SUSPENDED. Read with the key's state, so it costs a request nothing.
   */
  suspension: string | null;
};

/** A change pushed to the key's object (the admin API, the keys routes): applies at once. */
export type KeyUpdate = Partial<Pick<KeyState, 'status' | 'expiresAt' | 'policy' | 'suspension'>> & {
  overrides?: Partial<KeyState['overrides']>;
};

/** The key as the request sees it once its object has checked it. */
export type AuthorizedKey = Pick<KeyState, 'id' | 'accountId' | 'scopes' | 'expiresAt' | 'policy'>;

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
 * presented, or its account is suspended (`suspended`). `forbidden` names the scope the key lacks
 * (the request was counted, nothing held).
 */
export type AuthorizeResult = {
  limits: KeyLimits | null;
  admission: AdmitResult | null;
  /** The key is the one presented, but its account is suspended (nothing was counted or held). */
  suspended?: { statement: string };
  key?: AuthorizedKey;
  forbidden?: Scope;
  usage?: Usage;
};

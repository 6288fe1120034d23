// The only code that talks to a key's Durable Object: routes and services go through here. An
// upload's storage (QuotaTicket) starts with the hold the key's object granted at admission, then
// asks the key's account's object directly.
import { type AccountsNamespace, releaseHold } from '../accounts/account-storage-client';
import type { AccountStorage } from '../accounts/account-storage-object';
import type { ApiKeyContext, RateLimitState } from '../env';
import { ApiError } from '../errors';
import { formatBytes } from '../lib/format';
import { log } from '../log';
import { findKeyState } from '../storage/keys-repo';
import { isoNow } from '../time';
import type {
  AccountFile,
  AdmitResult,
  AuthorizeRequest,
  AuthorizeResult,
  Exceeded,
  Grant,
  KeyUpdate,
  QuotaLimits,
  Usage,
} from './key-limiter-contract';
import type { KeyLimiter } from './key-limiter-object';

export type LimiterNamespace = DurableObjectNamespace<KeyLimiter>;

const limiterOf = (namespace: LimiterNamespace, keyId: string) => namespace.getByName(keyId);

export const quotaLimits = (key: ApiKeyContext): QuotaLimits => ({
  quotaBytes: key.storageQuotaBytes,
  maxFiles: key.maxFiles,
  holdTtlMs: key.holdTtlMs,
});

/** Checks the key, counts the request and (for an upload) holds storage: one call to the key's object. */
export function authorizeKey(namespace: LimiterNamespace, request: AuthorizeRequest): Promise<AuthorizeResult> {
  return limiterOf(namespace, request.keyId).authorize(request);
}

/** Counts one request that authenticated without being counted (see AuthorizeRequest.count). */
export async function countRequest(namespace: LimiterNamespace, key: ApiKeyContext): Promise<AdmitResult> {
  return limiterOf(namespace, key.id).admit({
    limit: key.rateLimitRequests,
    windowSeconds: key.rateLimitWindowSeconds,
  });
}

/**
 * Whether the key is still active and unexpired: asked again right before a tus upload's file is
 * recorded, since the key may have been revoked while the upload's last PATCH streamed. Without
 * its object the key's row in D1 answers (as authentication does then).
 */
export async function keyStillActive(namespace: LimiterNamespace, db: D1Database, keyId: string): Promise<boolean> {
  try {
    return await limiterOf(namespace, keyId).isActive({ keyId });
  } catch (error) {
    log('error', 'rate limiter unreachable, key checked in D1', { keyId, error: String(error) });
    const row = await findKeyState(db, keyId);
    return row?.status === 'active' && (row.expires_at === null || row.expires_at > isoNow());
  }
}

/**
 * Reserves storage for a tus upload: `bytes` and one file, held against every other upload
 * until released, committed, or `until`. Throws STORAGE_EXCEEDED when the key has no room, and
 * SERVICE_UNAVAILABLE when its object cannot be reached. Returns the reservation's id.
 */
export async function reserveUpload(
  namespace: LimiterNamespace,
  key: ApiKeyContext,
  bytes: number,
  until: number,
): Promise<string> {
  let result: Awaited<ReturnType<KeyLimiter['reserve']>>;
  try {
    result = await limiterOf(namespace, key.id).reserve({
      keyId: key.id,
      accountId: key.accountId,
      needBytes: bytes,
      needFiles: 1,
      aheadBytes: 0,
      aheadFiles: 0,
      limits: quotaLimits(key),
      until,
    });
  } catch (error) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'Storage accounting is unavailable, try again', { cause: error });
  }
  if (!result.grant) throw storageExceeded(key, result.exceeded ?? 'bytes');
  return result.grant.id;
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
}

/** The 429 for a key past its rate limit, with Retry-After until its window ends. */
export function rateLimited(state: RateLimitState): ApiError {
  const retryAfter = Math.max(1, state.reset - Math.floor(Date.now() / 1000));
  return new ApiError('RATE_LIMITED', 'Too many requests', {
    headers: { ...rateLimitHeaders(state), 'Retry-After': String(retryAfter) },
  });
}

/** Tells the key's object that its key changed in D1 (revoked, overrides set). A failure is logged. */
export async function keyChanged(namespace: LimiterNamespace, keyId: string, update: KeyUpdate) {
  await limiterOf(namespace, keyId)
    .updateKey(update)
    .catch((error: unknown) => log('error', 'key change not pushed to its object', { keyId, error: String(error) }));
}

/**
 * Tells the key's account, through the key's object (the request's one door to it), that files'
 * expiry changed (their rows already carry the new one), with the expiry each had before. A
 * failure is logged.
 */
export async function rescheduleFiles(
  namespace: LimiterNamespace,
  key: Pick<ApiKeyContext, 'id' | 'accountId'>,
  files: (AccountFile & { previous: string | null })[],
) {
  await limiterOf(namespace, key.id)
    .reschedule({ keyId: key.id, accountId: key.accountId, files })
    .catch((error: unknown) =>
      log('error', 'expiry change not pushed to the account', {
        accountId: key.accountId,
        files: files.length,
        error: String(error),
      }),
    );
}

/** The key's account as its object keeps it; 503 when the object cannot be reached. */
export async function accountUsage(namespace: LimiterNamespace, key: ApiKeyContext): Promise<Usage> {
  try {
    return await limiterOf(namespace, key.id).usage({
      keyId: key.id,
      accountId: key.accountId,
      limits: quotaLimits(key),
    });
  } catch (error) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'Storage accounting is unavailable, try again', { cause: error });
  }
}

/** The 413 for a key at its limit, stating the limit. */
export function storageExceeded(key: ApiKeyContext, exceeded: Exceeded): ApiError {
  return exceeded === 'files'
    ? new ApiError('STORAGE_EXCEEDED', `File limit reached: this API key may keep at most ${key.maxFiles} files`)
    : new ApiError(
        'STORAGE_EXCEEDED',
        `Storage limit reached: this API key may store at most ${key.storageQuotaBytes} bytes (${formatBytes(key.storageQuotaBytes)})`,
      );
}

// Headroom asked for beyond what is needed: an eighth of it, between 256 KiB and 8 MiB. A large
// upload makes few calls; parallel uploads hold little more than they have read.
const MIN_AHEAD = 256 * 1024;
const MAX_AHEAD = 8 * 1024 * 1024;
const MAX_AHEAD_FILES = 10;

/**
 * The storage one upload request may use. Each file being written states how many bytes it
 * has so far; past what the key's object granted at admission, the ticket asks the account's
 * object, and refuses (STORAGE_EXCEEDED) when the account has no room. Commit makes the files
 * count, and is where the quota is finally enforced.
 */
export class QuotaTicket {
  readonly #accounts: AccountsNamespace;
  readonly #key: ApiKeyContext;
  #grant: Grant | undefined;
  readonly #needs = new Map<string, number>();
  readonly #converts: string[];

  /**
   * `converts`: reservations (tus partial uploads) the commit ends in the same step, their room
   * becoming the committed files' (a tus final upload). Never released by this ticket otherwise.
   */
  constructor(accounts: AccountsNamespace, key: ApiKeyContext, grant?: Grant, converts: string[] = []) {
    this.#accounts = accounts;
    this.#key = key;
    this.#grant = grant;
    this.#converts = converts;
  }

  /** Records that `file` now holds `bytes`; throws STORAGE_EXCEEDED when the key has no room for it. */
  async need(file: string, bytes: number): Promise<void> {
    this.#needs.set(file, bytes);
    const needBytes = this.#bytes();
    const needFiles = this.#needs.size;
    if (this.#grant && needBytes <= this.#grant.bytes && needFiles <= this.#grant.files) return;
    const result = await this.#call((account) =>
      account.reserve({
        accountId: this.#key.accountId,
        holdId: this.#grant?.id,
        needBytes,
        needFiles,
        aheadBytes: Math.min(MAX_AHEAD, Math.max(MIN_AHEAD, Math.floor(needBytes / 8))),
        aheadFiles: Math.min(MAX_AHEAD_FILES, needFiles),
        limits: quotaLimits(this.#key),
      }),
    );
    if (!result.grant) {
      this.#needs.delete(file);
      throw storageExceeded(this.#key, result.exceeded ?? 'bytes');
    }
    this.#grant = result.grant;
  }

  /** The file failed: it no longer counts (the granted room stays for the others). */
  drop(file: string): void {
    this.#needs.delete(file);
  }

  /**
   * Makes stored files count, in order, while they fit; returns the ids the account took (the
   * others are over the quota or the file limit). Ends the hold.
   */
  async commit(files: AccountFile[]): Promise<{ accepted: Set<string>; refused: Map<string, Exceeded> }> {
    const holdId = this.#grant?.id;
    this.#grant = undefined;
    this.#needs.clear();
    const result = await this.#call((account) =>
      account.commit({
        accountId: this.#key.accountId,
        holdId,
        holdIds: this.#converts.length > 0 ? this.#converts : undefined,
        files,
        limits: quotaLimits(this.#key),
      }),
    );
    return {
      accepted: new Set(result.accepted),
      refused: new Map(result.refused.map((entry) => [entry.id, entry.exceeded])),
    };
  }

  /** Nothing more will be committed: give the hold back. Never throws. */
  async release(): Promise<void> {
    const holdId = this.#grant?.id;
    this.#grant = undefined;
    this.#needs.clear();
    if (!holdId) return;
    await releaseHold(this.#accounts, this.#key.accountId, holdId);
  }

  #bytes(): number {
    let total = 0;
    for (const bytes of this.#needs.values()) total += bytes;
    return total;
  }

  // Straight to the account's storage object (not through the key's object: one hop less).
  async #call<T>(work: (account: DurableObjectStub<AccountStorage>) => Promise<T>): Promise<T> {
    try {
      return await work(this.#accounts.getByName(this.#key.accountId));
    } catch (error) {
      // Without the account's object the quota cannot be kept: refuse rather than overfill.
      throw new ApiError('SERVICE_UNAVAILABLE', 'Storage accounting is unavailable, try again', { cause: error });
    }
  }
}

// The only code that talks to a key's Durable Object: routes and services go through here. An
// upload's storage (QuotaTicket) starts with the hold the key's object granted at admission, then
// asks the key's account's object directly.
import type { StorageOwner } from '../accounts/account-storage-contract';
import type { ApiKeyContext, RateLimitState } from '../env';
import { ApiError } from '../errors';
import { log } from '../log';
import { findKeyState } from '../storage/keys-repo';
import { isoNow } from '../time';
import type {
  AccountFile,
  AdmitResult,
  AuthorizeRequest,
  AuthorizeResult,
  KeyUpdate,
  QuotaLimits,
  Usage,
} from './key-limiter-contract';
import type { KeyLimiter } from './key-limiter-object';

export type LimiterNamespace = DurableObjectNamespace<KeyLimiter>;

const limiterOf = (namespace: LimiterNamespace, keyId: string) => namespace.getByName(keyId);

/** A key's storage limits: its account's quota and file limit, and how long a hold may live. */
export const quotaLimits = (key: ApiKeyContext): QuotaLimits => ({
  quotaBytes: key.storageQuotaBytes,
  maxFiles: key.maxFiles,
  holdTtlMs: key.holdTtlMs,
});

/** Whose storage a key's uploads use: its account, with the limits the key sees. */
export const storageOwnerOf = (key: ApiKeyContext): StorageOwner => ({
  accountId: key.accountId,
  limits: quotaLimits(key),
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

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
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

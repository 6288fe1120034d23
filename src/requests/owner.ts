// Who owns what, in one place each: the account of the authenticated key, and the owner of what
// people upload through a request (its account; no key sends those uploads).
import type { Context } from 'hono';
import type { Config } from '../config';
import type { E2eAdmission } from '../e2e/age-checks';
import type { AppEnv } from '../env';
import type { UploadOwner } from '../files/upload-owner';
import { effectiveLimits, keyDefaults } from '../limiter/limits';
import { effectivePolicy, receivedFileExpiry, receivedFilePublic } from '../policy/service';
import type { RequestWithOwner } from '../storage/requests-repo';

/** The account of the authenticated key: the owner of its requests. */
export const accountIdOf = (c: Context<AppEnv>): string => c.get('apiKey').accountId;

/**
 * The owner of a request's uploads: the request's ACCOUNT, with its quota and file limit (the
 * account's overrides, else the configured defaults, as every key of the account sees them). Its
 * uploads are held and committed in the account's storage object, the same object every key of
 * the account holds and commits its own uploads in, so the two race exactly. No key: nothing
 * here authorizes anything, it only names whose storage is used.
 */
export function requestOwner(config: Config, request: RequestWithOwner): UploadOwner {
  const limits = effectiveLimits(
    {
      rateLimitRequests: null,
      rateLimitWindowSeconds: null,
      storageQuotaBytes: request.owner_storage_quota_bytes,
      maxFiles: request.owner_max_files,
    },
    keyDefaults(config),
  );
  return {
    accountId: request.account_id,
    limits: { quotaBytes: limits.storageQuotaBytes, maxFiles: limits.maxFiles, holdTtlMs: limits.holdTtlMs },
  };
}

/**
 * Whether a request's uploads may be age files (the owner's policy: E2E_ALLOWED, e2eAllowed), and
 * must be (the request's `e2e`): an e2e request takes nothing else, 422 E2E_REQUIRED.
 */
export const requestE2e = (config: Config, request: RequestWithOwner): E2eAdmission => ({
  allowed: effectivePolicy(config, request.owner_policy).e2eAllowed,
  required: request.e2e === 1,
});

/**
 * How long a file received through a request lives (seconds, or undefined: as long as it is
 * kept): the uploader cannot choose, so the owner's policy decides (receivedFileExpiry).
 */
export const receivedExpiry = (config: Config, request: RequestWithOwner): number | undefined =>
  receivedFileExpiry(effectivePolicy(config, request.owner_policy), config.DEFAULT_EXPIRY_SECONDS);

/**
 * Whether a file received through a request is public: the request's isPublic, unless the owner's
 * policy bars default links now (a request made public before the bound then receives private files).
 */
export const receivedPublic = (config: Config, request: RequestWithOwner): boolean =>
  receivedFilePublic(effectivePolicy(config, request.owner_policy), request.is_public === 1);

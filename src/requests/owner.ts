// Who owns what, in one place each: the account of the authenticated key, and the account's
// storage that a request's uploads (which carry no key) are charged to.
import type { Context } from 'hono';
import type { Config } from '../config';
import type { ApiKeyContext, AppEnv } from '../env';
import { effectiveLimits, keyDefaults } from '../limiter/limits';
import type { RequestWithOwner } from '../storage/requests-repo';

/** The account of the authenticated key: the owner of its requests. */
export const accountIdOf = (c: Context<AppEnv>): string => c.get('apiKey').accountId;

/**
 * The storage context a request's uploads are charged to: the owner's ACCOUNT, its quota and
 * file limit (the account's overrides, else the configured defaults, as every key of the account
 * sees them). The calls carry the account id, so the key-limiter door they pass through (the one
 * named by the account id) forwards them to the account's AccountStorage object: the same object
 * every key of the account holds and commits its own uploads in, so the two race exactly.
 * `scopes: []`: this context authorizes nothing, it only names whose storage is used.
 */
export function ownerQuotaContext(config: Config, request: RequestWithOwner): ApiKeyContext {
  const limits = effectiveLimits(
    {
      rateLimitRequests: null,
      rateLimitWindowSeconds: null,
      storageQuotaBytes: request.owner_storage_quota_bytes,
      maxFiles: request.owner_max_files,
    },
    keyDefaults(config),
  );
  return { id: request.account_id, accountId: request.account_id, scopes: [], expiresAt: null, ...limits };
}

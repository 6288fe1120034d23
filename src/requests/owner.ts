// Who owns what, in one place each, so the accounts work (issue 15) switches them in one line.
import type { Context } from 'hono';
import type { Config } from '../config';
import type { ApiKeyContext, AppEnv } from '../env';
import { effectiveLimits } from '../limiter/limits';
import { keyDefaults } from '../middleware/auth';
import { overridesOf } from '../storage/keys-repo';
import type { RequestWithOwner } from '../storage/requests-repo';

/**
 * The account of the authenticated key. Until accounts land an account is exactly one key
 * (account id == key id); then this becomes `c.get('apiKey').accountId`.
 */
export const accountIdOf = (c: Context<AppEnv>): string => c.get('apiKey').id;

/**
 * The storage context a request's uploads are charged to: the owner's quota and file limit,
 * addressed by the account id through the existing per-key quota machinery (KEY_LIMITER named
 * by the key id == the account id). When accounts land, this is the one place that switches
 * to the account's storage object and limits.
 */
export function ownerQuotaContext(config: Config, request: RequestWithOwner): ApiKeyContext {
  const overrides = overridesOf({
    rate_limit_requests: request.owner_rate_limit_requests,
    rate_limit_window_seconds: request.owner_rate_limit_window_seconds,
    storage_quota_bytes: request.owner_storage_quota_bytes,
    max_files: request.owner_max_files,
  });
  return { id: request.account_id, ...effectiveLimits(overrides, keyDefaults(config)) };
}

// Signing in on the authorize page with an API key: the same checks as a request with that key
// (known, active, not expired, its account not suspended; counted by its rate limit), and a
// failure counts against the address as a failed authentication does.
import type { Config } from '../config';
import { type ApiError, accountSuspended, rateLimited, unauthorized } from '../errors';
import { API_KEY_PATTERN } from '../keys/key-material';
import { sha256Hex } from '../lib/crypto';
import { recordFailure, refuseIfBlocked } from '../limiter/auth-guard-client';
import { authorizeKey, rateLimitHeaders } from '../limiter/key-limiter-client';
import { keyDefaults } from '../limiter/limits';
import { type Scope, scopesOf } from '../limiter/scopes';
import { findActiveKeyIdByHash } from '../storage/keys-repo';
import { isoNow } from '../time';
import type { GrantProps } from './authorization-server';

export type SignInDeps = { env: Env; config: Config; address: string };

export type SignedIn = { props: GrantProps; scopes: Scope[] };

/** The key's account and scopes, or the ApiError to show (401, 429, 403 ACCOUNT_SUSPENDED). */
export async function signInWithKey(deps: SignInDeps, key: string): Promise<SignedIn | ApiError> {
  const { env, config, address } = deps;
  const refuse = () => recordFailure(env.AUTH_GUARD, config, address, 'api', unauthorized());
  try {
    refuseIfBlocked(address, 'api');
  } catch (error) {
    return error as ApiError;
  }
  if (!API_KEY_PATTERN.test(key)) return refuse();
  const keyHash = await sha256Hex(key);
  const row = await findActiveKeyIdByHash(env.DB, keyHash, isoNow());
  if (!row) return refuse();
  const result = await authorizeKey(env.KEY_LIMITER, {
    keyId: row.id,
    keyHash,
    defaults: keyDefaults(config),
    scope: null,
  });
  if (result.suspended) return accountSuspended(result.suspended.statement);
  if (!result.key || !result.admission) return refuse();
  const { admission } = result;
  if (!admission.allowed) {
    const state = { limit: admission.limit, remaining: admission.remaining, reset: admission.reset };
    return rateLimited(state.reset, undefined, rateLimitHeaders(state));
  }
  return {
    props: { accountId: result.key.accountId, keyId: result.key.id, keyHash },
    scopes: scopesOf(result.key.scopes),
  };
}

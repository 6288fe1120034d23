// Authentication, the route's scope, rate limiting and (for uploads) the storage hold, in one
// trip to the key's Durable Object. The key's id comes from an isolate cache of key hashes (D1 only on a miss).
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { QuotaTicket } from '../accounts/account-storage-client';
import type { AppEnv, RateLimitState } from '../env';
import { ApiError, accountSuspended, forbidden, rateLimited, unauthorized } from '../errors';
import { bearerToken } from '../http/bearer';
import { origins } from '../http/request-deps';
import { type RouteNeeds, routeNeeds } from '../http/route-needs';
import { API_KEY_PATTERN } from '../keys/key-material';
import { sha256Hex } from '../lib/crypto';
import { measure } from '../lib/timing';
import { clientAddress, recordFailure, refuseIfBlocked } from '../limiter/auth-guard-client';
import { authorizeKey, rateLimitHeaders, storageOwnerOf } from '../limiter/key-limiter-client';
import type { AuthorizedKey, KeyLimits } from '../limiter/key-limiter-contract';
import { effectiveLimits, keyDefaults } from '../limiter/limits';
import { hasScope, parseScopes, type Scope } from '../limiter/scopes';
import { log } from '../log';
import { validateAccessToken } from '../oauth/authorization-server';
import { findActiveKeyByHash, findActiveKeyIdByHash, overridesOf } from '../storage/keys-repo';
import { isoNow } from '../time';

// Key hash → key id, for keys found active. The mapping never changes, so it needs no expiry;
// whether the key is still active is the key's object's to say, on every request.
const knownKeys = new Map<string, string>();
const MAX_KNOWN_KEYS = 10_000;

async function keyIdOf(db: D1Database, hash: string): Promise<string | undefined> {
  const cached = knownKeys.get(hash);
  if (cached) return cached;
  const row = await findActiveKeyIdByHash(db, hash, isoNow());
  if (!row) return undefined;
  if (knownKeys.size >= MAX_KNOWN_KEYS) knownKeys.clear();
  knownKeys.set(hash, row.id);
  return row.id;
}

/**
 * An upload's Content-Length bounds the bytes it can store, so the call that admits it also
 * grants that much (given back, less what was stored, when it ends).
 */
function announcedUpload(c: Context<AppEnv>, needs: RouteNeeds): { bytes: number; files: number } | undefined {
  // The declaration belongs to the matched route (method included): POST /upload, POST
  // /upload/bulk and the raw PUT /upload/{filename} alike.
  if (!needs.holdsUpload) return undefined;
  const length = Number(c.req.header('content-length') ?? Number.NaN);
  return Number.isSafeInteger(length) && length > 0
    ? { bytes: length, files: needs.holdsUpload(c.get('config')) }
    : undefined;
}

const wantsUsage = (c: Context<AppEnv>, needs: RouteNeeds) =>
  needs.readsUsage === true && (c.req.method === 'GET' || c.req.method === 'HEAD');

/** A grant's scopes that its key still holds (a key's scopes can only be narrowed, but be sure). */
const scopesWithin = (keyScopes: Scope[] | null, granted: Scope[]): Scope[] =>
  granted.filter((scope) => hasScope(keyScopes, scope));

/**
 * Bearer API-key auth, the route's scope, and the per-key rate limit. Every failure (missing,
 * malformed, unknown, revoked, expired) gets the same 401, so the answer says nothing about
 * which keys exist; presented keys that fail count against the client's address (429 past the
 * allowance, for failures only). A valid key without the route's scope (declared with
 * requires(), see route-needs.ts) gets 403 FORBIDDEN naming it, before the route runs; a key of a
 * suspended account gets 403 ACCOUNT_SUSPENDED with the operator's statement. The X-RateLimit-*
 * headers go on whatever response follows, errors included. If the key's object cannot be
 * reached, the key is checked in D1 and the request let through unlimited (fail open, logged):
 * an outage of one object must not take the API down for reads (uploads then get 503).
 * With `oauth` (on /mcp), an OAuth access token of this origin's authorization server works too,
 * as the key a person signed in with to grant it, with only the scopes granted (src/oauth/).
 */
export const authenticate = (options: { oauth?: boolean } = {}) =>
  createMiddleware<AppEnv>(async function authenticate(c, next) {
    const header = c.req.header('authorization');
    // No credentials at all costs nothing and guesses nothing: a plain 401.
    if (!header) throw unauthorized();
    const needs = routeNeeds(c);
    // A route without a declaration is a bug: refuse rather than guess what it needs.
    if (!needs) throw new Error(`no declared needs for ${c.req.method} ${c.req.path}`);
    // A public route is mounted before authentication: reaching it here is a mounting bug.
    if (needs.public) throw new Error(`public route ${c.req.method} ${c.req.path} mounted behind authentication`);
    c.set('needs', needs);
    const address = clientAddress(c.req.raw.headers);
    const config = c.get('config');
    const timings = c.get('timings');
    // Only failures are refused: a valid key always goes on, whatever its address did, so people
    // behind one NAT cannot lock each other out. A failure from a blocked address is answered
    // 429 without being recorded again (see docs/limits.md, "Failed authentication").
    const refuse = async (hash?: string): Promise<never> => {
      if (hash) knownKeys.delete(hash);
      refuseIfBlocked(address, 'api');
      throw await recordFailure(c.env.AUTH_GUARD, config, address, 'api', unauthorized());
    };

    const token = bearerToken(header);
    let hash: string | undefined;
    let keyId: string | undefined;
    // An OAuth token (where the route takes them, /mcp) acts as the key it was granted with, narrowed to its scopes.
    let granted: Scope[] | undefined;
    if (token && API_KEY_PATTERN.test(token)) {
      const keyHash = await sha256Hex(token);
      hash = keyHash;
      keyId = await measure(timings, 'auth', () => keyIdOf(c.env.DB, keyHash));
    } else if (token && options.oauth) {
      const grant = await measure(timings, 'auth', () => validateAccessToken(c.env, origins(c).api, token));
      hash = grant?.props.keyHash;
      keyId = grant?.props.keyId;
      granted = grant?.scopes;
    }
    if (!hash || !keyId) return refuse();

    let limits: KeyLimits;
    let key: AuthorizedKey;
    let state: RateLimitState;
    try {
      const result = await measure(timings, 'ratelimit', () =>
        authorizeKey(c.env.KEY_LIMITER, {
          keyId,
          keyHash: hash,
          defaults: keyDefaults(config),
          scope: needs.scope,
          hold: announcedUpload(c, needs),
          count: needs.uncounted?.(c) ? false : undefined,
          usage: wantsUsage(c, needs),
        }),
      );
      if (result.suspended) throw accountSuspended(result.suspended.statement);
      if (!result.limits || !result.admission || !result.key) return refuse(hash);
      limits = result.limits;
      key = granted ? { ...result.key, scopes: scopesWithin(result.key.scopes, granted) } : result.key;
      const { admission } = result;
      state = { limit: admission.limit, remaining: admission.remaining, reset: admission.reset };
      if (admission.grant) c.set('grant', admission.grant);
      if (result.usage) c.set('usage', result.usage);
      if (!admission.allowed) throw rateLimited(state.reset, undefined, rateLimitHeaders(state));
      const missing = result.forbidden ?? (needs.scope && !hasScope(key.scopes, needs.scope) ? needs.scope : undefined);
      if (missing) throw forbidden(missing, rateLimitHeaders(state));
    } catch (error) {
      if (error instanceof ApiError) throw error;
      log('error', 'rate limiter unreachable', { keyId, error: String(error) });
      const row = await findActiveKeyByHash(c.env.DB, hash);
      if (!row || (row.expires_at !== null && row.expires_at <= isoNow())) return refuse(hash);
      if (row.suspension_statement) throw accountSuspended(row.suspension_statement);
      limits = effectiveLimits(overridesOf(row), keyDefaults(config));
      const scopes = parseScopes(row.scopes);
      key = {
        id: row.id,
        accountId: row.account_id,
        scopes: granted ? scopesWithin(scopes, granted) : scopes,
        expiresAt: row.expires_at === null ? null : Date.parse(row.expires_at),
        policy: row.policy,
      };
      const windowMs = limits.rateLimitWindowSeconds * 1000;
      state = {
        limit: limits.rateLimitRequests,
        remaining: limits.rateLimitRequests,
        reset: Math.ceil(((Math.floor(Date.now() / windowMs) + 1) * windowMs) / 1000),
      };
      if (needs.scope && !hasScope(key.scopes, needs.scope)) throw forbidden(needs.scope, rateLimitHeaders(state));
    }
    c.set('apiKey', { ...key, ...limits });
    // A route that counts the request after all (a tus request for an unknown upload) updates it.
    c.set('rateLimit', state);
    try {
      await next();
    } finally {
      releaseUnclaimedHold(c);
    }
    for (const [name, value] of Object.entries(rateLimitHeaders(c.get('rateLimit') ?? state))) {
      c.res.headers.set(name, value);
    }
  });

/**
 * Storage held at admission that no upload took over (uploadDeps claims it): the request was
 * refused before its upload started (a malformed header, a replayed or refused Idempotency-Key,
 * a validation error). Given back now, not when the hold would time out.
 */
function releaseUnclaimedHold(c: Context<AppEnv>): void {
  const grant = c.get('grant');
  if (!grant) return;
  c.set('grant', undefined);
  const held = new QuotaTicket(c.env.ACCOUNT_STORAGE, storageOwnerOf(c.get('apiKey')), grant);
  c.executionCtx.waitUntil(held.release());
}

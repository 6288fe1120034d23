// Authentication, rate limiting and (for uploads) the storage hold, in one trip to the key's
// Durable Object. The key's id comes from an isolate cache of key hashes (D1 only on a miss).
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { type Config, holdTtlMs } from '../config';
import type { AppEnv, RateLimitState } from '../env';
import { ApiError } from '../errors';
import { bearerToken, unauthorized } from '../http/bearer';
import { measure } from '../http/timing';
import { API_KEY_PATTERN } from '../keys/key-material';
import { sha256Hex } from '../lib/crypto';
import { clientAddress, recordFailure, refuseIfBlocked } from '../limiter/auth-guard-client';
import { authorizeKey, rateLimited, rateLimitHeaders } from '../limiter/key-limiter-client';
import type { KeyLimits } from '../limiter/key-limiter-contract';
import { effectiveLimits } from '../limiter/limits';
import { log } from '../log';
import { findActiveKeyByHash, findActiveKeyIdByHash, overridesOf } from '../storage/keys-repo';

// The configured limits, built once per parsed configuration (config is cached per env).
const defaultsFor = new WeakMap<Config, KeyLimits>();
function keyDefaults(config: Config): KeyLimits {
  let defaults = defaultsFor.get(config);
  if (!defaults) {
    defaults = {
      rateLimitRequests: config.RATE_LIMIT_REQUESTS,
      rateLimitWindowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      storageQuotaBytes: config.STORAGE_QUOTA_BYTES,
      maxFiles: config.MAX_FILES_PER_KEY,
      holdTtlMs: holdTtlMs(config),
    };
    defaultsFor.set(config, defaults);
  }
  return defaults;
}

// Key hash → key id, for keys found active. The mapping never changes, so it needs no expiry;
// whether the key is still active is the key's object's to say, on every request.
const knownKeys = new Map<string, string>();
const MAX_KNOWN_KEYS = 10_000;

async function keyIdOf(db: D1Database, hash: string): Promise<string | undefined> {
  const cached = knownKeys.get(hash);
  if (cached) return cached;
  const row = await findActiveKeyIdByHash(db, hash);
  if (!row) return undefined;
  if (knownKeys.size >= MAX_KNOWN_KEYS) knownKeys.clear();
  knownKeys.set(hash, row.id);
  return row.id;
}

/** The upload routes, and how many files each may store: only these hold storage when admitted. */
const UPLOAD_ROUTES: Record<string, (config: Config) => number> = {
  '/api/v1/upload': () => 1,
  '/api/v2/upload': () => 1,
  '/api/v2/upload/bulk': (config) => config.MAX_BULK_FILES,
};

/** PUT /api/v2/upload/{filename}: the raw upload, one file. */
const RAW_UPLOAD_PATH = /^\/api\/v2\/upload\/[^/]+$/;

/**
 * An upload's Content-Length bounds the bytes it can store, so the call that admits it also
 * grants that much (given back, less what was stored, when it ends).
 */
function announcedUpload(c: Context<AppEnv>): { bytes: number; files: number } | undefined {
  const files =
    c.req.method === 'PUT' ? (RAW_UPLOAD_PATH.test(c.req.path) ? () => 1 : undefined) : UPLOAD_ROUTES[c.req.path];
  if ((c.req.method !== 'POST' && c.req.method !== 'PUT') || !files) return undefined;
  const length = Number(c.req.header('content-length') ?? Number.NaN);
  return Number.isSafeInteger(length) && length > 0 ? { bytes: length, files: files(c.get('config')) } : undefined;
}

/** The route that reads the key's account: the admitting call reads it too. */
const USAGE_PATH = '/api/v2/usage';
const wantsUsage = (c: Context<AppEnv>) =>
  c.req.path === USAGE_PATH && (c.req.method === 'GET' || c.req.method === 'HEAD');

export type AuthOptions = {
  /**
   * Requests that authenticate but do not count against the key's rate limit (and are never
   * refused by it): tus PATCH and HEAD, bounded by their upload's length (see docs/limits.md).
   */
  uncounted?: (c: Context<AppEnv>) => boolean;
};

/**
 * Bearer API-key auth plus the per-key rate limit. Every failure (missing, malformed, unknown,
 * revoked) gets the same 401, so the answer says nothing about which keys exist; presented keys
 * that fail count against the client's address (429 past the allowance, for failures only). The X-RateLimit-*
 * headers go on whatever response follows, errors included. If the key's object cannot be
 * reached, the key is checked in D1 and the request let through unlimited (fail open, logged):
 * an outage of one object must not take the API down for reads (uploads then get 503).
 */
export const authenticate = (options: AuthOptions = {}) =>
  createMiddleware<AppEnv>(async function authenticate(c, next) {
    const header = c.req.header('authorization');
    // No credentials at all costs nothing and guesses nothing: a plain 401.
    if (!header) throw unauthorized();
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
    const hash = token && API_KEY_PATTERN.test(token) ? await sha256Hex(token) : undefined;
    if (!hash) return refuse();
    const keyId = await measure(timings, 'auth', () => keyIdOf(c.env.DB, hash));
    if (!keyId) return refuse();

    let limits: KeyLimits;
    let state: RateLimitState;
    try {
      const result = await measure(timings, 'ratelimit', () =>
        authorizeKey(c.env.KEY_LIMITER, {
          keyId,
          keyHash: hash,
          defaults: keyDefaults(config),
          hold: announcedUpload(c),
          count: options.uncounted?.(c) ? false : undefined,
          usage: wantsUsage(c),
        }),
      );
      if (!result.limits || !result.admission) return refuse(hash);
      limits = result.limits;
      const { admission } = result;
      state = { limit: admission.limit, remaining: admission.remaining, reset: admission.reset };
      if (admission.grant) c.set('grant', admission.grant);
      if (result.usage) c.set('usage', result.usage);
      if (!admission.allowed) throw rateLimited(state);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      log('error', 'rate limiter unreachable', { keyId, error: String(error) });
      const row = await findActiveKeyByHash(c.env.DB, hash);
      if (!row) return refuse(hash);
      limits = effectiveLimits(overridesOf(row), keyDefaults(config));
      const windowMs = limits.rateLimitWindowSeconds * 1000;
      state = {
        limit: limits.rateLimitRequests,
        remaining: limits.rateLimitRequests,
        reset: Math.ceil(((Math.floor(Date.now() / windowMs) + 1) * windowMs) / 1000),
      };
    }
    c.set('apiKey', { id: keyId, ...limits });
    // A route that counts the request after all (a tus request for an unknown upload) updates it.
    c.set('rateLimit', state);
    await next();
    for (const [name, value] of Object.entries(rateLimitHeaders(c.get('rateLimit') ?? state))) {
      c.res.headers.set(name, value);
    }
  });

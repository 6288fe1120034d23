import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Config } from '../config';
import type { AppEnv, RateLimitState } from '../env';
import { ApiError } from '../errors';
import { measure } from '../http/timing';
import { admitRequest } from '../limiter/client';
import { log } from '../log';

function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
}

/** The upload routes, and how many files each may store: only these hold storage when admitted. */
const UPLOAD_ROUTES: Record<string, (config: Config) => number> = {
  '/api/v1/upload': () => 1,
  '/api/v2/upload': () => 1,
  '/api/v2/upload/bulk': (config) => config.MAX_BULK_FILES,
};

/**
 * An upload's Content-Length bounds the bytes it can store, so the call that admits it also
 * holds that much (given back, less what was stored, when it ends).
 */
function announcedUpload(c: Context<AppEnv>): { bytes: number; files: number } | undefined {
  const files = UPLOAD_ROUTES[c.req.path];
  if (c.req.method !== 'POST' || !files) return undefined;
  const length = Number(c.req.header('content-length') ?? Number.NaN);
  return Number.isSafeInteger(length) && length > 0 ? { bytes: length, files: files(c.get('config')) } : undefined;
}

/**
 * Asks the key's Durable Object to admit the request, and puts the X-RateLimit-* headers on
 * whatever response follows, errors included. If the object cannot be reached the request is
 * let through (fail open) and logged: an outage of the limiter must not take the API down.
 */
export const rateLimit = () =>
  createMiddleware<AppEnv>(async function rateLimit(c, next) {
    const key = c.get('apiKey');
    let state: RateLimitState;
    try {
      const result = await measure(c.get('timings'), 'ratelimit', () =>
        admitRequest(c.env.KEY_LIMITER, key, announcedUpload(c)),
      );
      state = { limit: result.limit, remaining: result.remaining, reset: result.reset };
      if (result.grant) c.set('grant', result.grant);
      if (!result.allowed) {
        const retryAfter = Math.max(1, result.reset - Math.floor(Date.now() / 1000));
        throw new ApiError('RATE_LIMITED', 'Too many requests', {
          headers: { ...rateLimitHeaders(state), 'Retry-After': String(retryAfter) },
        });
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      log('error', 'rate limiter unreachable', { keyId: key.id, error: String(error) });
      const windowMs = key.rateLimitWindowSeconds * 1000;
      state = {
        limit: key.rateLimitRequests,
        remaining: key.rateLimitRequests,
        reset: Math.ceil(((Math.floor(Date.now() / windowMs) + 1) * windowMs) / 1000),
      };
    }
    await next();
    for (const [name, value] of Object.entries(rateLimitHeaders(state))) c.res.headers.set(name, value);
  });

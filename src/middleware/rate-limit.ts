import { createMiddleware } from 'hono/factory';
import type { AppEnv, RateLimitState } from '../env';
import { ApiError } from '../errors';
import { measure } from '../http/timing';
import { admitRequest, QuotaTicket } from '../limiter/client';
import { log } from '../log';

function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
}

const UPLOAD_PATH = /\/upload(\/bulk)?$/;

/**
 * An upload's Content-Length bounds the bytes it can store, so the call that admits it also
 * reserves that much (given back, less what was stored, when it ends).
 */
function announcedUploadBytes(request: Request, path: string): number | undefined {
  if (request.method !== 'POST' || !UPLOAD_PATH.test(path)) return undefined;
  const length = Number(request.headers.get('content-length') ?? Number.NaN);
  return Number.isSafeInteger(length) && length > 0 ? length : undefined;
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
      const reserveBytes = announcedUploadBytes(c.req.raw, c.req.path);
      const result = await measure(c.get('timings'), 'ratelimit', () =>
        admitRequest(c.env.KEY_LIMITER, key, reserveBytes),
      );
      state = { limit: result.limit, remaining: result.remaining, reset: result.reset };
      if (result.reservation) c.set('quota', new QuotaTicket(c.env.KEY_LIMITER, key, result.reservation));
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

import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { measure } from '../http/timing';
import { API_KEY_PATTERN, sha256Hex } from '../keys/key-material';
import { findActiveKeyByHash } from '../storage/keys-repo';

const unauthorized = () => new ApiError('UNAUTHORIZED', undefined, { headers: { 'WWW-Authenticate': 'Bearer' } });

/** The bearer token of a request, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

/**
 * Bearer API-key auth. Every failure (missing, malformed, unknown, revoked) gets the same 401,
 * so the answer says nothing about which keys exist.
 */
export const apiKeyAuth = () =>
  createMiddleware<AppEnv>(async function apiKeyAuth(c, next) {
    const token = bearerToken(c.req.header('authorization'));
    if (!token || !API_KEY_PATTERN.test(token)) throw unauthorized();
    const keyHash = await sha256Hex(token);
    const row = await measure(c.get('timings'), 'auth', () => findActiveKeyByHash(c.env.DB, keyHash));
    if (!row) throw unauthorized();
    const config = c.get('config');
    c.set('apiKey', {
      id: row.id,
      rateLimitRequests: row.rate_limit_requests ?? config.RATE_LIMIT_REQUESTS,
      rateLimitWindowSeconds: row.rate_limit_window_seconds ?? config.RATE_LIMIT_WINDOW_SECONDS,
      storageQuotaBytes: row.storage_quota_bytes ?? config.STORAGE_QUOTA_BYTES,
    });
    await next();
  });

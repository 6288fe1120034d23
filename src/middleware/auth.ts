import { createMiddleware } from 'hono/factory';
import { holdTtlMs } from '../config';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { measure } from '../http/timing';
import { API_KEY_PATTERN, sha256Hex } from '../keys/key-material';
import { clientAddress, recordFailure, refuseIfBlocked } from '../limiter/guard';
import { findActiveKeyByHash } from '../storage/keys-repo';

export const unauthorized = (message?: string) =>
  new ApiError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

/** The bearer token of a request, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

/**
 * Bearer API-key auth. Every failure (missing, malformed, unknown, revoked) gets the same 401,
 * so the answer says nothing about which keys exist. Presented keys that fail count against the
 * client's address; past the allowance the address gets 429 before any key is checked.
 */
export const apiKeyAuth = () =>
  createMiddleware<AppEnv>(async function apiKeyAuth(c, next) {
    const header = c.req.header('authorization');
    // No credentials at all costs nothing and guesses nothing: a plain 401.
    if (!header) throw unauthorized();
    const address = clientAddress(c.req.raw.headers);
    refuseIfBlocked(address, 'api');
    const token = bearerToken(header);
    const row =
      token && API_KEY_PATTERN.test(token)
        ? await measure(c.get('timings'), 'auth', async () => findActiveKeyByHash(c.env.DB, await sha256Hex(token)))
        : null;
    const config = c.get('config');
    if (!row) throw await recordFailure(c.env.AUTH_GUARD, config, address, 'api', unauthorized());
    c.set('apiKey', {
      id: row.id,
      rateLimitRequests: row.rate_limit_requests ?? config.RATE_LIMIT_REQUESTS,
      rateLimitWindowSeconds: row.rate_limit_window_seconds ?? config.RATE_LIMIT_WINDOW_SECONDS,
      storageQuotaBytes: row.storage_quota_bytes ?? config.STORAGE_QUOTA_BYTES,
      maxFiles: row.max_files ?? config.MAX_FILES_PER_KEY,
      holdTtlMs: holdTtlMs(config),
    });
    await next();
  });

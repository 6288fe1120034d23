// The operator's view of keys (/admin): every field but the hash, the secret only at creation.
import { z } from '@hono/zod-openapi';
import { parseScopes, scopesOf } from '../limiter/scopes';
import type { KeyRow } from '../storage/keys-repo';

export const KeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    status: z.enum(['active', 'revoked']),
    rateLimitRequests: z.number().int().nullable(),
    rateLimitWindowSeconds: z.number().int().nullable(),
    storageQuotaBytes: z.number().int().nullable(),
    maxFiles: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    revokedAt: z.string().nullable(),
    accountId: z.string(),
    scopes: z.array(z.string()),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
  })
  .openapi('ApiKey');

export const keyRecord = (row: KeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  status: row.status,
  rateLimitRequests: row.rate_limit_requests,
  rateLimitWindowSeconds: row.rate_limit_window_seconds,
  storageQuotaBytes: row.storage_quota_bytes,
  maxFiles: row.max_files,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  revokedAt: row.revoked_at,
  accountId: row.account_id,
  scopes: scopesOf(parseScopes(row.scopes)),
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
});

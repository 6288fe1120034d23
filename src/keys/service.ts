// Self-service keys: an account's keys managed by one of them (keys:write). Rules only, no HTTP:
// a new key gets at most its maker's scopes and lives no longer than its maker; a key never
// widens its own scopes (only its name changes); the account's last key that can manage keys
// cannot be revoked. Revocation reaches the key's object at once.
import type { ApiKeyContext } from '../env';
import { ApiError, validationError } from '../errors';
import { keyChanged, type LimiterNamespace } from '../limiter/key-limiter-client';
import { parseScopes, type Scope, scopesOf, storeScopes } from '../limiter/scopes';
import { insertKey, type KeyRow, listAccountKeys, renameAccountKey, revokeAccountKey } from '../storage/keys-repo';
import { isoNow } from '../time';
import { newKeyMaterial } from './key-material';

export type KeysDeps = { db: D1Database; limiter: LimiterNamespace };
export type Caller = Pick<ApiKeyContext, 'id' | 'accountId' | 'scopes' | 'expiresAt'>;

export type NewKeyInput = { name: string; scopes?: Scope[]; expiresIn?: number; expiresAt?: string };

/** A key as the API shows it (never its hash; the secret only once, at creation). */
export const keyRecord = (row: KeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: scopesOf(parseScopes(row.scopes)),
  status: row.status,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
});

const keyNotFound = () => new ApiError('NOT_FOUND', 'API key not found');

export function listKeysOf(deps: KeysDeps, caller: Caller) {
  return listAccountKeys(deps.db, caller.accountId);
}

/** When the new key expires: as asked, else when its maker does; never later than its maker. */
function expiryOf(caller: Caller, input: NewKeyInput, now: number): number | null {
  const asked =
    input.expiresIn !== undefined
      ? now + input.expiresIn * 1000
      : input.expiresAt !== undefined
        ? Date.parse(input.expiresAt)
        : undefined;
  if (asked !== undefined && asked <= now) throw validationError('expiresAt', 'must be in the future');
  if (asked === undefined) return caller.expiresAt;
  // The maker's own expiry bounds every key it makes (asking for more is asking for power it lacks).
  if (caller.expiresAt !== null && asked > caller.expiresAt) {
    throw new ApiError('FORBIDDEN', 'A key cannot outlive the key that makes it', {
      details: [
        {
          field: input.expiresIn !== undefined ? 'expiresIn' : 'expiresAt',
          message: `must be no later than ${isoNow(caller.expiresAt)}`,
        },
      ],
    });
  }
  return asked;
}

/** Makes a key for the caller's account; the answer carries the secret, shown this once. */
export async function createKey(deps: KeysDeps, caller: Caller, input: NewKeyInput, now = Date.now()) {
  const held = scopesOf(caller.scopes);
  const missing = (input.scopes ?? []).filter((scope) => !held.includes(scope));
  if (missing.length > 0) {
    throw new ApiError('FORBIDDEN', `A key can only give the scopes it holds: ${missing.join(', ')}`, {
      details: missing.map((scope) => ({ scope })),
    });
  }
  const expiresAt = expiryOf(caller, input, now);
  // Default: the maker's scopes (NULL, every scope, when the maker has every scope that way).
  const scopes = input.scopes === undefined ? caller.scopes : input.scopes;
  const stored = scopes === null ? null : storeScopes(scopes);
  const material = await newKeyMaterial();
  const row = await insertKey(deps.db, { ...material, name: input.name }, {}, isoNow(now), {
    accountId: caller.accountId,
    scopes: stored,
    expiresAt: expiresAt === null ? null : isoNow(expiresAt),
  });
  return { ...keyRecord(row), key: material.key };
}

export async function renameKey(deps: KeysDeps, caller: Caller, id: string, name: string, now = Date.now()) {
  const row = await renameAccountKey(deps.db, caller.accountId, id, name, isoNow(now));
  if (!row) throw keyNotFound();
  return keyRecord(row);
}

/** Revokes one of the account's keys; its next request is refused (its object is told at once). */
export async function revokeKey(deps: KeysDeps, caller: Caller, id: string, now = Date.now()) {
  const row = await revokeAccountKey(deps.db, caller.accountId, id, isoNow(now));
  if (!row) throw keyNotFound();
  if (row === 'last-admin') throw new ApiError('LAST_KEYS_WRITE_KEY');
  await keyChanged(deps.limiter, row.id, { status: 'revoked' });
  return keyRecord(row);
}

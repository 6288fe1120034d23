// What a key may do. Shared by the Worker, the key's Durable Object and the pages (no imports).

/** Every scope, in the order people read them. */
export const SCOPES = [
  'files:read',
  'files:write',
  'files:delete',
  'links:write',
  'requests:write',
  'webhooks:write',
  'keys:write',
] as const;

export type Scope = (typeof SCOPES)[number];

const KNOWN = new Set<string>(SCOPES);
export const isScope = (value: string): value is Scope => KNOWN.has(value);

/**
 * A key's scopes as stored (a JSON array, or NULL for every scope: keys made before scopes
 * existed). Unknown names are ignored rather than trusted.
 */
export function parseScopes(stored: string | null): Scope[] | null {
  if (stored === null) return null;
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed)
      ? parsed.filter((scope): scope is Scope => typeof scope === 'string' && isScope(scope))
      : [];
  } catch {
    return [];
  }
}

/** The scopes a key holds: null means all of them. */
export const scopesOf = (scopes: readonly Scope[] | null): Scope[] => (scopes === null ? [...SCOPES] : [...scopes]);

export const hasScope = (scopes: readonly Scope[] | null, scope: Scope) => scopes === null || scopes.includes(scope);

/** A scope list as stored: a JSON array in the canonical order. */
export const storeScopes = (scopes: readonly Scope[]): string =>
  JSON.stringify(SCOPES.filter((s) => scopes.includes(s)));

// The grant: what a browser holds after typing a share link's password in its form. A cookie
// scoped to that link's path only, HttpOnly, SameSite=Strict, Secure on https, valid for
// GRANT_SECONDS. Its value is `<expiry>.<HMAC-SHA-256(subject id, expiry)>` keyed by the stored
// password hash, so no grant store is needed, and changing or removing the password ends every
// grant given before.
import { fromBase64Url, toBase64Url } from '../lib/encoding';
import { sameBytes } from './password';

export const GRANT_COOKIE = 'es_link_grant';
export const GRANT_SECONDS = 30 * 60;

async function sign(passwordHash: string, subjectId: string, expires: number): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    // A stored hash is always base64url (an unreadable one keys nothing any grant can match).
    fromBase64Url(passwordHash) ?? new TextEncoder().encode(passwordHash),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${subjectId}.${expires}`));
  return toBase64Url(new Uint8Array(mac));
}

export async function grantValue(passwordHash: string, subjectId: string, now = Date.now()): Promise<string> {
  const expires = Math.floor(now / 1000) + GRANT_SECONDS;
  return `${expires}.${await sign(passwordHash, subjectId, expires)}`;
}

export async function grantHolds(
  value: string | undefined,
  passwordHash: string,
  subjectId: string,
  now = Date.now(),
): Promise<boolean> {
  const match = value ? /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!match?.[1] || !match[2]) return false;
  const expires = Number(match[1]);
  if (expires * 1000 <= now) return false;
  const expected = new TextEncoder().encode(await sign(passwordHash, subjectId, expires));
  return sameBytes(expected, new TextEncoder().encode(match[2]));
}

/** The Set-Cookie value: the link's own path, nowhere else. */
export function grantCookie(value: string, path: string, secure: boolean): string {
  return `${GRANT_COOKIE}=${value}; Path=${path}; Max-Age=${GRANT_SECONDS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function readGrant(cookieHeader: string | null | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === GRANT_COOKIE) return rest.join('=');
  }
  return undefined;
}

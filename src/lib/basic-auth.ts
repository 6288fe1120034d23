// HTTP Basic credentials (RFC 7617): the one parser for every password a visitor sends.
import { fromBase64, latin1Text } from './encoding';

const BASIC = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The user id and password of `Authorization: Basic …`, or undefined when the header is absent or
 * not Basic credentials. RFC 7617 leaves the encoding to the client unless the server asked for
 * UTF-8: browsers and curl send UTF-8, Python's `requests` sends Latin-1. Bytes that are valid
 * UTF-8 are read so; anything else is read as Latin-1 (every byte is a character there), so a
 * password with "é" works from either kind of client.
 */
export function parseBasicAuth(header: string | null | undefined): { user: string; password: string } | undefined {
  const match = BASIC.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const bytes = fromBase64(match[1]);
  if (!bytes) return undefined;
  let decoded: string;
  try {
    decoded = utf8.decode(bytes);
  } catch {
    decoded = latin1Text(bytes);
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The password of Basic credentials, whatever the user id (an empty one is the documented form). */
export const basicPassword = (header: string | null | undefined) => parseBasicAuth(header)?.password;

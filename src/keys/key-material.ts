// Shared by the Worker and the Node key CLI (scripts/keys.ts): Web Crypto only. The import keeps
// its .ts extension so Node can load this file as it is.
import { randomBase64Url, sha256Hex } from '../lib/crypto.ts';

export { KEY_STATE_MAX_AGE_MS } from '../limiter/key-limiter-contract.ts';

export const API_KEY_PREFIX = 'esk_';
const API_KEY_RANDOM_BYTES = 32;
/** esk_ + base64url of 32 bytes (43 characters). Older or longer keys still match. */
export const API_KEY_PATTERN = /^esk_[A-Za-z0-9_-]{43,128}$/;

export type NewKeyMaterial = {
  id: string;
  key: string;
  keyHash: string;
  prefix: string;
};

/** A fresh API key with its id, hash and display prefix. The key itself is shown once, then dropped. */
export async function newKeyMaterial(): Promise<NewKeyMaterial> {
  const key = API_KEY_PREFIX + randomBase64Url(API_KEY_RANDOM_BYTES);
  return {
    id: `key_${randomBase64Url(12)}`,
    key,
    keyHash: await sha256Hex(key),
    prefix: key.slice(0, API_KEY_PREFIX.length + 6),
  };
}

// Standard Webhooks signing (standardwebhooks.com): whsec_ secrets, v1 HMAC-SHA256 signatures.
import { fromBase64, toBase64 } from '../lib/encoding';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new secret: whsec_ + base64 of 32 random bytes. Shown once, kept only to sign. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

function secretKeyBytes(secret: string): Uint8Array {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = fromBase64(encoded);
  if (!bytes) throw new Error('a webhook secret is whsec_ and base64');
  return bytes;
}

/** The headers of one signed delivery: webhook-id, webhook-timestamp (Unix seconds), webhook-signature. */
export async function signatureHeaders(
  secret: string,
  id: string,
  body: string,
  now = Date.now(),
): Promise<Record<string, string>> {
  const timestamp = String(Math.floor(now / 1000));
  const key = await crypto.subtle.importKey('raw', secretKeyBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${toBase64(new Uint8Array(mac))}`,
  };
}

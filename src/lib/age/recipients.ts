// Recipient stanzas (C2SP age, "Native recipient types") and whole headers for a file key that
// already exists: what `age-encryption` does not offer, since its Encrypter always draws a new
// key. A file's payload is encrypted once, and every way in (the owner's upload, each share link)
// gets its own header wrapping the same file key. Opening goes through age-encryption's own
// Decrypter, which unwraps the stanza and checks the header's MAC.
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64nopad, bech32 } from '@scure/base';
import { Decrypter } from 'age-encryption';
import { concat } from '../bytes.ts';
import { AgeError } from './errors.ts';
import { checkHeader, encodeHeader, encodeHeaderWithoutMac, type Stanza } from './format.ts';

export const FILE_KEY_SIZE = 16;

/**
 * scrypt's work factor (log₂ N, with r = 8, p = 1) for passphrase stanzas we make: 18, age's and
 * age-encryption's default: 256 MiB and about a second on a laptop, a few on a phone.
 */
export const SCRYPT_LOG_N = 18;
/** The lowest we make (fast, for tests and throwaway files); a low factor needs a stronger passphrase. */
export const SCRYPT_MIN_LOG_N = 10;
/** The highest we make: 18, the most a phone's browser is sure to afford (memory grows 2× per step). */
export const SCRYPT_MAX_LOG_N = 18;
/**
 * The highest we open: 20 (1 GiB), age-encryption's own cap, so a header made by `rage` on a fast
 * machine still opens on a desktop. Go's age opens up to 22; none of our headers goes past 18.
 */
export const SCRYPT_OPEN_MAX_LOG_N = 20;

const X25519_LABEL = new TextEncoder().encode('age-encryption.org/v1/X25519');
const SCRYPT_LABEL = new TextEncoder().encode('age-encryption.org/v1/scrypt');
const HEADER_LABEL = new TextEncoder().encode('header');
const ZERO_NONCE = new Uint8Array(12);

/** Whom a header opens for: X25519 recipients (`age1…`), or a passphrase (one scrypt stanza, alone). */
export type To = { recipients: readonly string[] } | { passphrase: string; logN?: number };
/** What opens a header: one or more identities (`AGE-SECRET-KEY-1…`, or age's post-quantum ones), or a passphrase. */
export type Unlock = { identity: string | readonly string[] } | { passphrase: string };

/** A new file key: 16 bytes from the CSPRNG, never used for another file. */
export const newFileKey = (): Uint8Array => crypto.getRandomValues(new Uint8Array(FILE_KEY_SIZE));

/** The 32-byte X25519 public key of an `age1…` recipient; throws TypeError for anything else. */
export function parseRecipient(recipient: string): Uint8Array {
  try {
    const { prefix, bytes } = bech32.decodeToBytes(recipient);
    if (recipient.startsWith('age1') && prefix === 'age' && bytes.length === 32) return bytes;
  } catch {}
  throw new TypeError('not an age X25519 recipient (age1…)');
}

const wrap = (key: Uint8Array, fileKey: Uint8Array) => chacha20poly1305(key, ZERO_NONCE).encrypt(fileKey);

function checkFileKey(fileKey: Uint8Array): void {
  if (fileKey.length !== FILE_KEY_SIZE) throw new RangeError('an age file key is 16 bytes');
}

/** `-> X25519 <ephemeral share>`: the file key wrapped for `recipient` under a fresh ephemeral key. */
export function x25519Stanza(fileKey: Uint8Array, recipient: string): Stanza {
  checkFileKey(fileKey);
  const theirs = parseRecipient(recipient);
  const ephemeral = crypto.getRandomValues(new Uint8Array(32));
  const share = x25519.getPublicKey(ephemeral);
  // noble refuses an all-zero shared secret (a low-order recipient), as the spec requires.
  const secret = x25519.getSharedSecret(ephemeral, theirs);
  const key = hkdf(sha256, secret, concat([share, theirs]), X25519_LABEL, 32);
  return { args: ['X25519', base64nopad.encode(share)], body: wrap(key, fileKey) };
}

/** scrypt with age's parameters (r = 8, p = 1, 32 bytes) over a passphrase and `salt` (the label ‖ the stanza's salt). */
export type Scrypt = (passphrase: string, salt: Uint8Array, logN: number) => Promise<Uint8Array>;

/** @noble/hashes' scrypt, which yields while it runs: the pages' and the Worker's. */
export const NOBLE_SCRYPT: Scrypt = (passphrase, salt, logN) =>
  scryptAsync(passphrase, salt, { N: 2 ** logN, r: 8, p: 1, dkLen: 32 });

let scrypt: Scrypt = NOBLE_SCRYPT;

/**
 * The scrypt passphrase stanzas use from now on, made and opened: a runtime's faster one (the
 * CLI gives node:crypto's, scripts/age-native.ts); without an argument, noble's again.
 */
export function useScrypt(next: Scrypt = NOBLE_SCRYPT): void {
  scrypt = next;
}

/** `-> scrypt <salt> <logN>`: the file key wrapped under a passphrase (scrypt runs without blocking). */
export async function scryptStanza(fileKey: Uint8Array, passphrase: string, logN = SCRYPT_LOG_N): Promise<Stanza> {
  checkFileKey(fileKey);
  if (!Number.isInteger(logN) || logN < SCRYPT_MIN_LOG_N || logN > SCRYPT_MAX_LOG_N) {
    throw new RangeError(`an scrypt work factor from ${SCRYPT_MIN_LOG_N} to ${SCRYPT_MAX_LOG_N}, not ${logN}`);
  }
  if (passphrase.length === 0) throw new RangeError('an empty passphrase');
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await scrypt(passphrase, concat([SCRYPT_LABEL, salt]), logN);
  return { args: ['scrypt', base64nopad.encode(salt), String(logN)], body: wrap(key, fileKey) };
}

/**
 * What opens a header's scrypt stanza with `passphrase`: age-encryption's ScryptIdentity (its
 * checks, in its order), with the scrypt above instead of its blocking one, so a page stays
 * responsive while it works and the CLI uses Node's.
 */
function passphraseIdentity(passphrase: string) {
  return {
    async unwrapFileKey(stanzas: readonly Stanza[]): Promise<Uint8Array | null> {
      for (const { args, body } of stanzas) {
        if (args[0] !== 'scrypt') continue;
        if (stanzas.length !== 1) throw new Error('scrypt recipient is not the only one in the header');
        if (args.length !== 3 || !/^[1-9][0-9]*$/.test(args[2] ?? '')) throw new Error('invalid scrypt stanza');
        const salt = base64nopad.decode(args[1] ?? '');
        if (salt.length !== 16) throw new Error('invalid scrypt stanza');
        const logN = Number(args[2]);
        if (logN > SCRYPT_OPEN_MAX_LOG_N) throw new Error('scrypt work factor is too high');
        const key = await scrypt(passphrase, concat([SCRYPT_LABEL, salt]), logN);
        if (body.length !== 32) throw new Error('invalid stanza');
        try {
          return chacha20poly1305(key, ZERO_NONCE).decrypt(body);
        } catch {
          // Not this passphrase: the next stanza, or no match.
        }
      }
      return null;
    },
  };
}

/** HMAC-SHA-256 under HKDF(file key, salt empty, "header"), over the header up to and including `---`. */
export function headerMac(fileKey: Uint8Array, stanzas: readonly Stanza[]): Uint8Array {
  const key = hkdf(sha256, fileKey, new Uint8Array(0), HEADER_LABEL, 32);
  return hmac(sha256, key, encodeHeaderWithoutMac(stanzas));
}

/** A complete header (stanzas and MAC) opening `fileKey` for `to`: a new file's, or a link's to an existing one. */
export async function makeHeader(fileKey: Uint8Array, to: To): Promise<Uint8Array> {
  checkFileKey(fileKey);
  let stanzas: Stanza[];
  if ('passphrase' in to) stanzas = [await scryptStanza(fileKey, to.passphrase, to.logN)];
  else {
    if (to.recipients.length === 0) throw new RangeError('a header needs at least one recipient');
    stanzas = to.recipients.map((recipient) => x25519Stanza(fileKey, recipient));
  }
  return encodeHeader(stanzas, headerMac(fileKey, stanzas));
}

/**
 * The file key a header wraps, unwrapped with an identity or a passphrase; the header's MAC is
 * checked. `header` may go on with the payload. Throws AgeError: `header` (the grammar, with its
 * `reason`), `stanza` (a stanza for this key is malformed, or its work factor is above the cap),
 * `no_match` (a wrong identity or passphrase), `hmac` (the header was altered).
 */
export async function recoverFileKey(header: Uint8Array, unlock: Unlock): Promise<Uint8Array> {
  const check = checkHeader(header);
  if (!check.ok) throw new AgeError('header', check.detail, check.reason);
  const decrypter = new Decrypter();
  if ('passphrase' in unlock) {
    checkWorkFactor(check.stanzas);
    decrypter.addIdentity(passphraseIdentity(unlock.passphrase));
  } else {
    for (const identity of [unlock.identity].flat()) {
      if (!/^AGE-SECRET-KEY-(PQ-)?1/.test(identity)) throw new TypeError('not an age identity (AGE-SECRET-KEY-1…)');
      decrypter.addIdentity(identity);
    }
  }
  // Reached only when every real identity found no stanza of its own: "no match", told apart
  // from an altered header without reading the library's messages.
  let unmatched = false;
  decrypter.addIdentity({
    unwrapFileKey: () => {
      unmatched = true;
      return null;
    },
  });
  try {
    return await decrypter.decryptHeader(header.subarray(0, check.headerLength));
  } catch (error) {
    const what = 'passphrase' in unlock ? 'passphrase' : 'identity';
    if (unmatched) throw new AgeError('no_match', `no stanza of this header opens with this ${what}`);
    const message = error instanceof Error ? error.message : String(error);
    if (/HMAC/.test(message)) throw new AgeError('hmac', 'the header was altered: its MAC does not match');
    throw new AgeError('stanza', `a stanza of this header is malformed for this ${what}: ${message}`);
  }
}

function checkWorkFactor(stanzas: readonly Stanza[]): void {
  for (const { args } of stanzas) {
    const logN = args[0] === 'scrypt' && /^[1-9][0-9]*$/.test(args[2] ?? '') ? Number(args[2]) : 0;
    if (logN > SCRYPT_OPEN_MAX_LOG_N) {
      throw new AgeError('stanza', `scrypt work factor 2^${logN}, above the 2^${SCRYPT_OPEN_MAX_LOG_N} this opens`);
    }
  }
}

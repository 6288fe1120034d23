// Identities: made and turned into recipients by age-encryption; written and read as the identity
// files of `age-keygen` (so `age -d -i key.txt` and the CLI's `identity import|export` agree); and
// the passphrase backup the API keeps (an armored age file, scrypt, holding that identity file).
import { bech32 } from '@scure/base';
import { armor, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { AgeError } from './errors.ts';

export { identityToRecipient };

/**
 * A new X25519 identity (`AGE-SECRET-KEY-1…`): short enough for a link's fragment, and what our
 * X25519 stanzas are made for (age-encryption's generateIdentity may switch to post-quantum ones).
 */
export const generateIdentity = (): Promise<string> => generateX25519Identity();

/** Whether `text` is an X25519 identity (`AGE-SECRET-KEY-1…`, 32 bytes, checksum right). */
export function isIdentity(text: string): boolean {
  try {
    const { prefix, bytes } = bech32.decodeToBytes(text);
    return text.startsWith('AGE-SECRET-KEY-1') && prefix.toUpperCase() === 'AGE-SECRET-KEY-' && bytes.length === 32;
  } catch {
    return false;
  }
}

/** Whether `text` is an X25519 recipient (`age1…`, 32 bytes, checksum right). */
export function isRecipient(text: string): boolean {
  try {
    const { prefix, bytes } = bech32.decodeToBytes(text);
    return text.startsWith('age1') && prefix === 'age' && bytes.length === 32;
  } catch {
    return false;
  }
}

/** An identity file as `age-keygen` writes it: comments with its date and recipient, then the key. */
export async function identityFile(identity: string, created = new Date()): Promise<string> {
  if (!isIdentity(identity)) throw new TypeError('not an age X25519 identity (AGE-SECRET-KEY-1…)');
  const date = created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `# created: ${date}\n# public key: ${await identityToRecipient(identity)}\n${identity}\n`;
}

/**
 * The identities of an identity file (`age-keygen`'s, or one per line): comments and blank lines
 * skipped, CRLF allowed. Throws TypeError naming the first line that is not an identity.
 */
export function identitiesFromFile(text: string): string[] {
  const identities: string[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!isIdentity(line)) throw new TypeError(`line ${i + 1} of the identity file is not an age X25519 identity`);
    identities.push(line);
  }
  if (identities.length === 0) throw new TypeError('the identity file holds no identity');
  return identities;
}

/** Armored age text (`-----BEGIN AGE ENCRYPTED FILE-----`) as the binary file; AgeError `header` if it is not. */
export function dearmor(text: string): Uint8Array {
  try {
    return armor.decode(text);
  } catch (error) {
    throw new AgeError('header', `not an armored age file: ${error instanceof Error ? error.message : error}`);
  }
}

export const enarmor = (file: Uint8Array): string => armor.encode(file);

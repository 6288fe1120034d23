// Real age files for the end-to-end encryption tests (made with the age module, src/lib/age/):
// an owner's identity, a file encrypted to it (header and payload apart), a link's header for the
// same file key, and the checks a client makes on a download (decrypt with a key, compare bytes).
import {
  addRecipientHeader,
  decrypt,
  encryptFile,
  generateIdentity,
  identityToRecipient,
  readAll,
  sealMeta,
  streamOf,
} from '../../src/lib/age/index.ts';
import { concat } from '../../src/lib/bytes.ts';
import { toHex } from '../../src/lib/encoding.ts';
import { seededBytes } from './age.ts';

/** An age identity (`AGE-SECRET-KEY-1…`) and its recipient (`age1…`). */
export type Identity = { identity: string; recipient: string };

export async function newIdentity(): Promise<Identity> {
  const identity = await generateIdentity();
  return { identity, recipient: await identityToRecipient(identity) };
}

/** An age file: its plaintext, header (text), payload, the whole file's bytes, the file key, and a `meta`. */
export type AgeFile = {
  plaintext: Uint8Array;
  header: string;
  payload: Uint8Array;
  bytes: Uint8Array;
  fileKey: Uint8Array;
  meta: string;
  name: string;
};

const sha256 = async (bytes: Uint8Array) =>
  toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)));

/**
 * `size` distinctive plaintext bytes (from `seed`, or `plaintext` as given), encrypted to `to`, with
 * `meta` sealed under the file key holding `name` (the file's real name, which goes nowhere else).
 */
export async function ageFile(
  to: Identity,
  size: number,
  seed: number,
  name = `secret-${seed}.bin`,
  plaintext = seededBytes(seed, size),
): Promise<AgeFile> {
  const made = await encryptFile(streamOf(plaintext), { recipients: [to.recipient] });
  const payload = await readAll(made.payload);
  const header = new TextDecoder().decode(made.header);
  const meta = sealMeta(made.fileKey, {
    name,
    type: 'application/octet-stream',
    size: plaintext.length,
    sha256: await sha256(plaintext),
  });
  return {
    plaintext,
    header,
    payload,
    bytes: concat([made.header, payload]),
    fileKey: made.fileKey,
    meta,
    name,
  };
}

/** A link's header for the file: one X25519 stanza for a fresh identity (the link's key, `#k=`). */
export async function linkHeader(file: Pick<AgeFile, 'fileKey'>): Promise<Identity & { header: string }> {
  const key = await newIdentity();
  const header = new TextDecoder().decode(await addRecipientHeader(file.fileKey, { recipient: key.recipient }));
  return { ...key, header };
}

/** Opens an age file with an identity: its plaintext (throws on a wrong key or altered bytes). */
export async function openWith(bytes: Uint8Array, identity: string): Promise<Uint8Array> {
  const { plaintext } = await decrypt(streamOf(bytes), { identity });
  return readAll(plaintext);
}

export { sha256 as sha256Hex };

// The C2SP age test vectors (the cctv-age package, 143 of them) read by our module and by
// age-encryption, in workerd. For every vector: the same verdict as age-encryption (opens, or
// does not), the failure the vector names (header, no match, HMAC, payload), and the plaintext
// the vector's `payload` hash names, down to what was given before a payload failure. Every
// header that parses is written back byte for byte.
//
// The 32 armored vectors: edgeshare takes binary age files only, so both ours and age-encryption's
// Decrypter refuse them as given; through age-encryption's armor decoder (what our identity
// backups use) they are then judged like the others.
import { armor, Decrypter } from 'age-encryption';
import * as vectors from 'cctv-age';
import { describe, expect, it } from 'vitest';
import {
  AgeError,
  type AgeFailure,
  checkHeader,
  decrypt,
  encodeHeader,
  readAll,
  streamOf,
  type Unlock,
} from '../../../src/lib/age/index';
import { toHex } from '../../../src/lib/encoding';
import { piecewise, settle } from '../../helpers/age';
import { sha256Hex } from '../../helpers/age-files';

type Vector = { name: string; fields: Map<string, string[]>; file: Uint8Array };
type Expect = 'success' | 'header failure' | 'no match' | 'HMAC failure' | 'payload failure' | 'armor failure';

async function readVector(name: string, bytes: Uint8Array): Promise<Vector> {
  const fields = new Map<string, string[]>();
  let offset = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, offset);
    const line = new TextDecoder().decode(bytes.subarray(offset, end));
    offset = end + 1;
    if (line === '') break;
    const colon = line.indexOf(': ');
    const key = line.slice(0, colon);
    fields.set(key, [...(fields.get(key) ?? []), line.slice(colon + 2)]);
  }
  let file = bytes.subarray(offset);
  if (fields.get('compressed')?.[0] === 'zlib') {
    file = await readAll(streamOf(file).pipeThrough(new DecompressionStream('deflate')));
  }
  return { name, fields, file };
}

const all = await Promise.all(Object.entries(vectors).map(([name, bytes]) => readVector(name, bytes)));
const field = (v: Vector, key: string) => v.fields.get(key)?.[0];
const expected = (v: Vector) => field(v, 'expect') as Expect;
const armored = all.filter((v) => field(v, 'armored') === 'yes');
const binary = all.filter((v) => field(v, 'armored') !== 'yes');

/** What the vector's `expect` is for each of our failure kinds. */
const EXPECT_OF: Record<AgeFailure | 'success', Expect> = {
  success: 'success',
  header: 'header failure',
  stanza: 'header failure',
  no_match: 'no match',
  hmac: 'HMAC failure',
  payload: 'payload failure',
  meta: 'header failure',
};

function unlockOf(v: Vector): Unlock {
  // One vector (scrypt_double) names two passphrases; its header fails before either is tried.
  const [passphrase] = v.fields.get('passphrase') ?? [];
  return passphrase === undefined ? { identity: v.fields.get('identity') ?? [] } : { passphrase };
}

/** Ours: the outcome, and the plaintext given before it (fed in odd-sized pieces). */
async function ours(v: Vector, file = v.file): Promise<{ outcome: AgeFailure | 'success'; released: Uint8Array }> {
  try {
    const { plaintext } = await decrypt(piecewise(file, 7919), unlockOf(v));
    const { bytes, error } = await settle(plaintext);
    if (error === undefined) return { outcome: 'success', released: bytes };
    if (!(error instanceof AgeError)) throw error;
    return { outcome: error.kind, released: bytes };
  } catch (error) {
    if (!(error instanceof AgeError)) throw error;
    return { outcome: error.kind, released: new Uint8Array(0) };
  }
}

/** age-encryption's verdict and plaintext. */
async function theirs(v: Vector, file = v.file): Promise<{ ok: boolean; plaintext: Uint8Array }> {
  const decrypter = new Decrypter();
  for (const identity of v.fields.get('identity') ?? []) decrypter.addIdentity(identity);
  for (const passphrase of v.fields.get('passphrase') ?? []) decrypter.addPassphrase(passphrase);
  try {
    const { bytes, error } = await settle(await decrypter.decrypt(streamOf(file)));
    return { ok: error === undefined, plaintext: bytes };
  } catch {
    return { ok: false, plaintext: new Uint8Array(0) };
  }
}

async function judge(v: Vector, file: Uint8Array, expect_: Expect) {
  const [mine, library] = await Promise.all([ours(v, file), theirs(v, file)]);
  expect(mine.outcome === 'success', 'the same verdict as age-encryption').toBe(library.ok);
  expect(EXPECT_OF[mine.outcome], 'the failure the vector names').toBe(expect_);
  const payload = field(v, 'payload');
  // The hash names all the plaintext given out, also before a payload failure (as age does).
  // WebCrypto's SHA-256: the JavaScript one took 2.5 s of CPU for each 16 MiB plaintext.
  if (payload !== undefined) expect(await sha256Hex(mine.released)).toBe(payload);
  if (library.ok && payload !== undefined) expect(await sha256Hex(library.plaintext)).toBe(payload);
}

describe(`the ${binary.length} binary C2SP vectors`, () => {
  it('are all here (none left out by a filter)', () => {
    expect(all.length).toBe(143);
    expect(binary.length + armored.length).toBe(all.length);
  });

  it.each(binary.map((v) => [v.name, v] as const))(
    '%s: same verdict as age-encryption and the vector',
    async (_, v) => {
      await judge(v, v.file, expected(v));
    },
    // The largest hold 16 MiB: decrypted twice in JavaScript, on a shared machine.
    240_000,
  );

  it.each(binary.filter((v) => expected(v) !== 'header failure').map((v) => [v.name, v] as const))(
    '%s: its header is written back byte for byte',
    (_, v) => {
      const check = checkHeader(v.file);
      if (!check.ok) throw new Error(`${check.reason}: ${check.detail}`);
      expect(toHex(encodeHeader(check.stanzas, check.mac))).toBe(toHex(v.file.subarray(0, check.headerLength)));
    },
  );
});

describe(`the ${armored.length} armored C2SP vectors`, () => {
  it.each(armored.map((v) => [v.name, v] as const))('%s: refused as given, by both', async (_, v) => {
    const [mine, library] = await Promise.all([ours(v), theirs(v)]);
    expect(mine.outcome).toBe('header');
    expect(library.ok).toBe(false);
  });

  it.each(armored.map((v) => [v.name, v] as const))(
    '%s: through the armor decoder, judged as the vector says',
    async (_, v) => {
      let file: Uint8Array;
      try {
        file = armor.decode(new TextDecoder().decode(v.file));
      } catch {
        expect(expected(v)).toBe('armor failure');
        return;
      }
      expect(expected(v)).not.toBe('armor failure');
      await judge(v, file, expected(v));
    },
  );
});

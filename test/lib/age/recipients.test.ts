// Headers for a file key that already exists: X25519 and scrypt stanzas we make open with
// age-encryption (and the `age` binary, in age-cli.node.test.ts), and recoverFileKey tells a
// wrong key from an altered header from a malformed one, and keeps to its scrypt bounds.
import { bech32 } from '@scure/base';
import { Decrypter } from 'age-encryption';
import { describe, expect, it } from 'vitest';
import {
  AgeError,
  addRecipientHeader,
  checkHeader,
  encodeHeader,
  generateIdentity,
  headerMac,
  identityToRecipient,
  makeHeader,
  newFileKey,
  parseRecipient,
  recoverFileKey,
  SCRYPT_LOG_N,
  SCRYPT_MAX_LOG_N,
  SCRYPT_OPEN_MAX_LOG_N,
  scryptStanza,
  usesPassphrase,
  x25519Stanza,
} from '../../../src/lib/age/index';

const alice = await generateIdentity();
const bob = await generateIdentity();
const [aliceR, bobR] = [await identityToRecipient(alice), await identityToRecipient(bob)];
/** A header for alice, and its file key. */
const aliceKey = newFileKey();
const aliceHeader = await makeHeader(aliceKey, { recipients: [aliceR] });
const aliceText = new TextDecoder().decode(aliceHeader);
const ascii = (s: string) => new TextEncoder().encode(s);

async function theirs(header: Uint8Array, add: (d: Decrypter) => void): Promise<Uint8Array> {
  const decrypter = new Decrypter();
  add(decrypter);
  return decrypter.decryptHeader(header);
}

describe('makeHeader', () => {
  it('wraps the same file key for each recipient, opened by each identity, ours and age-encryption’s', async () => {
    const fileKey = newFileKey();
    const header = await makeHeader(fileKey, { recipients: [aliceR, bobR] });
    const check = checkHeader(header);
    expect(check.ok && check.stanzas.map((s) => s.args[0])).toEqual(['X25519', 'X25519']);
    for (const identity of [alice, bob]) {
      expect(await recoverFileKey(header, { identity })).toEqual(fileKey);
      expect(await theirs(header, (d) => d.addIdentity(identity))).toEqual(fileKey);
    }
  });

  it('makes a passphrase header of one scrypt stanza that age-encryption opens', async () => {
    const fileKey = newFileKey();
    const header = await addRecipientHeader(fileKey, { passphrase: 'correct horse', logN: 10 });
    const check = checkHeader(header);
    expect(check.ok && usesPassphrase(check.stanzas)).toBe(true);
    expect(check.ok && check.stanzas[0]?.args[2]).toBe('10');
    expect(await theirs(header, (d) => d.addPassphrase('correct horse'))).toEqual(fileKey);
    expect(await recoverFileKey(header, { passphrase: 'correct horse' })).toEqual(fileKey);
    await expect(recoverFileKey(header, { passphrase: 'wrong horse' })).rejects.toMatchObject({ kind: 'no_match' });
  });

  it('makes scrypt stanzas within 10…18 only (18 by default)', async () => {
    const fileKey = newFileKey();
    expect(SCRYPT_LOG_N).toBe(18);
    expect(SCRYPT_MAX_LOG_N).toBe(18);
    for (const logN of [9, 19, 10.5]) await expect(scryptStanza(fileKey, 'pw', logN)).rejects.toThrow(RangeError);
    await expect(scryptStanza(fileKey, '', 10)).rejects.toThrow(RangeError);
  });

  it('makes a fresh ephemeral share for every stanza', () => {
    const fileKey = newFileKey();
    const [a, b] = [x25519Stanza(fileKey, aliceR), x25519Stanza(fileKey, aliceR)];
    expect(a.args[1]).not.toBe(b.args[1]);
  });

  it('refuses what is not an X25519 recipient, and a low-order one', async () => {
    const fileKey = newFileKey();
    for (const bad of [
      alice,
      aliceR.toUpperCase(),
      `${aliceR.slice(0, -1)}${aliceR.endsWith('q') ? 'p' : 'q'}`,
      'age1',
      '',
    ]) {
      expect(() => parseRecipient(bad), bad).toThrow(TypeError);
    }
    // The all-zero point: the shared secret would be zero, which the spec forbids.
    const zero = bech32.encodeFromBytes('age', new Uint8Array(32));
    expect(parseRecipient(zero)).toEqual(new Uint8Array(32));
    expect(() => x25519Stanza(fileKey, zero)).toThrow();
    await expect(makeHeader(fileKey, { recipients: [] })).rejects.toThrow(RangeError);
    await expect(makeHeader(new Uint8Array(15), { recipients: [aliceR] })).rejects.toThrow(RangeError);
  });
});

describe('recoverFileKey', () => {
  it('says no_match for an identity the header is not for', async () => {
    await expect(recoverFileKey(aliceHeader, { identity: bob })).rejects.toMatchObject({ kind: 'no_match' });
    expect(await recoverFileKey(aliceHeader, { identity: [bob, alice] })).toEqual(aliceKey);
  });

  it('says hmac for a header whose stanza opens but which was altered', async () => {
    const check = checkHeader(aliceHeader);
    if (!check.ok) throw new Error('unreadable');
    // Another stanza added after the fact: the MAC no longer matches.
    const grown = encodeHeader([...check.stanzas, { args: ['other'], body: new Uint8Array(0) }], check.mac);
    await expect(recoverFileKey(grown, { identity: alice })).rejects.toMatchObject({ kind: 'hmac' });
    // The same stanzas with their MAC made again: opens.
    const remade = encodeHeader(check.stanzas, headerMac(aliceKey, check.stanzas));
    expect(await recoverFileKey(remade, { identity: alice })).toEqual(aliceKey);
  });

  it('says header, with the rule, for a header that breaks the grammar', async () => {
    const broken = ascii(aliceText.replace('-> X25519', '->  X25519'));
    await expect(recoverFileKey(broken, { identity: alice })).rejects.toMatchObject({
      kind: 'header',
      reason: 'stanza',
    });
  });

  it('says stanza for an X25519 stanza of the wrong shape', async () => {
    const extraArgument = ascii(aliceText.replace(/-> X25519 (\S+)/, '-> X25519 $1 extra'));
    await expect(recoverFileKey(extraArgument, { identity: alice })).rejects.toMatchObject({ kind: 'stanza' });
  });

  it(`refuses an scrypt work factor above 2^${SCRYPT_OPEN_MAX_LOG_N} before computing anything`, async () => {
    const stanzas = [{ args: ['scrypt', 'AAAAAAAAAAAAAAAAAAAAAA', '21'], body: new Uint8Array(32) }];
    const heavy = encodeHeader(stanzas, headerMac(aliceKey, stanzas));
    await expect(recoverFileKey(heavy, { passphrase: 'pw' })).rejects.toMatchObject({
      kind: 'stanza',
      message: expect.stringMatching(/2\^21/),
    });
  });

  it('refuses what is not an identity', async () => {
    await expect(recoverFileKey(aliceHeader, { identity: aliceR })).rejects.toThrow(TypeError);
    await expect(recoverFileKey(aliceHeader, { identity: 'pw' })).rejects.not.toBeInstanceOf(AgeError);
  });
});

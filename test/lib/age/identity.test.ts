// Identities as age-keygen writes them, and the passphrase backup the API keeps: an armored age
// file that age-encryption opens to the identity file.
import { armor, Decrypter } from 'age-encryption';
import { describe, expect, it } from 'vitest';
import {
  generateIdentity,
  identitiesFromFile,
  identityFile,
  identityToRecipient,
  isIdentity,
  isRecipient,
  openIdentityBackup,
  sealIdentityBackup,
} from '../../../src/lib/age/index';

describe('identities', () => {
  it('are X25519 identities whose recipients are X25519 recipients', async () => {
    const identity = await generateIdentity();
    expect(identity).toMatch(/^AGE-SECRET-KEY-1[0-9A-Z]{58}$/);
    expect(isIdentity(identity)).toBe(true);
    const recipient = await identityToRecipient(identity);
    expect(isRecipient(recipient)).toBe(true);
    expect(isIdentity(recipient)).toBe(false);
    expect(isRecipient(identity)).toBe(false);
    // A changed checksum character (never the one already there) fails the bech32 check.
    const changed = identity.endsWith('Q') ? 'P' : 'Q';
    expect(isIdentity(`${identity.slice(0, -1)}${changed}`)).toBe(false);
  });

  it('are written as age-keygen writes them, and read back from such files', async () => {
    const identity = await generateIdentity();
    const file = await identityFile(identity, new Date('2026-11-28T12:00:00.123Z'));
    expect(file).toBe(
      `# created: 2026-11-28T12:00:00Z\n# public key: ${await identityToRecipient(identity)}\n${identity}\n`,
    );
    expect(identitiesFromFile(file)).toEqual([identity]);
    const other = await generateIdentity();
    expect(identitiesFromFile(`${file.replaceAll('\n', '\r\n')}\r\n${other}\r\n`)).toEqual([identity, other]);
    expect(() => identitiesFromFile(`${file}age1nope\n`)).toThrow(/line 4/);
    expect(() => identitiesFromFile('# nothing\n')).toThrow(/no identity/);
  });
});

describe('identity backups', () => {
  it('are armored scrypt age files that age-encryption opens to the identity file, and we open to the identity', async () => {
    const identity = await generateIdentity();
    const backup = await sealIdentityBackup(identity, 'a long passphrase', 10);
    expect(backup.startsWith('-----BEGIN AGE ENCRYPTED FILE-----\n')).toBe(true);
    const decrypter = new Decrypter();
    decrypter.addPassphrase('a long passphrase');
    const text = await decrypter.decrypt(armor.decode(backup), 'text');
    expect(identitiesFromFile(text)).toEqual([identity]);
    expect(await openIdentityBackup(backup, 'a long passphrase')).toBe(identity);
  });

  it('say no_match for a wrong passphrase, and header for what is not armored age', async () => {
    const backup = await sealIdentityBackup(await generateIdentity(), 'right', 10);
    await expect(openIdentityBackup(backup, 'wrong')).rejects.toMatchObject({ kind: 'no_match' });
    await expect(openIdentityBackup('not armor', 'right')).rejects.toMatchObject({ kind: 'header' });
  });
});

// Our age files judged by Debian's `age` (the Go reference implementation) and theirs by ours:
// what we encrypt opens with `age -d -i key.txt`, what `age -r` encrypts opens with ours, and a
// second header we make for an existing file key opens the same payload with `age -d`. (`age`'s
// passphrase mode reads a terminal only: scrypt headers are judged by age-encryption instead, in
// recipients.test.ts.) Runs in plain Node because it spawns the binaries.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addRecipientHeader,
  decrypt,
  encryptFile,
  generateIdentity,
  identitiesFromFile,
  identityFile,
  identityToRecipient,
  readAll,
  streamOf,
} from '../../../src/lib/age/index.ts';
import { concat } from '../../../src/lib/bytes.ts';
import { piecewise, seededBytes } from '../../helpers/age.ts';
import { oracleTool } from '../../helpers/oracle-tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeshare-age-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hasAge = oracleTool('age', 'age interop tests') && oracleTool('age-keygen', 'age interop tests');

function run(command: string, args: string[], input?: Uint8Array): Buffer {
  const result = spawnSync(command, args, { input, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr.toString()}`);
  return result.stdout;
}

/** A fresh identity in a key file as ours writes it. */
async function keyFile(name: string): Promise<{ identity: string; recipient: string; path: string }> {
  const identity = await generateIdentity();
  const path = join(dir, `${name}.txt`);
  writeFileSync(path, await identityFile(identity));
  return { identity, recipient: await identityToRecipient(identity), path };
}

const SIZES = [0, 1, 65_535, 65_536, 65_537, 200_000];

describe.skipIf(!hasAge)('age (the Go implementation) and ours', () => {
  it.each(SIZES)('age -d opens our encryption of %i bytes to a recipient', async (size) => {
    const key = await keyFile(`ours-${size}`);
    const plaintext = seededBytes(size + 1, size);
    const { header, payload } = await encryptFile(piecewise(plaintext, 10_000), { recipients: [key.recipient] });
    const file = join(dir, `ours-${size}.age`);
    writeFileSync(file, concat([header, await readAll(payload)]));
    expect(Buffer.compare(run('age', ['-d', '-i', key.path, file]), plaintext)).toBe(0);
  });

  it.each(SIZES)('ours opens age -r’s encryption of %i bytes, with a key file from age-keygen', async (size) => {
    const keys = join(dir, `keygen-${size}.txt`);
    run('age-keygen', ['-o', keys]);
    const [identity] = identitiesFromFile(readFileSync(keys, 'utf8'));
    if (identity === undefined) throw new Error('no identity');
    const plaintext = seededBytes(size + 2, size);
    const file = run('age', ['-r', await identityToRecipient(identity)], plaintext);
    const { plaintext: out } = await decrypt(piecewise(file, 4096), { identity });
    expect(Buffer.compare(await readAll(out), plaintext)).toBe(0);
  });

  it('age -d opens the same payload through a second header made for its file key (a link’s)', async () => {
    const [owner, link] = [await keyFile('owner'), await keyFile('link')];
    const plaintext = seededBytes(9, 150_000);
    const encrypted = await encryptFile(streamOf(plaintext), { recipients: [owner.recipient] });
    const payload = await readAll(encrypted.payload);
    const linkHeader = await addRecipientHeader(encrypted.fileKey, { recipient: link.recipient });
    const viaLink = join(dir, 'via-link.age');
    writeFileSync(viaLink, concat([linkHeader, payload]));
    expect(Buffer.compare(run('age', ['-d', '-i', link.path, viaLink]), plaintext)).toBe(0);
    // And the owner's identity does not open the link's header: one header per way in.
    const refused = spawnSync('age', ['-d', '-i', owner.path, viaLink]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr.toString()).toMatch(/no identity matched/);
  });

  it('age -d refuses our payload cut at a chunk boundary', async () => {
    const key = await keyFile('cut');
    const { header, payload } = await encryptFile(streamOf(seededBytes(10, 3 * 65_536)), {
      recipients: [key.recipient],
    });
    const whole = await readAll(payload);
    const cut = join(dir, 'cut.age');
    writeFileSync(cut, concat([header, whole.subarray(0, 16 + 2 * 65_552)]));
    expect(spawnSync('age', ['-d', '-i', key.path, cut]).status).not.toBe(0);
  });
});

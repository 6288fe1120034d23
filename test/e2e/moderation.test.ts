// Abuse handling works on encrypted files as on any other (it acts on the file or the link, never
// on content): quarantine, removal, disabling a keyed link and suspending the account answer 451
// on the owner's download, the default link and a keyed link; release and unsuspend serve the same
// age file again, byte for byte.
import { describe, expect, it } from 'vitest';
import { ageFile, linkHeader, newIdentity, openWith } from '../helpers/age-files';
import { makeLink, pathOf } from '../helpers/links';
import { disableLink, expect451, quarantine, release, removeFile, suspend, unsuspend } from '../helpers/moderation';
import { call, createKey } from '../helpers/worker';

// biome-ignore lint/suspicious/noExplicitAny: records are read field by field
type Json = any;

async function encryptedWithLink() {
  const key = await createKey('moderated e2e', { rateLimitRequests: 100_000 });
  const owner = await newIdentity();
  const file = await ageFile(owner, 3000, 61);
  const response = await call('/api/v2/upload/f.age?encryption=age', {
    method: 'PUT',
    headers: key.auth,
    body: file.bytes,
  });
  const record: Json = await response.json();
  expect(response.status).toBe(201);
  const keyed = await linkHeader(file);
  const link = await makeLink(key.auth, record.data.id, { e2eHeader: keyed.header });
  const ways = {
    owner: () => call(`/api/v2/files/${record.data.id}/download`, { headers: key.auth }),
    shareUrl: () => call(`${new URL(record.data.shareUrl).pathname}/download`),
    link: () => call(`${pathOf(link)}/download`),
  };
  return { key, owner, file, keyed, link, id: record.data.id as string, ways };
}

describe('moderation of an encrypted file', () => {
  it('quarantine: 451 on every way in; release serves the same age file again', async () => {
    const { file, keyed, id, ways } = await encryptedWithLink();
    await quarantine(id, 'Held for review (case e2e-1).');
    await expect451(await ways.owner(), 'Held for review (case e2e-1).', { what: 'owner' });
    await expect451(await ways.shareUrl(), 'Held for review (case e2e-1).', { what: 'default link' });
    await expect451(await ways.link(), 'Held for review (case e2e-1).', { what: 'keyed link' });
    await release(id);
    const served = new Uint8Array(await (await ways.link()).arrayBuffer());
    expect(await openWith(served, keyed.identity)).toEqual(file.plaintext);
  });

  it('removal: 451 on every way in, the record a tombstone', async () => {
    const { id, ways } = await encryptedWithLink();
    await removeFile(id, 'Removed after a notice (case e2e-2).');
    for (const [what, way] of Object.entries(ways)) {
      await expect451(await way(), 'Removed after a notice (case e2e-2).', { what });
    }
  });

  it('disabling the keyed link: 451 there only; the owner and the default link still serve', async () => {
    const { link, ways } = await encryptedWithLink();
    await disableLink(link.id, 'Link disabled (case e2e-3).');
    await expect451(await ways.link(), 'Link disabled (case e2e-3).', { what: 'keyed link' });
    expect((await ways.owner()).status).toBe(200);
    expect((await ways.shareUrl()).status).toBe(200);
  });

  it('suspending the account: 451 on its links; unsuspend serves the link’s age file again', async () => {
    const { key, file, keyed, ways } = await encryptedWithLink();
    await suspend(key.id, 'Account suspended (case e2e-4).');
    await expect451(await ways.link(), 'Account suspended (case e2e-4).', { what: 'keyed link' });
    await expect451(await ways.shareUrl(), 'Account suspended (case e2e-4).', { what: 'default link' });
    await unsuspend(key.id);
    const served = new Uint8Array(await (await ways.link()).arrayBuffer());
    expect(await openWith(served, keyed.identity)).toEqual(file.plaintext);
  });
});

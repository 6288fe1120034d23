// A collection record's archiveUrl names the archive its owner is served: with a member
// quarantined (served to no one, the owner included, so the owner's archive leaves it out), the
// URL's `?v=` is that archive's version, so following it is 200, not 412 ARCHIVE_CHANGED.
import { describe, expect, it } from 'vitest';
import { makeCollection, readCollection } from '../collections/collection-helpers';
import { quarantine, release } from '../helpers/moderation';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';
import { readArchive } from '../helpers/zip-reader';

async function put(auth: Record<string, string>, filename: string, content: string): Promise<string> {
  const { response, body } = await upload('v2', auth, { filename, content, type: 'text/plain' });
  expect(response.status).toBe(201);
  return body.data.id;
}

const local = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

describe('a collection record’s archiveUrl with a moderated member', () => {
  it('names the archive without that member, and answers it', async () => {
    const owner = await createKey('archive url owner');
    const held = await put(owner.auth, 'held.txt', 'a file put in quarantine');
    const kept = await put(owner.auth, 'kept.txt', 'a file in good standing');
    const collection = await makeCollection(owner.auth, { name: 'Two', fileIds: [held, kept] });
    await quarantine(held, 'Held while a report is reviewed.');

    const { archiveUrl } = await readCollection(owner.auth, collection.id);
    const response = await call(local(archiveUrl), { headers: owner.auth });
    expect(response.status, await response.clone().text()).toBe(200);
    const { members } = readArchive(new Uint8Array(await response.arrayBuffer()));
    expect(members.map(({ entry }) => entry.name)).toEqual(['kept.txt']);

    // Released, the member is back, and the record names the archive with it.
    await release(held);
    const after = await readCollection(owner.auth, collection.id);
    expect(after.archiveUrl).not.toBe(archiveUrl);
    expect((await call(local(after.archiveUrl), { headers: owner.auth })).status).toBe(200);
  });
});

// A link the operator disables (a file's or a collection's): that link answers 451 with the
// statement on every route, page included (HEAD and ranges too), the visit logged as
// refused-moderated; the file, its default link, its other links and the owner's download are
// untouched.
import { beforeAll, describe, expect, it } from 'vitest';
import { accessLog } from '../access-log/access-helpers';
import { json, makeCollection } from '../collections/collection-helpers';
import { tokenOf } from '../helpers/files';
import { makeLink, pathOf } from '../helpers/links';
import { act, adminPost, bodySha256, disableLink, expect451, WITH_CONTACT } from '../helpers/moderation';
import { expectError } from '../helpers/responses';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const HTML = { Accept: 'text/html' };

let owner: Awaited<ReturnType<typeof createKey>>;
let file: { id: string; token: string; sha256: string };

beforeAll(async () => {
  owner = await createKey('link owner');
  const { response, body } = await upload('v2', owner.auth, { filename: 'shared.txt', content: 'shared twice' });
  expect(response.status).toBe(201);
  file = { id: body.data.id, token: tokenOf(body.data.shareUrl), sha256: body.data.sha256 };
});

/** Every route of a share link: the page (for a browser), downloads as a script and a browser, HEAD, a range. */
async function expectDisabled(path: string, statement: string, downloads: string[]) {
  await expect451(await call(path, { headers: HTML }, WITH_CONTACT), statement, { contact: true, html: true });
  for (const url of downloads) {
    await expect451(await call(url, {}, WITH_CONTACT), statement, { contact: true, what: url });
    await expect451(await call(url, { headers: HTML }), statement, { html: true, what: url });
    await expect451(await call(url, { method: 'HEAD' }), statement, { head: true, what: url });
    await expect451(await call(url, { headers: { Range: 'bytes=1-' } }), statement, { what: url });
  }
}

describe('a disabled link', () => {
  it('of a file answers 451 on every route; the file, its default link and its other links serve as before', async () => {
    const disabled = await makeLink(owner.auth, file.id, { password: 'a long password' });
    const other = await makeLink(owner.auth, file.id);
    const statement = 'This link was used to spread spam.';
    const answer = await disableLink(disabled.id, statement);
    expect(answer).toMatchObject({
      id: disabled.id,
      accountId: owner.id,
      fileId: file.id,
      collectionId: null,
      disabled: { statement, at: expect.any(String) },
    });
    // Before its password is asked: the 451 is the same without one.
    await expectDisabled(pathOf(disabled), statement, [`${pathOf(disabled)}/download`, `${pathOf(disabled)}/view`]);
    for (const url of [
      `${pathOf(other)}/download`,
      `/share/${file.token}/download`,
      `/api/v2/files/${file.id}/download`,
    ]) {
      const response = await call(url, { headers: owner.auth });
      expect(response.status, url).toBe(200);
      expect(await bodySha256(response)).toBe(file.sha256);
    }
    const log = await accessLog(owner.auth, `/links/${disabled.id}`);
    expect(log.events.length).toBeGreaterThan(0);
    expect(log.events.every((event) => event.outcome === 'refused-moderated' && event.status === 451)).toBe(true);
    // Once: a second disable keeps the first statement.
    expect(await act(`/links/${disabled.id}/disable`, { statement: 'again' })).toMatchObject({
      disabled: { statement },
    });
  });

  it('of a collection answers 451 on its page, ZIP and members; another link to it serves', async () => {
    const collection = await makeCollection(owner.auth, { name: 'Shared', fileIds: [file.id] });
    const links = [];
    for (let i = 0; i < 2; i++) {
      const made = await call(`/api/v2/collections/${collection.id}/links`, json({}, owner.auth));
      expect(made.status).toBe(201);
      links.push(((await made.json()) as { data: { id: string; url: string } }).data);
    }
    const [disabled, other] = links as [{ id: string; url: string }, { id: string; url: string }];
    const statement = 'Disabled: the collection was reported for malware.';
    expect(await disableLink(disabled.id, statement)).toMatchObject({ collectionId: collection.id, fileId: null });
    const path = new URL(disabled.url).pathname;
    await expectDisabled(path, statement, [`${path}/archive.zip`, `${path}/download`, `${path}/files/${file.id}`]);
    const otherPath = new URL(other.url).pathname;
    expect((await call(`${otherPath}/archive.zip`)).status).toBe(200);
    expect((await call(otherPath, { headers: HTML })).status).toBe(200);
  });

  it('is 404 LINK_NOT_FOUND for an unknown link, and needs a statement', async () => {
    await expectError(
      await adminPost('/links/lnk_AAAAAAAAAAAAAAAAAAAAAA/disable', { statement: 'x' }),
      404,
      'LINK_NOT_FOUND',
    );
    const link = await makeLink(owner.auth, file.id);
    await expectError(await adminPost(`/links/${link.id}/disable`, {}), 400, 'VALIDATION_ERROR');
    await expectError(await adminPost(`/links/${link.id}/disable`, { statement: '  ' }), 400, 'VALIDATION_ERROR');
    expect((await call(`${pathOf(link)}/download`)).status).toBe(200);
  });
});

import { describe, expect, it } from 'vitest';
import { getRecord } from '../helpers/files';
import {
  type FileRecord,
  GET_FIELDS,
  LIST_ITEM_FIELDS,
  type Pagination,
  recordFieldsFor,
  type Success,
} from '../helpers/records';
import { type ApiVersion, api, expectError, readJson, VERSIONS } from '../helpers/responses';
import { blobsOf, rowCount } from '../helpers/storage';
import { uploadOk } from '../helpers/upload';
import { call, createKey, ORIGIN } from '../helpers/worker';

const downloadUrlIn = (version: ApiVersion, id: string) => `${ORIGIN}/api/${version}/files/${id}/download`;

/** A record without the fields that depend on the version it was read through. */
// v2 adds isPublic, requestId (null for every file uploaded with a key), sha256, the standing fields
// (moderation, scan) and the end-to-end ones (encryption, meta, e2eHeader).
const versionNeutral = ({
  downloadUrl: _url,
  isPublic: _public,
  requestId: _request,
  sha256: _sha256,
  moderation: _moderation,
  scan: _scan,
  encryption: _encryption,
  meta: _meta,
  e2eHeader: _header,
  ...rest
}: FileRecord & {
  requestId?: string | null;
  sha256?: string | null;
  moderation?: unknown;
  scan?: unknown;
  encryption?: unknown;
  meta?: unknown;
  e2eHeader?: unknown;
}) => rest;

async function listFiles(version: ApiVersion, auth: Record<string, string>) {
  const response = await call(api(version, '/files'), { headers: auth });
  expect(response.status).toBe(200);
  return (await readJson<Success<{ files: FileRecord[]; pagination: Pagination }>>(version, response)).data;
}

/** The one file a key has, as the list of `version` shows it. */
async function onlyListed(version: ApiVersion, auth: Record<string, string>) {
  const { files, pagination } = await listFiles(version, auth);
  expect(files).toHaveLength(1);
  expect(pagination.total).toBe(1);
  const [item] = files as [FileRecord];
  expect(Object.keys(item).sort()).toEqual(recordFieldsFor(version, LIST_ITEM_FIELDS));
  return item;
}

/** A record read through `version`: that version's get fields and its own downloadUrl. */
async function getFrom(version: ApiVersion, auth: Record<string, string>, id: string) {
  const record = await getRecord(auth, id, version);
  const keys = Object.keys(record).filter((key) => key !== 'originalName');
  expect(keys.sort()).toEqual(recordFieldsFor(version, GET_FIELDS));
  expect(record.downloadUrl).toBe(downloadUrlIn(version, id));
  return record;
}

async function deleteFrom(version: ApiVersion, auth: Record<string, string>, id: string) {
  const response = await call(api(version, `/files/${id}`), { method: 'DELETE', headers: auth });
  expect(response.status).toBe(200);
  const body = await readJson<Success<{ message: string }>>(version, response);
  expect(Object.keys(body.data)).toEqual(['message']);
}

describe('a file uploaded through v1', () => {
  it('is fully usable through v2: get with isPublic true and a v2 downloadUrl, list, download, delete', async () => {
    const { id: keyId, auth } = await createKey();
    const uploaded = await uploadOk('v1', auth, { filename: 'from v1.txt', content: 'written by v1' });
    expect(uploaded).not.toHaveProperty('isPublic');
    expect(uploaded.downloadUrl).toBe(downloadUrlIn('v1', uploaded.id));

    const v2Record = await getFrom('v2', auth, uploaded.id);
    expect(v2Record).toMatchObject({
      id: uploaded.id,
      filename: uploaded.filename,
      size: uploaded.size,
      mimeType: 'text/plain',
      shareUrl: uploaded.shareUrl,
      isPublic: true,
      downloadCount: 0,
      uploadedAt: uploaded.uploadedAt,
      expiresAt: null,
    });
    const v1Record = await getFrom('v1', auth, uploaded.id);
    expect(versionNeutral(v2Record)).toEqual(versionNeutral(v1Record));

    const item = await onlyListed('v2', auth);
    expect(item).toEqual({ ...v2Record, originalName: 'from v1.txt' });

    const download = await call(v2Record.downloadUrl, { headers: auth });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('text/plain');
    expect(await download.text()).toBe('written by v1');
    expect((await getFrom('v1', auth, uploaded.id)).downloadCount).toBe(1);

    await deleteFrom('v2', auth, uploaded.id);
    for (const version of VERSIONS) {
      await expectError(
        await call(api(version, `/files/${uploaded.id}`), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      expect((await listFiles(version, auth)).files).toEqual([]);
    }
    expect(await blobsOf(keyId)).toEqual([]);
    expect(await rowCount(keyId)).toBe(0);
  });
});

describe('a file uploaded through v2', () => {
  it('keeps isPublic=false and is fully usable through v1: get, list, owner download, delete', async () => {
    const { id: keyId, auth } = await createKey();
    const uploaded = await uploadOk(
      'v2',
      auth,
      { filename: 'private.txt', content: 'written by v2' },
      { fields: { isPublic: 'false' } },
    );
    expect(uploaded.isPublic).toBe(false);
    expect(uploaded.downloadUrl).toBe(downloadUrlIn('v2', uploaded.id));

    // Read through v1: the v1 shape (no isPublic) and a v1 downloadUrl.
    const v1Record = await getFrom('v1', auth, uploaded.id);
    expect(v1Record).not.toHaveProperty('isPublic');
    expect(v1Record).toMatchObject({
      id: uploaded.id,
      filename: uploaded.filename,
      size: uploaded.size,
      shareUrl: uploaded.shareUrl,
      uploadedAt: uploaded.uploadedAt,
    });
    const v2Record = await getFrom('v2', auth, uploaded.id);
    expect(v2Record.isPublic).toBe(false);
    expect(versionNeutral(v1Record)).toEqual(versionNeutral(v2Record));
    expect(await onlyListed('v1', auth)).toEqual({ ...v1Record, originalName: 'private.txt' });

    // Private means no share link; the owner still downloads through v1.
    expect((await call(`${new URL(uploaded.shareUrl).pathname}/download`)).status).toBe(404);
    const download = await call(v1Record.downloadUrl, { headers: auth });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('written by v2');
    expect((await getFrom('v2', auth, uploaded.id)).downloadCount).toBe(1);

    await deleteFrom('v1', auth, uploaded.id);
    for (const version of VERSIONS) {
      await expectError(
        await call(api(version, `/files/${uploaded.id}/download`), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
    }
    expect(await blobsOf(keyId)).toEqual([]);
    expect(await rowCount(keyId)).toBe(0);
  });
});

describe('across versions', () => {
  it.each([
    ['v1', 'v2'],
    ['v2', 'v1'],
  ] as const)(
    "answers 404 FILE_NOT_FOUND for another key's file uploaded through %s and read through %s",
    async (from, to) => {
      const owner = await createKey('owner');
      const intruder = await createKey('intruder');
      const file = await uploadOk(from, owner.auth, { content: 'mine' });
      for (const path of [`/files/${file.id}`, `/files/${file.id}/download`]) {
        await expectError(await call(api(to, path), { headers: intruder.auth }), 404, 'FILE_NOT_FOUND', to);
      }
      await expectError(
        await call(api(to, `/files/${file.id}`), { method: 'DELETE', headers: intruder.auth }),
        404,
        'FILE_NOT_FOUND',
        to,
      );
      expect((await getRecord(owner.auth, file.id, to)).id).toBe(file.id);
    },
  );
});

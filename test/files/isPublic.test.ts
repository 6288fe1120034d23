import { describe, expect, it } from 'vitest';
import { bytesOf, downloadBytes, getRecord, tokenOf } from '../helpers/files';
import { type ErrorBody, type FileRecordV2, UPLOAD_RECORD_V2_KEYS, type UploadRecordV2 } from '../helpers/records';
import { expectError, json } from '../helpers/responses';
import { expectNothingStored } from '../helpers/storage';
import { textFile, upload } from '../helpers/upload';
import { call, createKey, ORIGIN } from '../helpers/worker';

async function uploadWith(isPublic: string | undefined) {
  const key = await createKey();
  const content = `visibility ${isPublic ?? 'absent'}`;
  const response = (
    await upload('v2', key.auth, textFile('note.txt', content), { fields: isPublic === undefined ? {} : { isPublic } })
  ).response;
  expect(response.status).toBe(201);
  const body = await json<{ data: UploadRecordV2 }>(response);
  return { key, record: body.data, content };
}

async function listedRecord(auth: Record<string, string>, id: string): Promise<FileRecordV2 | undefined> {
  const response = await call('/api/v2/files', { headers: auth });
  expect(response.status).toBe(200);
  return (await json<{ data: { files: FileRecordV2[] } }>(response)).data.files.find((file) => file.id === id);
}

/** Status and body of a share answer; a fixed request id so two answers can be compared byte for byte. */
async function shareAnswer(path: string, accept?: string) {
  const headers: Record<string, string> = { 'X-Request-Id': 'ispublic-probe-0001' };
  if (accept) headers.Accept = accept;
  const response = await call(path, { headers });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

const unknownToken = () => crypto.randomUUID().replaceAll('-', '');

describe('POST /api/v2/upload isPublic', () => {
  it.each([
    ['true', true],
    ['false', false],
    [undefined, true],
  ] as const)('isPublic=%s is stored as %s and shown in the upload record, get and list', async (sent, expected) => {
    const { key, record } = await uploadWith(sent);
    expect(record.isPublic).toBe(expected);
    expect((await getRecord(key.auth, record.id, 'v2')).isPublic).toBe(expected);
    expect((await listedRecord(key.auth, record.id))?.isPublic).toBe(expected);
  });

  it.each(['yes', '1', 'TRUE', '', 'False', 'null'])(
    'answers 400 VALIDATION_ERROR naming isPublic for isPublic=%j and stores nothing',
    async (value) => {
      const { id, auth } = await createKey();
      const response = (await upload('v2', auth, textFile('bad.txt'), { fields: { isPublic: value } })).response;
      const body = await expectError(response, 400, 'VALIDATION_ERROR');
      expect(body.details?.map((detail) => detail.field)).toContain('isPublic');
      await expectNothingStored(id);
    },
  );

  it('shows v2 records with exactly the v1 fields plus isPublic (and requestId on get and list), linking to v2', async () => {
    const { key, record } = await uploadWith('false');
    expect(Object.keys(record).sort()).toEqual(UPLOAD_RECORD_V2_KEYS);
    expect(record.downloadUrl).toBe(`${ORIGIN}/api/v2/files/${record.id}/download`);
    const recordKeys = [
      ...UPLOAD_RECORD_V2_KEYS,
      'originalName',
      'downloadCount',
      'updatedAt',
      'expiresAt',
      'requestId',
      'e2eHeader',
    ].sort();
    const got = await getRecord(key.auth, record.id, 'v2');
    expect(Object.keys(got).sort()).toEqual(recordKeys);
    expect(got.downloadUrl).toBe(record.downloadUrl);
    const listed = await listedRecord(key.auth, record.id);
    expect(Object.keys(listed ?? {}).sort()).toEqual(recordKeys);
    expect(listed?.downloadUrl).toBe(record.downloadUrl);
  });

  it('keeps isPublic out of v1 records of the same file', async () => {
    const { key, record } = await uploadWith('false');
    const got = await json<{ data: Record<string, unknown> }>(
      await call(`/api/v1/files/${record.id}`, { headers: key.auth }),
    );
    expect(got.data).not.toHaveProperty('isPublic');
    const list = await json<{ data: { files: Record<string, unknown>[] } }>(
      await call('/api/v1/files', { headers: key.auth }),
    );
    expect(list.data.files[0]).not.toHaveProperty('isPublic');
  });
});

describe('share links and isPublic', () => {
  it('serves a public file through its share link', async () => {
    const { record, content } = await uploadWith(undefined);
    const page = await call(new URL(record.shareUrl).pathname);
    expect(page.status).toBe(200);
    const download = await call(`${new URL(record.shareUrl).pathname}/download`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(content);
  });

  it('answers a private file\u2019s share page exactly like an unknown token', async () => {
    const { record } = await uploadWith('false');
    const privateAnswer = await shareAnswer(`/share/${tokenOf(record.shareUrl)}`);
    const unknownAnswer = await shareAnswer(`/share/${unknownToken()}`);
    expect(privateAnswer.status).toBe(404);
    expect(privateAnswer).toEqual(unknownAnswer);
  });

  it.each([undefined, 'application/json', 'text/html'])(
    'answers a private file\u2019s share download (Accept %s) exactly like an unknown token',
    async (accept) => {
      const { record } = await uploadWith('false');
      const privateAnswer = await shareAnswer(`/share/${tokenOf(record.shareUrl)}/download`, accept);
      const unknownAnswer = await shareAnswer(`/share/${unknownToken()}/download`, accept);
      expect(privateAnswer.status).toBe(404);
      expect(privateAnswer).toEqual(unknownAnswer);
      if (privateAnswer.type?.startsWith('application/json')) {
        expect((JSON.parse(privateAnswer.body) as ErrorBody).code).toBe('FILE_NOT_FOUND');
      }
    },
  );

  it('lets the owner download a private file through v2 and v1', async () => {
    const { key, record, content } = await uploadWith('false');
    for (const version of ['v2', 'v1'] as const) {
      const { status, bytes } = await downloadBytes(key.auth, record.id, version);
      expect(status).toBe(200);
      expect(bytes).toEqual(bytesOf(content));
    }
  });

  it('does not count refused share downloads of a private file', async () => {
    const { key, record } = await uploadWith('false');
    await call(`/share/${tokenOf(record.shareUrl)}/download`);
    expect((await getRecord(key.auth, record.id, 'v2')).downloadCount).toBe(0);
  });
});

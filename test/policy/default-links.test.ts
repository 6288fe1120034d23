// Link bounds reach default links: while linkRequirePassword, linkMaxDownloads or linkRequireExpiry
// applies to an account, a file's default link (its shareUrl, which can carry no password, cap or
// expiry of its own) is barred. Uploads on every path default to private, `isPublic: true` on any
// of them (or on PATCH /files/{id}, or a file request's create or change) is 422 POLICY_VIOLATION
// naming each bound with nothing stored, and files received through a request stay private.
import { describe, expect, it } from 'vitest';
import { getRecord } from '../helpers/files';
import { expectAccountSettled, expectStored, gatedBody } from '../helpers/storage';
import { base64, createUpload, metadata, patchOk, TUS } from '../helpers/tus';
import { fieldPart, filePartHeaders, form, rawMultipart, TEST_BOUNDARY, uploadOk } from '../helpers/upload';
import { call } from '../helpers/worker';
import { mcpClient, toolData, toolRefusal } from '../mcp/mcp-helpers';
import {
  type Auth,
  type Env,
  expectViolation,
  multipartPath,
  newAccount,
  send,
  setAccountPolicy,
  UPLOAD_PATHS,
  type Violation,
} from './policy-helpers';

/** Each bound that bars default links, as the configuration sets it and as a refusal names it. */
const BOUNDS: { env: Env; detail: Violation }[] = [
  { env: { LINK_REQUIRE_PASSWORD: 'true' }, detail: { field: 'isPublic', rule: 'linkRequirePassword', limit: true } },
  { env: { LINK_MAX_DOWNLOADS: '5' }, detail: { field: 'isPublic', rule: 'linkMaxDownloads', limit: 5 } },
  { env: { LINK_REQUIRE_EXPIRY: 'true' }, detail: { field: 'isPublic', rule: 'linkRequireExpiry', limit: true } },
];
const ALL_BOUNDS: Env = Object.assign({}, ...BOUNDS.map((bound) => bound.env));

type Stored = { id?: string; isPublic?: boolean };

const PATHS = UPLOAD_PATHS;

/** The ids of the files an upload answer made (a bulk answer's every file; tus: X-File-Id). */
async function madeIds(response: Response): Promise<string[]> {
  const header = response.headers.get('x-file-id');
  if (header) return [header];
  const body = (await response.json()) as { data: Stored & { results?: { data: Stored }[] } };
  return body.data.results ? body.data.results.map((result) => result.data.id ?? '') : [body.data.id ?? ''];
}

/** isPublic of each file, as v2 records it, and whether its default link answers. */
async function visibility(auth: Auth, ids: string[]) {
  return Promise.all(
    ids.map(async (id) => {
      const record = await getRecord(auth, id, 'v2');
      const shared = await call(new URL(record.shareUrl).pathname);
      await shared.body?.cancel();
      return { isPublic: record.isPublic, shareStatus: shared.status };
    }),
  );
}

describe('every upload path while a bound bars default links', () => {
  for (const path of PATHS) {
    for (const { env, detail } of BOUNDS) {
      it(`${path.name}: isPublic=true is 422 POLICY_VIOLATION naming ${detail.rule}; nothing stored or charged`, async () => {
        const { id, auth } = await newAccount('default-links');
        const response = await path.upload(auth, { isPublic: 'true' }, env);
        expectViolation({ status: response.status, body: await response.json() }, [detail], path.name);
        await expectStored(id, []);
        await expectAccountSettled(id, 0);
      });
    }

    it(`${path.name}: names every bound at once${path.form ? '' : ', beside an expiry bound'}`, async () => {
      const { id, auth } = await newAccount('default-links');
      const response = await path.upload(auth, { isPublic: 'true' }, { ...ALL_BOUNDS, FILE_REQUIRE_EXPIRY: 'true' });
      // A form's isPublic part is refused as it is read, before the missing expiry is judged.
      const expiry = path.form ? [] : [{ field: 'expiresIn', rule: 'fileRequireExpiry', limit: true }];
      expectViolation({ status: response.status, body: await response.json() }, [
        ...BOUNDS.map((bound) => bound.detail),
        ...expiry,
      ]);
      await expectStored(id, []);
    });

    it(`${path.name}: without isPublic the file is private (its default link answers 404); isPublic=false is taken`, async () => {
      const { auth } = await newAccount('default-links');
      const defaulted = await path.upload(auth, {}, { LINK_MAX_DOWNLOADS: '5' });
      expect(defaulted.status, await defaulted.clone().text()).toBe(201);
      const asked = await path.upload(auth, { isPublic: 'false' }, { LINK_MAX_DOWNLOADS: '5' });
      expect(asked.status, await asked.clone().text()).toBe(201);
      const ids = [...(await madeIds(defaulted)), ...(await madeIds(asked))];
      for (const seen of await visibility(auth, ids)) expect(seen).toEqual({ isPublic: false, shareStatus: 404 });
    });

    it(`${path.name}: without a bound, the default stays public`, async () => {
      const { auth } = await newAccount('default-links');
      const response = await path.upload(auth, {}, { LINK_MAX_EXPIRY_SECONDS: '3600', PASSWORD_MIN_LENGTH: '12' });
      expect(response.status, await response.clone().text()).toBe(201);
      for (const seen of await visibility(auth, await madeIds(response))) {
        expect(seen).toEqual({ isPublic: true, shareStatus: 200 });
      }
    });
  }

  it('a form whose isPublic comes before the file: refused before the file part is read', async () => {
    const NEVER_ENDING = 'THE REST';
    const { id, auth } = await newAccount('default-links');
    for (const path of ['/api/v1/upload', '/api/v2/upload', '/api/v2/upload/bulk']) {
      const fileField = path.endsWith('bulk') ? 'files' : 'file';
      const bytes = rawMultipart([
        fieldPart('isPublic', 'true'),
        { headers: filePartHeaders('a.txt', 'text/plain', fileField), content: `a file ${NEVER_ENDING} never ends` },
      ]);
      const body = gatedBody(bytes, NEVER_ENDING);
      const response = await call(
        path,
        {
          method: 'POST',
          headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${TEST_BOUNDARY}` },
          body: body.stream,
          duplex: 'half',
        } as RequestInit,
        { LINK_REQUIRE_PASSWORD: 'true' },
      );
      expectViolation(
        { status: response.status, body: await response.json() },
        [{ field: 'isPublic', rule: 'linkRequirePassword', limit: true }],
        path,
      );
      body.fail();
    }
    await expectStored(id, []);
    await expectAccountSettled(id, 0);
  });

  it('tus concatenation: the final upload’s isPublic is judged (a partial’s is not), and defaults to private', async () => {
    const { id, auth } = await newAccount('default-links');
    const bounded = { LINK_REQUIRE_EXPIRY: 'true' };
    const partial = await createUpload(
      auth,
      5,
      { isPublic: 'true' },
      { headers: { 'Upload-Concat': 'partial' }, env: bounded },
    );
    expect(partial.response.status).toBe(201);
    await patchOk(auth, partial.path, 0, new TextEncoder().encode('hello'));
    const final = (meta: Record<string, string>) =>
      call(
        '/api/v2/uploads',
        {
          method: 'POST',
          headers: { ...auth, ...TUS, 'Upload-Concat': `final;${partial.path}`, 'Upload-Metadata': metadata(meta) },
        },
        bounded,
      );
    const refused = await final({ filename: 'joined.txt', isPublic: 'true' });
    expectViolation({ status: refused.status, body: await refused.json() }, [
      { field: 'isPublic', rule: 'linkRequireExpiry', limit: true },
    ]);
    await expectStored(id, []);
    const made = await final({ filename: 'joined.txt' });
    expect(made.status, await made.clone().text()).toBe(201);
    expect(await visibility(auth, [made.headers.get('x-file-id') ?? ''])).toEqual([
      { isPublic: false, shareStatus: 404 },
    ]);
  });

  it('follows the account’s own overrides: set one, the account’s uploads turn private; lift it, public again', async () => {
    const { id, auth } = await newAccount('default-links');
    await setAccountPolicy(id, { linkRequirePassword: true });
    const refused = await multipartPath('v2').upload(auth, { isPublic: 'true' }, {});
    expectViolation({ status: refused.status, body: await refused.json() }, [BOUNDS[0]?.detail as Violation]);
    const v1 = await uploadOk('v1', auth, {});
    // A v1 record shows no isPublic: its shareUrl answers 404 while the file is private.
    expect(v1).not.toHaveProperty('isPublic');
    expect(await visibility(auth, [v1.id])).toEqual([{ isPublic: false, shareStatus: 404 }]);
    // Another account keeps the configured (absent) bound.
    const other = await newAccount('default-links');
    expect((await uploadOk('v2', other.auth, {})).isPublic).toBe(true);
    await setAccountPolicy(id, { linkRequirePassword: false });
    expect((await uploadOk('v2', auth, {}, { env: { LINK_REQUIRE_PASSWORD: 'true' } })).isPublic).toBe(true);
  });

  it('MCP upload_text: isPublic true is POLICY_VIOLATION, and the default is private', async () => {
    const { id, key, auth } = await newAccount('default-links');
    await setAccountPolicy(id, { linkMaxDownloads: 3 });
    const client = await mcpClient(key);
    expect(await toolRefusal(client, 'upload_text', { filename: 'a.txt', text: 'a', isPublic: true })).toMatchObject({
      code: 'POLICY_VIOLATION',
      details: [{ field: 'isPublic', rule: 'linkMaxDownloads', limit: 3 }],
    });
    await expectStored(id, []);
    const kept = await toolData<{ id: string; isPublic: boolean }>(client, 'upload_text', {
      filename: 'a.txt',
      text: 'a',
    });
    expect(kept.isPublic).toBe(false);
    expect(await visibility(auth, [kept.id])).toEqual([{ isPublic: false, shareStatus: 404 }]);
  });
});

describe('PATCH /api/v2/files/{id} while a bound bars default links', () => {
  it('refuses isPublic: true (422 naming each bound) and changes nothing; isPublic: false is taken', async () => {
    const { auth } = await newAccount('default-links');
    const file = await uploadOk('v2', auth, {}, { fields: { isPublic: 'false' } });
    const before = await getRecord(auth, file.id, 'v2');
    const answer = await send(
      auth,
      'PATCH',
      `/files/${file.id}`,
      { isPublic: true, originalName: 'b.txt' },
      ALL_BOUNDS,
    );
    expectViolation(
      answer,
      BOUNDS.map((bound) => bound.detail),
    );
    expect(await getRecord(auth, file.id, 'v2')).toEqual(before);
    const kept = await send(auth, 'PATCH', `/files/${file.id}`, { isPublic: false }, ALL_BOUNDS);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
  });

  it('leaves a file made public before the bound public: its link keeps working, and it may be made private', async () => {
    const { id, auth } = await newAccount('default-links');
    const file = await uploadOk('v2', auth, {});
    expect(file.isPublic).toBe(true);
    await setAccountPolicy(id, { linkRequireExpiry: true });
    expect(await visibility(auth, [file.id])).toEqual([{ isPublic: true, shareStatus: 200 }]);
    const renamed = await send(auth, 'PATCH', `/files/${file.id}`, { originalName: 'kept.txt' });
    expect(renamed.status).toBe(200);
    const made = await send(auth, 'PATCH', `/files/${file.id}`, { isPublic: false });
    expect(made.body.data.isPublic).toBe(false);
    expectViolation(await send(auth, 'PATCH', `/files/${file.id}`, { isPublic: true }), [
      { field: 'isPublic', rule: 'linkRequireExpiry', limit: true },
    ]);
  });
});

describe('file requests while a bound bars default links', () => {
  it('refuses a request’s create or change with isPublic: true (MCP tools too); nothing is made', async () => {
    const { id, key, auth } = await newAccount('default-links');
    const made = await send(auth, 'POST', '/requests', { isPublic: true }, { LINK_REQUIRE_PASSWORD: 'true' });
    expectViolation(made, [{ field: 'isPublic', rule: 'linkRequirePassword', limit: true }]);
    const request = await send(auth, 'POST', '/requests', {}, { LINK_REQUIRE_PASSWORD: 'true' });
    expect(request.status).toBe(201);
    const changed = await send(
      auth,
      'PATCH',
      `/requests/${request.body.data.id}`,
      { isPublic: true },
      { LINK_REQUIRE_PASSWORD: 'true' },
    );
    expectViolation(changed, [{ field: 'isPublic', rule: 'linkRequirePassword', limit: true }]);
    await setAccountPolicy(id, { linkMaxDownloads: 2 });
    const client = await mcpClient(key);
    for (const [tool, args] of [
      ['create_file_request', { isPublic: true }],
      ['create_upload_url', { size: 3, contentType: 'text/plain', isPublic: true }],
    ] as const) {
      expect(await toolRefusal(client, tool, args), tool).toMatchObject({
        code: 'POLICY_VIOLATION',
        details: [{ field: 'isPublic', rule: 'linkMaxDownloads', limit: 2 }],
      });
    }
    const listed = await send(auth, 'GET', '/requests', undefined);
    expect(listed.body.data.requests).toHaveLength(1);
  });

  it('a request made public before the bound receives private files on every way in, its senders never refused', async () => {
    const { id, auth } = await newAccount('default-links');
    const request = await send(auth, 'POST', '/requests', { isPublic: true, maxFiles: 10 });
    expect(request.status).toBe(201);
    const { uploadUrl, tusUrl } = request.body.data as { uploadUrl: string; tusUrl: string };
    const receiveAll = async (env: Env) => {
      const posted = await call(uploadUrl, { method: 'POST', body: form([{ filename: 'p.txt', content: 'p' }]) }, env);
      expect(posted.status, await posted.clone().text()).toBe(201);
      const put = await call(
        `${uploadUrl}/r.txt`,
        { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'r' },
        env,
      );
      expect(put.status, await put.clone().text()).toBe(201);
      const tus = await call(
        tusUrl,
        {
          method: 'POST',
          headers: {
            ...TUS,
            'Upload-Length': '1',
            // The sender's own isPublic is not theirs to choose: dropped.
            'Upload-Metadata': `filename ${base64('t.txt')},isPublic ${base64('true')}`,
            'Content-Type': 'application/offset+octet-stream',
          },
          body: 't',
        },
        env,
      );
      expect(tus.status, await tus.clone().text()).toBe(201);
    };
    const receivedIds = async () =>
      (
        (await send(auth, 'GET', `/requests/${request.body.data.id}/files`, undefined)).body.data.files as {
          id: string;
        }[]
      ).map((file) => file.id);
    await receiveAll({});
    const before = await receivedIds();
    await setAccountPolicy(id, { linkRequirePassword: true });
    await receiveAll({});
    const after = (await receivedIds()).filter((fileId) => !before.includes(fileId));
    expect([before.length, after.length]).toEqual([3, 3]);
    expect(await visibility(auth, before)).toEqual(Array(3).fill({ isPublic: true, shareStatus: 200 }));
    expect(await visibility(auth, after)).toEqual(Array(3).fill({ isPublic: false, shareStatus: 404 }));
  });
});

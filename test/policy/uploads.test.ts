// The policy on files' expiry: each bound on every upload path (v1 and v2 multipart, bulk, the raw
// PUT, tus creation and concatenation) and on PATCH /files/{id}. A refused upload stores and
// charges nothing, and where the expiry is known before the body (a query, tus metadata, a form
// field ahead of the file) it is refused without reading the body. An upload that asks no expiry
// gets the configured default brought within the bound; a file request's uploads, whose senders
// cannot choose, get the longest the policy allows and are never refused for it.
import { describe, expect, it } from 'vitest';
import { getRecord } from '../helpers/files';
import { expectAccountSettled, expectStored, gatedBody } from '../helpers/storage';
import { base64, createUpload, metadata, patchOk, TUS } from '../helpers/tus';
import { fieldPart, filePartHeaders, form, rawMultipart, TEST_BOUNDARY, uploadOk } from '../helpers/upload';
import { call } from '../helpers/worker';
import {
  type Auth,
  type Env,
  expectViolation,
  multipartPath,
  newAccount,
  send,
  setAccountPolicy,
  UPLOAD_PATHS,
} from './policy-helpers';

const HOUR = 3600;
const DAY = 86_400;
const YEAR = 31_536_000;

const PATHS = UPLOAD_PATHS;

type Case = { bound: string; env: Env; fields: Record<string, string>; details: [string, string, number | boolean][] };

const CASES: Case[] = [
  {
    bound: 'fileMaxExpirySeconds: expiresIn past it',
    env: { FILE_MAX_EXPIRY_SECONDS: String(DAY) },
    fields: { expiresIn: String(DAY + 1) },
    details: [['expiresIn', 'fileMaxExpirySeconds', DAY]],
  },
  {
    bound: 'fileMaxExpirySeconds: no expiresIn and no default',
    env: { FILE_MAX_EXPIRY_SECONDS: String(DAY) },
    fields: {},
    details: [['expiresIn', 'fileMaxExpirySeconds', DAY]],
  },
  {
    bound: 'fileRequireExpiry: no expiresIn and no default',
    env: { FILE_REQUIRE_EXPIRY: 'true' },
    fields: { isPublic: 'true' },
    details: [['expiresIn', 'fileRequireExpiry', true]],
  },
];

const asDetails = (details: Case['details']) => details.map(([field, rule, limit]) => ({ field, rule, limit }));

const lifetime = (record: { uploadedAt: string; expiresAt: string | null }) =>
  record.expiresAt === null ? null : (Date.parse(record.expiresAt) - Date.parse(record.uploadedAt)) / 1000;

describe('every upload path under the policy', () => {
  for (const path of PATHS) {
    for (const { bound, env, fields, details } of CASES) {
      it(`${path.name}: 422 POLICY_VIOLATION for ${bound}; nothing stored or charged`, async () => {
        const { id, auth } = await newAccount('uploads');
        const response = await path.upload(auth, fields, env);
        expectViolation({ status: response.status, body: await response.json() }, asDetails(details), path.name);
        await expectStored(id, []);
        await expectAccountSettled(id, 0);
      });
    }

    it(`${path.name}: an expiry within the bounds is stored; none asked gets DEFAULT_EXPIRY_SECONDS brought within the bound`, async () => {
      const { auth } = await newAccount('uploads');
      const bounded = { FILE_MAX_EXPIRY_SECONDS: String(HOUR), FILE_REQUIRE_EXPIRY: 'true' };
      const asked = await path.upload(auth, { expiresIn: String(HOUR) }, bounded);
      expect(asked.status, await asked.clone().text()).toBe(201);
      const defaulted = await path.upload(auth, {}, { ...bounded, DEFAULT_EXPIRY_SECONDS: String(2 * HOUR) });
      expect(defaulted.status, await defaulted.clone().text()).toBe(201);
      const id =
        defaulted.headers.get('x-file-id') ??
        ((await defaulted.json()) as { data: { id?: string; results?: { data: { id: string } }[] } }).data.id ??
        '';
      const fileId = id || (await latestFileId(auth));
      expect(lifetime(await getRecord(auth, fileId, 'v2'))).toBe(HOUR);
    });
  }

  it('an account’s own bound refuses its uploads, and lifting a configured one frees them', async () => {
    const { id, auth } = await newAccount('uploads');
    await setAccountPolicy(id, { fileRequireExpiry: true });
    const refused = await multipartPath('v2').upload(auth, {}, {});
    expectViolation({ status: refused.status, body: await refused.json() }, [
      { field: 'expiresIn', rule: 'fileRequireExpiry', limit: true },
    ]);
    await setAccountPolicy(id, { fileRequireExpiry: false });
    expect((await multipartPath('v2').upload(auth, {}, { FILE_REQUIRE_EXPIRY: 'true' })).status).toBe(201);
  });
});

async function latestFileId(auth: Auth): Promise<string> {
  const listed = await send(auth, 'GET', '/files?limit=1', undefined);
  return listed.body.data.files[0].id;
}

describe('a refusal known before the body', () => {
  // Each body sends its start, then waits for good: answering at all shows the rest was never awaited.
  const NEVER_ENDING = 'THE REST';

  it('PUT /upload/{filename}: the query’s expiresIn is refused without reading the body', async () => {
    const { id, auth } = await newAccount('uploads');
    const body = gatedBody(new TextEncoder().encode(`first bytes ${NEVER_ENDING}`), NEVER_ENDING);
    const response = await call(
      `/api/v2/upload/a.txt?expiresIn=${2 * DAY}`,
      {
        method: 'PUT',
        headers: { ...auth, 'Content-Type': 'text/plain' },
        body: body.stream,
        duplex: 'half',
      } as RequestInit,
      { FILE_MAX_EXPIRY_SECONDS: String(DAY) },
    );
    expectViolation({ status: response.status, body: await response.json() }, [
      { field: 'expiresIn', rule: 'fileMaxExpirySeconds', limit: DAY },
    ]);
    body.fail();
    await expectStored(id, []);
  });

  it('tus creation with upload: the metadata’s expiry is refused before any byte is kept', async () => {
    const { id, auth } = await newAccount('uploads');
    const body = gatedBody(new TextEncoder().encode(`first bytes ${NEVER_ENDING}`), NEVER_ENDING);
    const response = await call(
      '/api/v2/uploads',
      {
        method: 'POST',
        headers: {
          ...auth,
          ...TUS,
          'Upload-Length': '100',
          'Upload-Metadata': metadata({ filename: 'a.txt' }),
          'Content-Type': 'application/offset+octet-stream',
        },
        body: body.stream,
        duplex: 'half',
      } as RequestInit,
      { FILE_REQUIRE_EXPIRY: 'true' },
    );
    expectViolation({ status: response.status, body: await response.json() }, [
      { field: 'expiresIn', rule: 'fileRequireExpiry', limit: true },
    ]);
    body.fail();
    await expectStored(id, []);
    await expectAccountSettled(id, 0);
  });

  it('a form whose expiresIn comes before the file: refused before the file part is read', async () => {
    const { id, auth } = await newAccount('uploads');
    for (const path of ['/api/v1/upload', '/api/v2/upload', '/api/v2/upload/bulk']) {
      const fileField = path.endsWith('bulk') ? 'files' : 'file';
      const bytes = rawMultipart([
        fieldPart('expiresIn', String(YEAR)),
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
        { FILE_MAX_EXPIRY_SECONDS: String(DAY) },
      );
      expectViolation(
        { status: response.status, body: await response.json() },
        [{ field: 'expiresIn', rule: 'fileMaxExpirySeconds', limit: DAY }],
        path,
      );
      body.fail();
    }
    await expectStored(id, []);
    await expectAccountSettled(id, 0);
  });
});

describe('tus concatenation under the policy', () => {
  it('judges the final upload’s expiry (a partial’s is not), and refusing it leaves the partials as they were', async () => {
    const { id, auth } = await newAccount('uploads');
    const bounded = { FILE_REQUIRE_EXPIRY: 'true' };
    const partial = await createUpload(auth, 5, {}, { headers: { 'Upload-Concat': 'partial' }, env: bounded });
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
    const refused = await final({ filename: 'joined.txt' });
    expectViolation({ status: refused.status, body: await refused.json() }, [
      { field: 'expiresIn', rule: 'fileRequireExpiry', limit: true },
    ]);
    await expectStored(id, []);
    const made = await final({ filename: 'joined.txt', expiresIn: String(HOUR) });
    expect(made.status, await made.clone().text()).toBe(201);
    const record = await getRecord(auth, made.headers.get('x-file-id') ?? '', 'v2');
    expect(lifetime(record)).toBe(HOUR);
  });
});

describe('PATCH /api/v2/files/{id} under the policy', () => {
  const CHANGES: { bound: string; env: Env; body: Record<string, unknown>; details: Case['details'] }[] = [
    {
      bound: 'fileMaxExpirySeconds: expiresIn past it',
      env: { FILE_MAX_EXPIRY_SECONDS: String(DAY) },
      body: { expiresIn: 2 * DAY },
      details: [['expiresIn', 'fileMaxExpirySeconds', DAY]],
    },
    {
      bound: 'fileMaxExpirySeconds: expiresAt past it',
      env: { FILE_MAX_EXPIRY_SECONDS: String(DAY) },
      body: { expiresAt: new Date(Date.now() + 2 * DAY * 1000).toISOString() },
      details: [['expiresAt', 'fileMaxExpirySeconds', DAY]],
    },
    {
      bound: 'fileMaxExpirySeconds: the expiry cleared',
      env: { FILE_MAX_EXPIRY_SECONDS: String(DAY) },
      body: { expiresIn: null },
      details: [['expiresIn', 'fileMaxExpirySeconds', DAY]],
    },
    {
      bound: 'fileRequireExpiry: the expiry cleared',
      env: { FILE_REQUIRE_EXPIRY: 'true' },
      body: { expiresAt: null },
      details: [['expiresAt', 'fileRequireExpiry', true]],
    },
  ];
  for (const { bound, env, body, details } of CHANGES) {
    it(`is 422 POLICY_VIOLATION for ${bound}, and changes nothing`, async () => {
      const { auth } = await newAccount('uploads');
      const file = await uploadOk('v2', auth, {}, { fields: { expiresIn: String(HOUR) } });
      const before = await getRecord(auth, file.id, 'v2');
      const answer = await send(auth, 'PATCH', `/files/${file.id}`, { ...body, originalName: 'renamed.txt' }, env);
      expectViolation(answer, asDetails(details), bound);
      expect(await getRecord(auth, file.id, 'v2')).toEqual(before);
    });
  }

  it('leaves a file stored before a bound tightened alone: a change that does not touch its expiry is taken', async () => {
    const { auth } = await newAccount('uploads');
    const file = await uploadOk('v2', auth, {});
    const tight = { FILE_MAX_EXPIRY_SECONDS: String(DAY), FILE_REQUIRE_EXPIRY: 'true' };
    // The bounds hold for a new upload, and for a change of the expiry…
    expect((await multipartPath('v2').upload(auth, {}, tight)).status).toBe(422);
    expect((await send(auth, 'PATCH', `/files/${file.id}`, { expiresIn: null }, tight)).status).toBe(422);
    // …while a change that leaves the file's (missing) expiry alone is taken.
    const changed = await send(
      auth,
      'PATCH',
      `/files/${file.id}`,
      { isPublic: false, originalName: 'kept.txt' },
      tight,
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toMatchObject({ isPublic: false, originalName: 'kept.txt', expiresAt: null });
    // Giving it an expiry within the bound is taken too.
    expect((await send(auth, 'PATCH', `/files/${file.id}`, { expiresIn: DAY }, tight)).status).toBe(200);
  });
});

describe('files received through a file request', () => {
  async function request(auth: Auth) {
    const made = await send(auth, 'POST', '/requests', { maxFiles: 10 });
    expect(made.status).toBe(201);
    return made.body.data as { id: string; uploadUrl: string; tusUrl: string };
  }

  /** Sends one file through each of the request's ways in; returns the received files' lifetimes. */
  async function receivedLifetimes(auth: Auth, env: Env): Promise<(number | null)[]> {
    const { uploadUrl, tusUrl, id } = await request(auth);
    const posted = await call(
      uploadUrl,
      { method: 'POST', body: form([{ filename: 'p.txt', content: 'posted' }]) },
      env,
    );
    expect(posted.status, await posted.clone().text()).toBe(201);
    const put = await call(
      `${uploadUrl}/r.txt`,
      { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'raw' },
      env,
    );
    expect(put.status, await put.clone().text()).toBe(201);
    const tus = await call(
      tusUrl,
      {
        method: 'POST',
        headers: {
          ...TUS,
          'Upload-Length': '3',
          // The sender's own expiry is not theirs to choose: dropped.
          'Upload-Metadata': `filename ${base64('t.txt')},expiresIn ${base64('60')}`,
          'Content-Type': 'application/offset+octet-stream',
        },
        body: 'tus',
      },
      env,
    );
    expect(tus.status, await tus.clone().text()).toBe(201);
    const files = (await send(auth, 'GET', `/requests/${id}/files`, undefined)).body.data.files as {
      uploadedAt: string;
      expiresAt: string | null;
    }[];
    expect(files).toHaveLength(3);
    return files.map(lifetime);
  }

  it('get the default expiry brought within fileMaxExpirySeconds', async () => {
    const { auth } = await newAccount('requests');
    const env = { DEFAULT_EXPIRY_SECONDS: String(2 * DAY), FILE_MAX_EXPIRY_SECONDS: String(DAY) };
    expect(await receivedLifetimes(auth, env)).toEqual([DAY, DAY, DAY]);
  });

  it('without a default, get the longest expiry the policy allows, and are never refused for it', async () => {
    const { auth } = await newAccount('requests');
    expect(
      await receivedLifetimes(auth, { FILE_MAX_EXPIRY_SECONDS: String(DAY), FILE_REQUIRE_EXPIRY: 'true' }),
    ).toEqual([DAY, DAY, DAY]);
    expect(await receivedLifetimes(auth, { FILE_REQUIRE_EXPIRY: 'true' })).toEqual([YEAR, YEAR, YEAR]);
  });

  it('follow the owner’s account overrides, and with no bound keep no expiry as before', async () => {
    const { id, auth } = await newAccount('requests');
    expect(await receivedLifetimes(auth, {})).toEqual([null, null, null]);
    await setAccountPolicy(id, { fileMaxExpirySeconds: 2 * HOUR });
    expect(await receivedLifetimes(auth, {})).toEqual([2 * HOUR, 2 * HOUR, 2 * HOUR]);
  });
});

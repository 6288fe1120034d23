// The policy on share links: each bound on each entry point (POST /files/{id}/links, POST
// /collections/{id}/links, PATCH /links/{id}), 422 POLICY_VIOLATION with every bound broken,
// nothing made or changed; links made before a bound tightened keep working, and a change is
// judged only on what it touches.
import { describe, expect, it } from 'vitest';
import { uploadOk } from '../helpers/upload';
import { call } from '../helpers/worker';
import { type Auth, type Env, expectViolation, newAccount, send, setAccountPolicy } from './policy-helpers';

const HOUR = 3600;
const DAY = 86_400;

async function withFile() {
  const account = await newAccount('links');
  const file = await uploadOk('v2', account.auth, { filename: 'shared.txt', content: 'shared bytes' });
  return { ...account, fileId: file.id };
}

const linksOf = async (auth: Auth, fileId: string) =>
  (await send(auth, 'GET', `/files/${fileId}/links`, undefined)).body.data.links as { id: string }[];

const inDays = (days: number) => new Date(Date.now() + days * DAY * 1000).toISOString();

type Case = { bound: string; env: Env; body: Record<string, unknown>; details: [string, string, number | boolean][] };

/** One case per bound (and per way of breaking it) on a link's create. */
const CREATES: Case[] = [
  {
    bound: 'linkMaxExpirySeconds: expiresIn past it',
    env: { LINK_MAX_EXPIRY_SECONDS: String(7 * DAY) },
    body: { expiresIn: 7 * DAY + 1 },
    details: [['expiresIn', 'linkMaxExpirySeconds', 7 * DAY]],
  },
  {
    bound: 'linkMaxExpirySeconds: expiresAt past it',
    env: { LINK_MAX_EXPIRY_SECONDS: String(7 * DAY) },
    body: { expiresAt: inDays(8) },
    details: [['expiresAt', 'linkMaxExpirySeconds', 7 * DAY]],
  },
  {
    bound: 'linkMaxExpirySeconds: no expiry at all',
    env: { LINK_MAX_EXPIRY_SECONDS: String(7 * DAY) },
    body: {},
    details: [['expiresIn', 'linkMaxExpirySeconds', 7 * DAY]],
  },
  {
    bound: 'linkRequireExpiry',
    env: { LINK_REQUIRE_EXPIRY: 'true' },
    body: { label: 'forever' },
    details: [['expiresIn', 'linkRequireExpiry', true]],
  },
  {
    bound: 'linkRequirePassword',
    env: { LINK_REQUIRE_PASSWORD: 'true' },
    body: { expiresIn: HOUR },
    details: [['password', 'linkRequirePassword', true]],
  },
  {
    bound: 'linkMaxDownloads: over it',
    env: { LINK_MAX_DOWNLOADS: '5' },
    body: { maxDownloads: 6 },
    details: [['maxDownloads', 'linkMaxDownloads', 5]],
  },
  {
    bound: 'linkMaxDownloads: no cap at all',
    env: { LINK_MAX_DOWNLOADS: '5' },
    body: {},
    details: [['maxDownloads', 'linkMaxDownloads', 5]],
  },
  {
    bound: 'passwordMinLength (code points, not bytes)',
    env: { PASSWORD_MIN_LENGTH: '6' },
    body: { password: 'ééééé' },
    details: [['password', 'passwordMinLength', 6]],
  },
];

/** One case per bound on a link's change: only the fields sent are judged. */
const CHANGES: Case[] = [
  {
    bound: 'linkMaxExpirySeconds: expiresIn past it',
    env: { LINK_MAX_EXPIRY_SECONDS: String(DAY) },
    body: { expiresIn: DAY + 60 },
    details: [['expiresIn', 'linkMaxExpirySeconds', DAY]],
  },
  {
    bound: 'linkMaxExpirySeconds: the expiry cleared',
    env: { LINK_MAX_EXPIRY_SECONDS: String(DAY) },
    body: { expiresIn: null },
    details: [['expiresIn', 'linkMaxExpirySeconds', DAY]],
  },
  {
    bound: 'linkRequireExpiry: the expiry cleared',
    env: { LINK_REQUIRE_EXPIRY: 'true' },
    body: { expiresAt: null },
    details: [['expiresAt', 'linkRequireExpiry', true]],
  },
  {
    bound: 'linkRequirePassword: the password removed',
    env: { LINK_REQUIRE_PASSWORD: 'true' },
    body: { password: null },
    details: [['password', 'linkRequirePassword', true]],
  },
  {
    bound: 'linkMaxDownloads: over it',
    env: { LINK_MAX_DOWNLOADS: '5' },
    body: { maxDownloads: 50 },
    details: [['maxDownloads', 'linkMaxDownloads', 5]],
  },
  {
    bound: 'linkMaxDownloads: the cap removed',
    env: { LINK_MAX_DOWNLOADS: '5' },
    body: { maxDownloads: null },
    details: [['maxDownloads', 'linkMaxDownloads', 5]],
  },
  {
    bound: 'passwordMinLength',
    env: { PASSWORD_MIN_LENGTH: '10' },
    body: { password: 'too short' },
    details: [['password', 'passwordMinLength', 10]],
  },
];

const asDetails = (details: Case['details']) => details.map(([field, rule, limit]) => ({ field, rule, limit }));

describe('POST /api/v2/files/{id}/links under the policy', () => {
  for (const { bound, env, body, details } of CREATES) {
    it(`is 422 POLICY_VIOLATION for ${bound}, and makes no link`, async () => {
      const { auth, fileId } = await withFile();
      expectViolation(await send(auth, 'POST', `/files/${fileId}/links`, body, env), asDetails(details), bound);
      expect(await linksOf(auth, fileId)).toEqual([]);
    });
  }

  it('makes a link that keeps to every bound', async () => {
    const { auth, fileId } = await withFile();
    const env = {
      LINK_MAX_EXPIRY_SECONDS: String(7 * DAY),
      LINK_REQUIRE_EXPIRY: 'true',
      LINK_REQUIRE_PASSWORD: 'true',
      LINK_MAX_DOWNLOADS: '5',
      PASSWORD_MIN_LENGTH: '6',
    };
    const made = await send(
      auth,
      'POST',
      `/files/${fileId}/links`,
      {
        password: 'long enough',
        maxDownloads: 5,
        expiresIn: 7 * DAY,
      },
      env,
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject({ hasPassword: true, maxDownloads: 5, status: 'active' });
    const at = await send(
      auth,
      'POST',
      `/files/${fileId}/links`,
      {
        password: 'long enough',
        maxDownloads: 1,
        expiresAt: inDays(6),
      },
      env,
    );
    expect(at.status).toBe(201);
  });

  it('names every bound broken at once', async () => {
    const { auth, fileId } = await withFile();
    const env = {
      LINK_MAX_EXPIRY_SECONDS: String(DAY),
      LINK_REQUIRE_EXPIRY: 'true',
      LINK_REQUIRE_PASSWORD: 'true',
      LINK_MAX_DOWNLOADS: '5',
    };
    const answer = await send(auth, 'POST', `/files/${fileId}/links`, { label: 'nothing at all' }, env);
    expectViolation(answer, [
      { field: 'expiresIn', rule: 'linkRequireExpiry', limit: true },
      { field: 'expiresIn', rule: 'linkMaxExpirySeconds', limit: DAY },
      { field: 'password', rule: 'linkRequirePassword', limit: true },
      { field: 'maxDownloads', rule: 'linkMaxDownloads', limit: 5 },
    ]);
    expect(answer.body.error).toMatch(/share link must have a password/);
    const short = await send(
      auth,
      'POST',
      `/files/${fileId}/links`,
      { password: 'abc', maxDownloads: 9 },
      {
        PASSWORD_MIN_LENGTH: '4',
        LINK_MAX_DOWNLOADS: '5',
      },
    );
    expectViolation(short, [
      { field: 'password', rule: 'passwordMinLength', limit: 4 },
      { field: 'maxDownloads', rule: 'linkMaxDownloads', limit: 5 },
    ]);
  });

  it('checks the shape first: a malformed body is 400 VALIDATION_ERROR whatever the policy', async () => {
    const { auth, fileId } = await withFile();
    const answer = await send(auth, 'POST', `/files/${fileId}/links`, { maxDownloads: 0 }, { LINK_MAX_DOWNLOADS: '5' });
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('follows an account’s own bounds (the admin API), and no other account’s', async () => {
    const { id, auth, fileId } = await withFile();
    const other = await withFile();
    await setAccountPolicy(id, { linkRequirePassword: true, linkMaxDownloads: 2 });
    expectViolation(await send(auth, 'POST', `/files/${fileId}/links`, { maxDownloads: 3 }), [
      { field: 'password', rule: 'linkRequirePassword', limit: true },
      { field: 'maxDownloads', rule: 'linkMaxDownloads', limit: 2 },
    ]);
    expect((await send(other.auth, 'POST', `/files/${other.fileId}/links`, {})).status).toBe(201);
    // An account exempt from a configured bound (false lifts it).
    await setAccountPolicy(id, { linkRequirePassword: false, linkMaxDownloads: null });
    expect((await send(auth, 'POST', `/files/${fileId}/links`, {}, { LINK_REQUIRE_PASSWORD: 'true' })).status).toBe(
      201,
    );
    expectViolation(
      await send(other.auth, 'POST', `/files/${other.fileId}/links`, {}, { LINK_REQUIRE_PASSWORD: 'true' }),
      [{ field: 'password', rule: 'linkRequirePassword', limit: true }],
    );
  });
});

describe('POST /api/v2/collections/{id}/links under the policy', () => {
  async function withCollection() {
    const { auth, fileId } = await withFile();
    const made = await send(auth, 'POST', '/collections', { name: 'bounded', fileIds: [fileId] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return { auth, collectionId: made.body.data.id as string };
  }
  const collectionLinks = async (auth: Auth, id: string) =>
    (await send(auth, 'GET', `/collections/${id}/links`, undefined)).body.data.links as { id: string }[];

  for (const { bound, env, body, details } of CREATES) {
    it(`is 422 POLICY_VIOLATION for ${bound}, and makes no link`, async () => {
      const { auth, collectionId } = await withCollection();
      const answer = await send(auth, 'POST', `/collections/${collectionId}/links`, body, env);
      expectViolation(answer, asDetails(details), bound);
      expect(await collectionLinks(auth, collectionId)).toEqual([]);
    });
  }

  it('makes a collection link that keeps to every bound', async () => {
    const { auth, collectionId } = await withCollection();
    const env = { LINK_REQUIRE_PASSWORD: 'true', LINK_MAX_DOWNLOADS: '5', PASSWORD_MIN_LENGTH: '6' };
    const made = await send(
      auth,
      'POST',
      `/collections/${collectionId}/links`,
      { password: 'long enough', maxDownloads: 5 },
      env,
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject({ collectionId, hasPassword: true, maxDownloads: 5 });
  });
});

describe('PATCH /api/v2/links/{id} under the policy', () => {
  for (const { bound, env, body, details } of CHANGES) {
    it(`is 422 POLICY_VIOLATION for ${bound}, and changes nothing`, async () => {
      const { auth, fileId } = await withFile();
      // Made within every bound of the cases, before they apply.
      const made = await send(auth, 'POST', `/files/${fileId}/links`, {
        label: 'before',
        password: 'a long password',
        maxDownloads: 3,
        expiresIn: HOUR,
      });
      expect(made.status).toBe(201);
      const answer = await send(auth, 'PATCH', `/links/${made.body.data.id}`, { ...body, label: 'after' }, env);
      expectViolation(answer, asDetails(details), bound);
      const now = await send(auth, 'GET', `/links/${made.body.data.id}`, undefined);
      expect(now.body.data).toEqual(made.body.data);
    });
  }
});

describe('links made before a bound tightened', () => {
  it('keep serving, and take changes that leave the bounded fields alone', async () => {
    const { auth, fileId } = await withFile();
    const made = await send(auth, 'POST', `/files/${fileId}/links`, { label: 'open' });
    expect(made.status).toBe(201);
    const link = made.body.data as { id: string; url: string };
    const tight: Env = {
      LINK_MAX_EXPIRY_SECONDS: String(DAY),
      LINK_REQUIRE_EXPIRY: 'true',
      LINK_REQUIRE_PASSWORD: 'true',
      LINK_MAX_DOWNLOADS: '5',
      PASSWORD_MIN_LENGTH: '12',
    };
    // The bounds hold for a new link…
    expect((await send(auth, 'POST', `/files/${fileId}/links`, { label: 'new' }, tight)).status).toBe(422);
    // …while the old link's URL still serves the file, and the owner still reads it.
    const download = await call(`${new URL(link.url).pathname}/download`, {}, tight);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('shared bytes');
    const read = await send(auth, 'GET', `/links/${link.id}`, undefined, tight);
    expect(read.body.data).toMatchObject({ hasPassword: false, maxDownloads: null, expiresAt: null, status: 'active' });
    // A new label is no new password, cap or expiry.
    const relabelled = await send(auth, 'PATCH', `/links/${link.id}`, { label: 'renamed' }, tight);
    expect(relabelled.status, JSON.stringify(relabelled.body)).toBe(200);
    expect(relabelled.body.data).toMatchObject({ label: 'renamed', hasPassword: false, maxDownloads: null });
    // A cap within the bound, alone: judged on the cap only.
    const capped = await send(auth, 'PATCH', `/links/${link.id}`, { maxDownloads: 4 }, tight);
    expect(capped.status).toBe(200);
    // Revoking is always allowed.
    expect((await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth }, tight)).status).toBe(200);
  });

  it('the same when the bound is an account override set after the link', async () => {
    const { id, auth, fileId } = await withFile();
    const made = await send(auth, 'POST', `/files/${fileId}/links`, {});
    await setAccountPolicy(id, { linkRequirePassword: true });
    expect((await call(`${new URL(made.body.data.url).pathname}/download`)).status).toBe(200);
    expect((await send(auth, 'PATCH', `/links/${made.body.data.id}`, { label: 'kept' })).status).toBe(200);
    expectViolation(await send(auth, 'PATCH', `/links/${made.body.data.id}`, { password: null }), [
      { field: 'password', rule: 'linkRequirePassword', limit: true },
    ]);
  });
});

// GET /api/v2/policy: the effective bounds of the caller's account, the configuration's with the
// account's overrides on top, read by any valid key; and the overrides through the admin API.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/worker';
import { ADMIN, jsonInit, newAccount, policyOf, setAccountPolicy } from './policy-helpers';

const NONE = {
  linkMaxExpirySeconds: null,
  linkRequireExpiry: null,
  linkRequirePassword: null,
  linkMaxDownloads: null,
  passwordMinLength: null,
  fileMaxExpirySeconds: null,
  fileRequireExpiry: null,
  requestMaxExpirySeconds: null,
  requestMaxBytes: null,
  e2eAllowed: true,
};

const CONFIGURED = {
  LINK_MAX_EXPIRY_SECONDS: '604800',
  LINK_REQUIRE_EXPIRY: 'true',
  LINK_REQUIRE_PASSWORD: 'true',
  LINK_MAX_DOWNLOADS: '10',
  PASSWORD_MIN_LENGTH: '12',
  FILE_MAX_EXPIRY_SECONDS: '2592000',
  FILE_REQUIRE_EXPIRY: 'true',
  REQUEST_MAX_EXPIRY_SECONDS: '86400',
  REQUEST_MAX_BYTES: '1073741824',
};

describe('GET /api/v2/policy', () => {
  it('answers exactly the nine bounds, each null when nothing is configured, and e2eAllowed true', async () => {
    const { auth } = await newAccount();
    const response = await call('/api/v2/policy', { headers: auth });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { success: boolean; data: unknown; _perf: unknown };
    expect(body.success).toBe(true);
    expect(Number.isInteger(body._perf)).toBe(true);
    expect(body.data).toEqual(NONE);
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('answers the configured bounds as numbers and true; a bound configured false or empty is null', async () => {
    const { auth } = await newAccount();
    expect(await policyOf(auth, CONFIGURED)).toEqual({
      linkMaxExpirySeconds: 604800,
      linkRequireExpiry: true,
      linkRequirePassword: true,
      linkMaxDownloads: 10,
      passwordMinLength: 12,
      fileMaxExpirySeconds: 2592000,
      fileRequireExpiry: true,
      requestMaxExpirySeconds: 86400,
      requestMaxBytes: 1073741824,
      e2eAllowed: true,
    });
    expect(await policyOf(auth, { LINK_REQUIRE_PASSWORD: 'false', LINK_MAX_DOWNLOADS: '' })).toEqual(NONE);
  });

  it('needs no scope: any valid key reads it; no key, or a bad one, is 401', async () => {
    const created = await call(
      '/admin/accounts',
      jsonInit(ADMIN, 'POST', { name: 'read only', key: { name: 'reader', scopes: ['files:read'] } }),
    );
    const { key } = ((await created.json()) as { data: { key: { key: string } } }).data;
    const reader = { Authorization: `Bearer ${key.key}` };
    expect(await policyOf(reader, { LINK_MAX_DOWNLOADS: '3' })).toMatchObject({ linkMaxDownloads: 3 });
    for (const headers of [{}, { Authorization: 'Bearer esk_nope' }] as Record<string, string>[]) {
      const response = await call('/api/v2/policy', { headers });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { code: string }).code).toBe('UNAUTHORIZED');
    }
  });

  it('shows an account’s overrides in place of the configured bounds: a value sets one, false lifts one, null clears one', async () => {
    const { id, auth } = await newAccount();
    const other = await newAccount();
    const config = { LINK_MAX_DOWNLOADS: '10', LINK_REQUIRE_PASSWORD: 'true', FILE_MAX_EXPIRY_SECONDS: '86400' };
    const account = await setAccountPolicy(id, {
      linkMaxDownloads: 3,
      linkRequirePassword: false,
      requestMaxBytes: 5000,
      passwordMinLength: 8,
    });
    expect(account.policy).toEqual({
      linkMaxDownloads: 3,
      linkRequirePassword: false,
      requestMaxBytes: 5000,
      passwordMinLength: 8,
    });
    expect(await policyOf(auth, config)).toEqual({
      ...NONE,
      linkMaxDownloads: 3,
      linkRequirePassword: null,
      fileMaxExpirySeconds: 86400,
      requestMaxBytes: 5000,
      passwordMinLength: 8,
    });
    // Another account follows the configuration alone.
    expect(await policyOf(other.auth, config)).toEqual({
      ...NONE,
      linkMaxDownloads: 10,
      linkRequirePassword: true,
      fileMaxExpirySeconds: 86400,
    });
    // null clears an override (the configuration applies again); the others stay.
    const cleared = await setAccountPolicy(id, { linkMaxDownloads: null, passwordMinLength: null });
    expect(cleared.policy).toEqual({ linkRequirePassword: false, requestMaxBytes: 5000 });
    expect(await policyOf(auth, config)).toMatchObject({ linkMaxDownloads: 10, passwordMinLength: null });
    // A numeric bound lifted for the account only.
    await setAccountPolicy(id, { fileMaxExpirySeconds: false });
    expect(await policyOf(auth, config)).toMatchObject({ fileMaxExpirySeconds: null });
    expect(await policyOf(other.auth, config)).toMatchObject({ fileMaxExpirySeconds: 86400 });
  });

  it('shows e2eAllowed as E2E_ALLOWED sets it, and an account’s own true or false in its place', async () => {
    const { id, auth } = await newAccount();
    expect(await policyOf(auth, { E2E_ALLOWED: 'false' })).toMatchObject({ e2eAllowed: false });
    expect(await policyOf(auth, { E2E_ALLOWED: '' })).toMatchObject({ e2eAllowed: true });
    // A permission, not a bound: false turns it off for the account (it does not lift anything).
    await setAccountPolicy(id, { e2eAllowed: false });
    expect(await policyOf(auth)).toMatchObject({ e2eAllowed: false });
    await setAccountPolicy(id, { e2eAllowed: true });
    expect(await policyOf(auth, { E2E_ALLOWED: 'false' })).toMatchObject({ e2eAllowed: true });
    await setAccountPolicy(id, { e2eAllowed: null });
    expect(await policyOf(auth, { E2E_ALLOWED: 'false' })).toMatchObject({ e2eAllowed: false });
  });

  it('applies an account’s new overrides to every one of its keys at once', async () => {
    const created = await call('/admin/accounts', jsonInit(ADMIN, 'POST', { name: 'two keys' }));
    const { account, key } = ((await created.json()) as { data: { account: { id: string }; key: { key: string } } })
      .data;
    const second = await call(`/admin/accounts/${account.id}/keys`, jsonInit(ADMIN, 'POST', { name: 'second' }));
    const secondKey = ((await second.json()) as { data: { key: string } }).data.key;
    const auths = [key.key, secondKey].map((secret) => ({ Authorization: `Bearer ${secret}` }));
    // Both keys' objects have read their state before the change.
    for (const auth of auths) expect(await policyOf(auth)).toMatchObject({ linkRequireExpiry: null });
    await setAccountPolicy(account.id, { linkRequireExpiry: true });
    for (const auth of auths) expect(await policyOf(auth)).toMatchObject({ linkRequireExpiry: true });
  });

  it('the admin API takes overrides when it makes an account, and refuses values no bound takes (400, nothing changed)', async () => {
    const created = await call(
      '/admin/accounts',
      jsonInit(ADMIN, 'POST', { name: 'born bounded', policy: { linkRequirePassword: true, linkMaxDownloads: null } }),
    );
    expect(created.status).toBe(201);
    const { account, key } = (
      (await created.json()) as {
        data: { account: { id: string; policy: unknown }; key: { key: string } };
      }
    ).data;
    expect(account.policy).toEqual({ linkRequirePassword: true });
    expect(await policyOf({ Authorization: `Bearer ${key.key}` })).toMatchObject({ linkRequirePassword: true });

    for (const policy of [
      { linkMaxDownloads: 0 },
      { linkMaxExpirySeconds: 59 },
      { fileMaxExpirySeconds: 31_536_001 },
      { passwordMinLength: 201 },
      { linkRequireExpiry: 1 },
      { requestMaxBytes: true },
      { somethingElse: 1 },
    ]) {
      const response = await call(`/admin/accounts/${account.id}`, jsonInit(ADMIN, 'PATCH', { policy }));
      expect(response.status, JSON.stringify(policy)).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe('VALIDATION_ERROR');
    }
    const list = await call('/admin/accounts', { headers: ADMIN });
    const accounts = ((await list.json()) as { data: { accounts: { id: string; policy: unknown }[] } }).data.accounts;
    expect(accounts.find((item) => item.id === account.id)?.policy).toEqual({ linkRequirePassword: true });
  });
});

// The policy on file requests: each bound on each entry point (POST /requests, PATCH
// /requests/{id}), nothing made or changed on a violation, the default expiry brought within the
// bound, and requests made before a bound tightened left alone.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/worker';
import { type Env, expectViolation, newAccount, secondsUntil, send, setAccountPolicy } from './policy-helpers';

const DAY = 86_400;
const inDays = (days: number) => new Date(Date.now() + days * DAY * 1000).toISOString();

type Case = { bound: string; env: Env; body: Record<string, unknown>; details: [string, string, number][] };

const CREATES: Case[] = [
  {
    bound: 'requestMaxExpirySeconds: expiresIn past it',
    env: { REQUEST_MAX_EXPIRY_SECONDS: String(3 * DAY) },
    body: { expiresIn: 3 * DAY + 1 },
    details: [['expiresIn', 'requestMaxExpirySeconds', 3 * DAY]],
  },
  {
    bound: 'requestMaxExpirySeconds: expiresAt past it',
    env: { REQUEST_MAX_EXPIRY_SECONDS: String(3 * DAY) },
    body: { expiresAt: inDays(4) },
    details: [['expiresAt', 'requestMaxExpirySeconds', 3 * DAY]],
  },
  {
    bound: 'requestMaxBytes: over it',
    env: { REQUEST_MAX_BYTES: '1000000' },
    body: { maxBytes: 1_000_001 },
    details: [['maxBytes', 'requestMaxBytes', 1_000_000]],
  },
  {
    bound: 'requestMaxBytes: no maxBytes at all',
    env: { REQUEST_MAX_BYTES: '1000000' },
    body: { label: 'unbounded' },
    details: [['maxBytes', 'requestMaxBytes', 1_000_000]],
  },
  {
    bound: 'passwordMinLength',
    env: { PASSWORD_MIN_LENGTH: '8' },
    body: { password: 'short' },
    details: [['password', 'passwordMinLength', 8]],
  },
];

const CHANGES: Case[] = [
  {
    bound: 'requestMaxExpirySeconds',
    env: { REQUEST_MAX_EXPIRY_SECONDS: String(DAY) },
    body: { expiresIn: 2 * DAY },
    details: [['expiresIn', 'requestMaxExpirySeconds', DAY]],
  },
  {
    bound: 'requestMaxBytes: over it',
    env: { REQUEST_MAX_BYTES: '1000' },
    body: { maxBytes: 1001 },
    details: [['maxBytes', 'requestMaxBytes', 1000]],
  },
  {
    bound: 'requestMaxBytes: the limit removed',
    env: { REQUEST_MAX_BYTES: '1000' },
    body: { maxBytes: null },
    details: [['maxBytes', 'requestMaxBytes', 1000]],
  },
  {
    bound: 'passwordMinLength',
    env: { PASSWORD_MIN_LENGTH: '8' },
    body: { password: '1234567' },
    details: [['password', 'passwordMinLength', 8]],
  },
];

const asDetails = (details: Case['details']) => details.map(([field, rule, limit]) => ({ field, rule, limit }));

async function requestsOf(auth: Record<string, string>) {
  return (await send(auth, 'GET', '/requests', undefined)).body.data.requests as unknown[];
}

describe('POST /api/v2/requests under the policy', () => {
  for (const { bound, env, body, details } of CREATES) {
    it(`is 422 POLICY_VIOLATION for ${bound}, and makes no request`, async () => {
      const { auth } = await newAccount('requests');
      expectViolation(await send(auth, 'POST', '/requests', body, env), asDetails(details), bound);
      expect(await requestsOf(auth)).toEqual([]);
    });
  }

  it('makes a request that keeps to every bound', async () => {
    const { auth } = await newAccount('requests');
    const env = { REQUEST_MAX_EXPIRY_SECONDS: String(3 * DAY), REQUEST_MAX_BYTES: '1000000', PASSWORD_MIN_LENGTH: '8' };
    const made = await send(
      auth,
      'POST',
      '/requests',
      { maxBytes: 1_000_000, expiresIn: 3 * DAY, password: '12345678' },
      env,
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject({ maxBytes: 1_000_000, hasPassword: true });
  });

  it('stays open the default 7 days, or only as long as requestMaxExpirySeconds allows when it is shorter', async () => {
    const { auth } = await newAccount('requests');
    const plain = await send(auth, 'POST', '/requests', {});
    expect(secondsUntil(plain.body.data.expiresAt)).toBeGreaterThan(7 * DAY - 60);
    const bounded = await send(auth, 'POST', '/requests', {}, { REQUEST_MAX_EXPIRY_SECONDS: String(2 * DAY) });
    expect(bounded.status).toBe(201);
    const left = secondsUntil(bounded.body.data.expiresAt);
    expect(left).toBeGreaterThan(2 * DAY - 60);
    expect(left).toBeLessThanOrEqual(2 * DAY);
    const longer = await send(auth, 'POST', '/requests', {}, { REQUEST_MAX_EXPIRY_SECONDS: String(30 * DAY) });
    expect(secondsUntil(longer.body.data.expiresAt)).toBeLessThanOrEqual(7 * DAY);
  });

  it('follows the account’s own bounds', async () => {
    const { id, auth } = await newAccount('requests');
    await setAccountPolicy(id, { requestMaxBytes: 500 });
    expectViolation(await send(auth, 'POST', '/requests', { maxBytes: 501 }), [
      { field: 'maxBytes', rule: 'requestMaxBytes', limit: 500 },
    ]);
    expect((await send(auth, 'POST', '/requests', { maxBytes: 500 })).status).toBe(201);
  });
});

describe('PATCH /api/v2/requests/{id} under the policy', () => {
  for (const { bound, env, body, details } of CHANGES) {
    it(`is 422 POLICY_VIOLATION for ${bound}, and changes nothing`, async () => {
      const { auth } = await newAccount('requests');
      const made = await send(auth, 'POST', '/requests', { label: 'before', maxBytes: 500, expiresIn: 3600 });
      expect(made.status).toBe(201);
      const answer = await send(auth, 'PATCH', `/requests/${made.body.data.id}`, { ...body, label: 'after' }, env);
      expectViolation(answer, asDetails(details), bound);
      expect((await send(auth, 'GET', `/requests/${made.body.data.id}`, undefined)).body.data).toEqual(made.body.data);
    });
  }

  it('leaves a request made before a bound tightened alone: it takes changes of other fields, and closes and reopens', async () => {
    const { auth } = await newAccount('requests');
    const made = await send(auth, 'POST', '/requests', { label: 'old', password: 'abc', expiresIn: 30 * DAY });
    const tight = { REQUEST_MAX_BYTES: '1000', REQUEST_MAX_EXPIRY_SECONDS: String(DAY), PASSWORD_MIN_LENGTH: '10' };
    const path = `/requests/${made.body.data.id}`;
    // The bounds hold for a new request (and for a change of what they bound)…
    expect((await send(auth, 'POST', '/requests', { label: 'new' }, tight)).status).toBe(422);
    expect((await send(auth, 'PATCH', path, { password: 'abcdef' }, tight)).status).toBe(422);
    // …and the old one takes changes of everything else.
    const relabelled = await send(auth, 'PATCH', path, { label: 'renamed', maxFiles: 3 }, tight);
    expect(relabelled.status, JSON.stringify(relabelled.body)).toBe(200);
    expect(relabelled.body.data).toMatchObject({ label: 'renamed', maxBytes: null, hasPassword: true });
    expect(relabelled.body.data.expiresAt).toBe(made.body.data.expiresAt);
    expect((await send(auth, 'PATCH', path, { closed: true }, tight)).status).toBe(200);
    expect((await send(auth, 'PATCH', path, { closed: false }, tight)).status).toBe(200);
    // Its uploadUrl still takes files (it is open and unexpired).
    const form = new FormData();
    form.append('file', new File(['sent to an old request'], 'old.txt', { type: 'text/plain' }));
    const uploaded = await call(
      made.body.data.uploadUrl,
      {
        method: 'POST',
        body: form,
        headers: { Authorization: `Basic ${btoa(':abc')}` },
      },
      tight,
    );
    expect(uploaded.status).toBe(201);
  });
});

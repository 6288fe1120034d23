// Failed authentication is throttled per client address (AUTH_FAILURE_LIMIT per
// AUTH_FAILURE_WINDOW_SECONDS for API keys, a fifth of that for the admin token): past it the
// address's failures get 429. Good keys and the right admin token never reach the guard and are
// never refused by it.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { getConfig } from '../../src/config';
import { clientAddress } from '../../src/limiter/auth-guard-client';
import { revokeKey } from '../../src/storage/keys-repo';
import { awayFromWindowEdge, call, createKey, someAddress } from '../helpers/worker';

const BAD_KEY = `esk_${'A'.repeat(43)}`;
const from = (address: string, headers: Record<string, string> = {}) => ({
  headers: { 'CF-Connecting-IP': address, ...headers },
});

// An hour's window for the cases that count to the limit and go on past it: with the default
// minute (aligned to the clock) a loaded machine's thirty-odd requests could straddle a new window
// even when started 8 s before its end, and the failures would start counting again.
const HOUR_WINDOW = { AUTH_FAILURE_WINDOW_SECONDS: '3600' };

async function status(path: string, address: string, authorization?: string) {
  const headers = from(address, authorization ? { Authorization: authorization } : {});
  const response = await call(path, headers, HOUR_WINDOW);
  await response.body?.cancel();
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

describe('failed API keys from one address', () => {
  it('get 401 up to AUTH_FAILURE_LIMIT in a window, then 429 with Retry-After for its failures only', async () => {
    const address = someAddress();
    const good = await createKey('victim of its neighbour');
    await awayFromWindowEdge(3600);
    const seen = [];
    for (let i = 0; i < 20; i++) seen.push((await status('/api/v1/files', address, `Bearer ${BAD_KEY}`)).status);
    expect(seen).toEqual(Array(20).fill(401));
    // Garbage tokens count too; the 21st failure is refused.
    const blocked = await status('/api/v2/files', address, 'Bearer not-a-key');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.retryAfter)).toBeLessThanOrEqual(3600);
    const refused = await call('/api/v1/files', from(address, { Authorization: `Bearer ${BAD_KEY}` }), HOUR_WINDOW);
    const body = await refused.json<{ code: string }>();
    expect(body.code).toBe('RATE_LIMITED');
    // Only failures are refused: a valid key from the blocked address goes on, even one this
    // isolate has never seen (people behind one NAT must not lock each other out)…
    expect((await status('/api/v1/files', address, good.auth.Authorization)).status).toBe(200);
    expect((await status('/api/v2/files', address, 'Bearer not-a-key')).status).toBe(429);
    // …revoked keys are failures like any other…
    const revoked = await createKey('revoked behind the block');
    await revokeKey(env.DB, revoked.id, new Date().toISOString());
    expect((await status('/api/v1/files', address, revoked.auth.Authorization)).status).toBe(429);
    // …and a key already known valid (used before from anywhere) keeps working.
    const known = await createKey('known before the block');
    expect((await status('/api/v1/files', someAddress(), known.auth.Authorization)).status).toBe(200);
    expect((await status('/api/v1/files', address, known.auth.Authorization)).status).toBe(200);
    // Other addresses are untouched, and good keys from them work.
    expect((await status('/api/v1/files', someAddress(), `Bearer ${BAD_KEY}`)).status).toBe(401);
    expect((await status('/api/v1/files', someAddress(), good.auth.Authorization)).status).toBe(200);
  });

  it('does not count requests that carry no credentials at all', async () => {
    const address = someAddress();
    for (let i = 0; i < 25; i++) expect((await status('/api/v1/files', address)).status).toBe(401);
    expect((await status('/api/v1/files', address, `Bearer ${BAD_KEY}`)).status).toBe(401);
  });

  it('follows AUTH_FAILURE_LIMIT', async () => {
    const address = someAddress();
    const overrides = { AUTH_FAILURE_LIMIT: '2', ...HOUR_WINDOW };
    await awayFromWindowEdge(3600);
    const send = async () => {
      const response = await call('/api/v1/files', from(address, { Authorization: `Bearer ${BAD_KEY}` }), overrides);
      await response.body?.cancel();
      return response.status;
    };
    expect([await send(), await send(), await send()]).toEqual([401, 401, 429]);
  });
});

describe('failed admin tokens from one address', () => {
  it('get 401 up to a fifth of AUTH_FAILURE_LIMIT, then 429', async () => {
    const address = someAddress();
    await awayFromWindowEdge(3600);
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push((await status('/admin/keys', address, 'Bearer wrong-admin-token')).status);
    expect(seen).toEqual([401, 401, 401, 401, 429]);
    // The right token from that address still goes on (only failures are refused)…
    const right = `Bearer ${'test-admin-token-0123456789abcdefghij'}`;
    expect((await status('/admin/keys', address, right)).status).toBe(200);
    // …while wrong ones stay refused until the window ends.
    expect((await status('/admin/keys', address, 'Bearer wrong-admin-token')).status).toBe(429);
    expect((await status('/admin/keys', someAddress(), right)).status).toBe(200);
  });

  it('require ADMIN_TOKEN to be at least 32 characters: a shorter one turns the admin API off, nothing else', () => {
    const short = getConfig({ ADMIN_TOKEN: 'x'.repeat(31) });
    expect(short.ADMIN_TOKEN).toBeUndefined();
    expect(short.adminTokenProblem).toMatch(/ADMIN_TOKEN must be at least 32 characters/);
    expect(getConfig({ ADMIN_TOKEN: 'x'.repeat(32) }).ADMIN_TOKEN).toHaveLength(32);
  });
});

describe('clientAddress', () => {
  it('groups IPv6 clients by their /64 and keeps IPv4 addresses whole', () => {
    const of = (value?: string) => clientAddress(new Headers(value ? { 'CF-Connecting-IP': value } : {}));
    expect(of('198.51.100.7')).toBe('198.51.100.7');
    expect(of('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(of('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(of('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(of()).toBe('local');
  });
});

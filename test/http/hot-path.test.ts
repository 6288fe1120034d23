// The hot path: an authenticated read makes at most one Durable Object call and one D1 query.
// The bindings are wrapped in counting proxies (they still reach the real local D1, R2 and
// Durable Objects); a key's own object reading D1 on its side is not the request's query.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { KEY_STATE_MAX_AGE_MS } from '../../src/keys/key-material';
import { api, VERSIONS } from '../helpers/responses';
import { uploadOk } from '../helpers/upload';
import { call, countingNamespace, createKey, revokeKeyInDb, type TestEnv } from '../helpers/worker';

type Counts = { d1: number; durableObject: number; r2: number };

const RUNS = new Set(['first', 'all', 'run', 'raw']);

function countingD1(inner: D1Database, counts: Counts): D1Database {
  const statement = (target: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(target, {
      get(object, property) {
        const value = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        if (property === 'bind') return (...args: unknown[]) => statement(value.apply(object, args));
        if (RUNS.has(String(property))) counts.d1++;
        return value.bind(object);
      },
    });
  return new Proxy(inner, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      if (property === 'prepare') return (query: string) => statement(object.prepare(query));
      if (property === 'batch' || property === 'exec') counts.d1++;
      return value.bind(object);
    },
  });
}

function countingR2(inner: R2Bucket, counts: Counts): R2Bucket {
  return new Proxy(inner, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        counts.r2++;
        return value.apply(object, args);
      };
    },
  });
}

/** Bindings that count what one request asks of them. */
function counted(): { counts: Counts; overrides: Partial<TestEnv> } {
  const counts: Counts = { d1: 0, durableObject: 0, r2: 0 };
  return {
    counts,
    overrides: {
      DB: countingD1(env.DB, counts),
      KEY_LIMITER: countingNamespace(env.KEY_LIMITER, () => counts.durableObject++),
      AUTH_GUARD: countingNamespace(env.AUTH_GUARD, () => counts.durableObject++),
      // An upload's commit (and any further reserve) goes to the account's object directly.
      ACCOUNT_STORAGE: countingNamespace(env.ACCOUNT_STORAGE, () => counts.durableObject++),
      // Idempotency-Key is for writes only: a read never reaches the account's store.
      IDEMPOTENCY: countingNamespace(env.IDEMPOTENCY, () => counts.durableObject++),
      FILES: countingR2(env.FILES, counts),
    },
  };
}

describe.each(VERSIONS)('an authenticated read (%s)', (version) => {
  const reads = (id: string): [string, string][] => [
    ['get', `/files/${id}`],
    ['list', '/files?page=1&limit=10'],
    ['list, a later page', '/files?page=3&limit=1'],
    ['download', `/files/${id}/download`],
  ];

  it('makes at most one Durable Object call and one D1 query, once its isolate knows the key', async () => {
    const { auth } = await createKey();
    const file = await uploadOk(version, auth, { filename: 'hot.txt', content: 'hot path' });
    await uploadOk(version, auth, {});
    for (const [name, path] of reads(file.id)) {
      const { counts, overrides } = counted();
      const response = await call(api(version, path), { headers: auth }, overrides);
      expect(response.status, name).toBe(200);
      await response.arrayBuffer();
      expect({ name, d1: counts.d1, durableObject: counts.durableObject }).toEqual({ name, d1: 1, durableObject: 1 });
    }
  });
});

describe('v2 reads and changes (the key known to the isolate)', () => {
  const cost = async (auth: Record<string, string>, path: string, init: RequestInit = {}) => {
    const { counts, overrides } = counted();
    const response = await call(path, { ...init, headers: { ...auth, ...init.headers } }, overrides);
    expect(response.status, `${path}: ${await response.text()}`).toBe(200);
    return { d1: counts.d1, durableObject: counts.durableObject };
  };
  const json = (body: unknown): RequestInit => ({
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

  it('usage reads the account in the call that admits the request: one object call, no D1 query', async () => {
    const { auth } = await createKey();
    await uploadOk('v2', auth, {});
    expect(await cost(auth, '/api/v2/usage')).toEqual({ d1: 0, durableObject: 1 });
  });

  it('a raw PUT upload with a Content-Length is admitted holding its bytes: two object calls, no more than POST /upload', async () => {
    const { auth } = await createKey();
    await uploadOk('v2', auth, {});
    const content = 'x'.repeat(5000);
    const objectCalls = async (path: string, init: RequestInit) => {
      const { counts, overrides } = counted();
      const response = await call(path, { ...init, headers: { ...auth, ...init.headers } }, overrides);
      expect(response.status, `${path}: ${await response.text()}`).toBe(201);
      return counts.durableObject;
    };
    const form = new FormData();
    form.append('file', new File([content], 'form.txt', { type: 'text/plain' }));
    const posted = await objectCalls('/api/v2/upload', { method: 'POST', body: form });
    const put = await objectCalls('/api/v2/upload/raw.txt', {
      method: 'PUT',
      headers: { 'Content-Type': 'text/plain', 'Content-Length': String(content.length) },
      body: content,
    });
    // The call that admits it holds exactly the file's bytes, so only the commit follows: no
    // reservation on the way (which an unheld upload needs) and nothing left over to give back.
    expect(put).toBe(2);
    expect(put).toBeLessThanOrEqual(posted);
  });

  it('a searched or sorted list is one D1 query, like any list', async () => {
    const { auth } = await createKey();
    await uploadOk('v2', auth, {});
    for (const query of ['sort=size&order=asc', 'sort=name&page=2&limit=1', 'q=hello&sort=uploadedAt']) {
      expect(await cost(auth, `/api/v2/files?${query}`)).toEqual({ d1: 1, durableObject: 1 });
    }
  });

  it('a change is one D1 trip; an expiry change adds one call to the key’s account', async () => {
    const { auth } = await createKey();
    const file = await uploadOk('v2', auth, {});
    const path = `/api/v2/files/${file.id}`;
    expect(await cost(auth, path, json({ isPublic: false, originalName: 'x.txt' }))).toEqual({
      d1: 1,
      durableObject: 1,
    });
    expect(await cost(auth, path, json({ expiresIn: 3600 }))).toEqual({ d1: 1, durableObject: 2 });
  });
});

describe('the first request of a key in an isolate', () => {
  it('adds one D1 lookup of the key, and only then', async () => {
    const { auth } = await createKey();
    const first = counted();
    expect((await call('/api/v1/files', { headers: auth }, first.overrides)).status).toBe(200);
    expect(first.counts).toMatchObject({ d1: 2, durableObject: 1 });
    const second = counted();
    expect((await call('/api/v1/files', { headers: auth }, second.overrides)).status).toBe(200);
    expect(second.counts).toMatchObject({ d1: 1, durableObject: 1 });
  });
});

describe('a garbage or unknown token', () => {
  it('never reaches a key’s Durable Object, and costs at most one D1 lookup', async () => {
    for (const token of [`esk_${'Z'.repeat(43)}`, 'garbage', `esk_${'-'.repeat(60)}`]) {
      const { counts, overrides } = counted();
      const response = await call('/api/v2/files', { headers: { Authorization: `Bearer ${token}` } }, overrides);
      expect(response.status).toBe(401);
      // The only object called is the address's auth guard, counting the failure.
      expect(counts.durableObject, token).toBe(1);
      expect(counts.d1, token).toBeLessThanOrEqual(1);
    }
  });
});

describe('revocation', () => {
  it('takes effect on the very next request through the admin API path, although the isolate knows the key', async () => {
    const { id, auth } = await createKey();
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
    await revokeKeyInDb(id);
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(401);
    expect((await call('/api/v2/files', { headers: auth })).status).toBe(401);
  });

  it('made only in D1 (the key CLI) is in effect within KEY_STATE_MAX_AGE_MS', async () => {
    const { id, auth } = await createKey();
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
    await revokeKeyInDb(id, false);
    await new Promise((resolve) => setTimeout(resolve, KEY_STATE_MAX_AGE_MS + 50));
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(401);
  });
});

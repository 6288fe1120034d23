// The owner's routes: make, list, read, change, close; validation; another account's ids.
import { describe, expect, it } from 'vitest';
import { getRequest, makeRequest, newOwner, patchRequest, type RequestRecord } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { call, ORIGIN } from '../helpers/worker';

const DAY = 24 * 60 * 60 * 1000;

describe('POST /api/v2/requests', () => {
  it('answers 201 with the urls, the defaults (10 files, 7 days, private) and no counts', async () => {
    const { auth } = await newOwner();
    const before = Date.now();
    const request = await makeRequest(auth, { label: 'Invoices', message: 'Send me your invoices' });
    expect(request.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const token = request.url.replace(`${ORIGIN}/r/`, '');
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(token).not.toContain(request.id);
    expect(request.uploadUrl).toBe(`${ORIGIN}/api/v2/r/${token}/upload`);
    expect(request.tusUrl).toBe(`${ORIGIN}/api/v2/r/${token}/tus`);
    expect(request).toMatchObject({
      label: 'Invoices',
      message: 'Send me your invoices',
      maxFiles: 10,
      maxFileSize: null,
      maxBytes: null,
      allowedTypes: null,
      isPublic: false,
      hasPassword: false,
      fileCount: 0,
      bytes: 0,
      status: 'open',
      closedAt: null,
    });
    const expires = Date.parse(request.expiresAt) - before;
    expect(expires).toBeGreaterThanOrEqual(7 * DAY - 1000);
    expect(expires).toBeLessThanOrEqual(7 * DAY + 5000);
  });

  it('gives each request its own token of 192 random bits', async () => {
    const { auth } = await newOwner();
    const [a, b] = await Promise.all([makeRequest(auth), makeRequest(auth)]);
    expect(a?.url).not.toBe(b?.url);
  });

  it('takes the limits, an expiry, a password (never shown) and isPublic', async () => {
    const { auth } = await newOwner();
    const request = await makeRequest(auth, {
      maxFiles: 3,
      maxFileSize: 1000,
      maxBytes: 2500,
      allowedTypes: ['image/*', 'application/pdf'],
      expiresIn: 3600,
      password: 'open sesame',
      isPublic: true,
    });
    expect(request).toMatchObject({
      maxFiles: 3,
      maxFileSize: 1000,
      maxBytes: 2500,
      allowedTypes: ['image/*', 'application/pdf'],
      hasPassword: true,
      isPublic: true,
    });
    expect(JSON.stringify(request)).not.toContain('sesame');
    expect(Math.abs(Date.parse(request.expiresAt) - Date.now() - 3600_000)).toBeLessThan(5000);
  });

  it.each([
    [{ allowedTypes: ['application/x-msdownload'] }, 'allowedTypes'],
    [{ allowedTypes: ['*/*'] }, 'allowedTypes'],
    [{ allowedTypes: ['nonsense'] }, 'allowedTypes'],
    [{ maxFiles: 0 }, 'maxFiles'],
    [{ maxFiles: 1001 }, 'maxFiles'],
    [{ maxFileSize: 10 * 1024 ** 4 }, 'maxFileSize'],
    [{ expiresIn: 10 }, 'expiresIn'],
    [{ expiresIn: 60, expiresAt: '2030-01-01T00:00:00Z' }, 'expiresIn'],
    [{ expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    [{ unknown: true }, 'body'],
  ])('answers 400 VALIDATION_ERROR for %j', async (body, field) => {
    const { auth } = await newOwner();
    const response = await call('/api/v2/requests', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const error = await expectError(response, 400, 'VALIDATION_ERROR', 'v2');
    if (field !== 'body') expect(JSON.stringify(error.details)).toContain(field);
  });

  it('needs a key', async () => {
    const response = await call('/api/v2/requests', { method: 'POST', body: '{}' });
    await expectError(response, 401, 'UNAUTHORIZED', 'v2');
  });
});

describe('GET, PATCH and DELETE /api/v2/requests', () => {
  it('lists the account’s requests newest first, with pagination, and only its own', async () => {
    const owner = await newOwner();
    const other = await newOwner();
    const first = await makeRequest(owner.auth, { label: 'one' });
    const second = await makeRequest(owner.auth, { label: 'two' });
    await makeRequest(other.auth, { label: 'theirs' });
    const response = await call('/api/v2/requests?limit=1', { headers: owner.auth });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: { requests: RequestRecord[]; pagination: { total: number; hasMore: boolean } };
      _perf: number;
    };
    expect(body._perf).toBeGreaterThanOrEqual(0);
    expect(body.data.pagination).toMatchObject({ total: 2, hasMore: true });
    expect(body.data.requests.map((request) => request.id)).toEqual([second.id]);
    const all = (await (await call('/api/v2/requests', { headers: owner.auth })).json()) as {
      data: { requests: RequestRecord[] };
    };
    expect(all.data.requests.map((request) => request.id).sort()).toEqual([first.id, second.id].sort());
  });

  it('answers 404 REQUEST_NOT_FOUND for another account’s request, on every route', async () => {
    const owner = await newOwner();
    const other = await newOwner();
    const request = await makeRequest(owner.auth);
    for (const init of [
      { method: 'GET' },
      { method: 'DELETE' },
      { method: 'PATCH', body: JSON.stringify({ closed: true }), headers: { 'Content-Type': 'application/json' } },
    ]) {
      const response = await call(`/api/v2/requests/${request.id}`, {
        ...init,
        headers: { ...other.auth, ...(init.headers ?? {}) },
      });
      await expectError(response, 404, 'REQUEST_NOT_FOUND', 'v2');
    }
    const files = await call(`/api/v2/requests/${request.id}/files`, { headers: other.auth });
    await expectError(files, 404, 'REQUEST_NOT_FOUND', 'v2');
    expect((await getRequest(owner.auth, request.id)).status).toBe('open');
    for (const id of ['nope', 'A'.repeat(22)]) {
      await expectError(await call(`/api/v2/requests/${id}`, { headers: owner.auth }), 404, 'REQUEST_NOT_FOUND', 'v2');
    }
  });

  it('changes limits, closes with {"closed": true} and reopens with {"closed": false}', async () => {
    const { auth } = await newOwner();
    const request = await makeRequest(auth, { password: 'pw' });
    let response = await patchRequest(auth, request.id, { maxFiles: 2, label: null, password: null });
    expect(response.status).toBe(200);
    let changed = ((await response.json()) as { data: RequestRecord }).data;
    expect(changed).toMatchObject({ maxFiles: 2, label: null, hasPassword: false, status: 'open' });
    response = await patchRequest(auth, request.id, { closed: true });
    changed = ((await response.json()) as { data: RequestRecord }).data;
    expect(changed.status).toBe('closed');
    expect(changed.closedAt).not.toBeNull();
    response = await patchRequest(auth, request.id, { closed: false });
    changed = ((await response.json()) as { data: RequestRecord }).data;
    expect(changed).toMatchObject({ status: 'open', closedAt: null });
    await expectError(await patchRequest(auth, request.id, {}), 400, 'VALIDATION_ERROR', 'v2');
  });

  it('DELETE closes the request and keeps it readable', async () => {
    const { auth } = await newOwner();
    const request = await makeRequest(auth);
    const response = await call(`/api/v2/requests/${request.id}`, { method: 'DELETE', headers: auth });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: RequestRecord }).data.status).toBe('closed');
    expect((await getRequest(auth, request.id)).status).toBe('closed');
  });

  it('answers 405 with Allow for another method on a known path', async () => {
    const { auth } = await newOwner();
    const response = await call('/api/v2/requests', { method: 'DELETE', headers: auth });
    await expectError(response, 405, 'METHOD_NOT_ALLOWED', 'v2');
    expect(response.headers.get('allow')).toBe('GET, POST');
  });
});

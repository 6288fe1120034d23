// Password-protected requests: HTTP Basic with an empty user name, hashed with PBKDF2, throttled.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { basic, makeRequest, newOwner, patchRequest, receivedRows, send, textFile, tokenOf } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { base64, OCTETS, TUS } from '../helpers/tus';
import { call, inOneHourWindow } from '../helpers/worker';

describe('a request with a password', () => {
  it('stores only a PBKDF2-SHA-256 hash (100,000 iterations, salted)', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'correct horse' });
    const row = await env.DB.prepare('SELECT password_hash FROM file_requests WHERE id = ?1')
      .bind(request.id)
      .first<{ password_hash: string }>();
    expect(row?.password_hash).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(row?.password_hash).not.toContain('horse');
  });

  it('answers 401 PASSWORD_REQUIRED with WWW-Authenticate: Basic without it or with a wrong one, on every path', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'pw-1' });
    const token = tokenOf(request);
    for (const headers of [{}, basic('wrong'), { Authorization: 'Bearer esk_x' }]) {
      const responses = [
        await send(request, [textFile()], { headers }),
        await call(`/api/v2/r/${token}`, { headers }),
        await call(request.tusUrl, {
          method: 'POST',
          headers: { ...TUS, ...headers, 'Upload-Length': '5', 'Upload-Metadata': `filename ${base64('a.txt')}` },
        }),
      ];
      for (const response of responses) {
        await expectError(response, 401, 'PASSWORD_REQUIRED', 'v2');
        expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="file request"/);
      }
    }
    expect(await receivedRows(request.id)).toHaveLength(0);
  });

  it('leaves the Basic challenge out for a page’s own script (no browser password dialog over the page)', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'pw-7' });
    const fromScript = await call(`/api/v2/r/${tokenOf(request)}`, { headers: { 'Sec-Fetch-Mode': 'cors' } });
    await expectError(fromScript, 401, 'PASSWORD_REQUIRED', 'v2');
    expect(fromScript.headers.get('www-authenticate')).toBeNull();
    const navigation = await call(`/api/v2/r/${tokenOf(request)}`, { headers: { 'Sec-Fetch-Mode': 'navigate' } });
    expect(navigation.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('takes the right one as HTTP Basic with an empty user name, for multipart and tus alike', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'pw-2 ünïcode' });
    const auth = { Authorization: `Basic ${base64(':pw-2 ünïcode')}` };
    expect((await send(request, [textFile()], { headers: auth })).status).toBe(201);
    const created = await call(request.tusUrl, {
      method: 'POST',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Length': '5', 'Upload-Metadata': `filename ${base64('t.txt')}` },
      body: 'hello',
    });
    expect(created.status).toBe(201);
    expect(await receivedRows(request.id)).toHaveLength(2);
  });

  it('takes a non-ASCII password sent as Latin-1 (Python requests) as it takes UTF-8', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'clé-été' });
    // btoa of a string whose characters are all below U+0100 is exactly the Latin-1 bytes.
    const latin1 = { Authorization: `Basic ${btoa(':clé-été')}` };
    expect((await send(request, [textFile()], { headers: latin1 })).status).toBe(201);
    expect(
      (await send(request, [textFile()], { headers: { Authorization: `Basic ${btoa(':cle-ete')}` } })).status,
    ).toBe(401);
  });

  it('no longer asks once the owner removes it', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'pw-3' });
    await patchRequest(owner.auth, request.id, { password: null });
    expect((await send(request, [textFile()])).status).toBe(201);
  });

  it('throttles wrong passwords per address, then per request (429 before any check)', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'pw-4' });
    // Both sequences count in one window.
    const limits = await inOneHourWindow('AUTH_FAILURE_WINDOW_SECONDS', { REQUEST_PASSWORD_FAILURE_LIMIT: '3' });
    const address = { 'CF-Connecting-IP': '198.51.100.9' };
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await send(request, [textFile()], { headers: { ...address, ...basic('nope') }, env: limits });
      await expectError(response, 401, 'PASSWORD_REQUIRED', 'v2');
    }
    // Even the right password waits now, from this address.
    const blocked = await send(request, [textFile()], { headers: { ...address, ...basic('pw-4') }, env: limits });
    await expectError(blocked, 429, 'RATE_LIMITED', 'v2');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);

    // Per request: guesses spread over addresses are stopped too.
    const other = await makeRequest(owner.auth, { password: 'pw-5' });
    for (let attempt = 0; attempt < 3; attempt++) {
      await expectError(
        await send(other, [textFile()], { headers: basic(`guess${attempt}`), env: limits }),
        401,
        'PASSWORD_REQUIRED',
        'v2',
      );
    }
    await expectError(
      await send(other, [textFile()], { headers: basic('pw-5'), env: limits }),
      429,
      'RATE_LIMITED',
      'v2',
    );
    // A missing password counts nothing.
    const third = await makeRequest(owner.auth, { password: 'pw-6' });
    for (let attempt = 0; attempt < 5; attempt++) {
      await expectError(await send(third, [textFile()], { env: limits }), 401, 'PASSWORD_REQUIRED', 'v2');
    }
    expect((await send(third, [textFile()], { headers: basic('pw-6'), env: limits })).status).toBe(201);
  });

  it('lets no blocked guesser through with a password someone else already used', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'pw-8' });
    const limits = await inOneHourWindow('AUTH_FAILURE_WINDOW_SECONDS', { REQUEST_PASSWORD_FAILURE_LIMIT: '3' });
    // An uploader proves the password (this isolate remembers it), then a guesser elsewhere is
    // stopped: its right guess must be refused like any other, or 429 versus 201 tells it.
    const uploader = { 'CF-Connecting-IP': '198.51.100.21' };
    expect(
      (await send(request, [textFile()], { headers: { ...uploader, ...basic('pw-8') }, env: limits })).status,
    ).toBe(201);
    const guesser = { 'CF-Connecting-IP': '198.51.100.22' };
    for (let attempt = 0; attempt < 3; attempt++) {
      const wrong = await send(request, [textFile()], {
        headers: { ...guesser, ...basic(`g${attempt}`) },
        env: limits,
      });
      await expectError(wrong, 401, 'PASSWORD_REQUIRED', 'v2');
    }
    const guessed = await send(request, [textFile()], { headers: { ...guesser, ...basic('pw-8') }, env: limits });
    await expectError(guessed, 429, 'RATE_LIMITED', 'v2');
    // The uploader who proved it goes on (others' wrong guesses do not stop an upload under way).
    expect(
      (await send(request, [textFile()], { headers: { ...uploader, ...basic('pw-8') }, env: limits })).status,
    ).toBe(201);
    expect(await receivedRows(request.id)).toHaveLength(2);
  });
});

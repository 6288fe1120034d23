// Passwords stored before share links and file requests shared one password module keep working:
// the rows below hold exactly what the earlier code stored (a link's three columns, a request's
// `pbkdf2-sha256$…` string), made with known salts so the hashes can be written down here.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { basic, makeLink, owner, pathOf } from '../helpers/links';
import { makeRequest, newOwner, send, textFile, tokenOf } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { PNG_1X1 } from '../helpers/upload';
import { call } from '../helpers/worker';

/** A link's columns as src/links/password.ts stored them (PBKDF2-SHA-256, 100,000 iterations). */
const LINK_ROW = {
  password: 'link made before 2025',
  hash: 'OkhI26ffXOQNSPaA5N9QxCOM65r-tCZQORzdyQg4wfE',
  salt: 'AAECAwQFBgcICQoLDA0ODw',
  iterations: 100_000,
};
/** An older, cheaper count: the count stored with a hash is the one used. */
const CHEAP_ROW = {
  password: 'older, cheaper hash',
  hash: 'ZYTRWG024eN132brJwt5TX1YBg9bpLtai_gDrLguwgg',
  salt: 'ERERERERERGqqqqqqqqqqg',
  iterations: 1000,
};
/** A request's column as src/requests/password.ts stored it. */
const REQUEST_ROW = {
  password: 'request made before',
  text: 'pbkdf2-sha256$100000$8OHSw7Sllod4aVpLPC0eDw$0B7emnJMQV67wUwDtnTmHOj7AZnVRINR1__fo_f3FPk',
};

const FILE = { filename: 'kept.png', type: 'image/png', content: PNG_1X1 as unknown as string };
const someAddress = () => ({ 'CF-Connecting-IP': `203.0.113.${Math.floor(Math.random() * 250) + 1}` });

async function linkWithStoredRow(row: { hash: string; salt: string; iterations: number }) {
  const file = await owner(FILE, 'false');
  const link = await makeLink(file.auth, file.fileId, { password: 'replaced below' });
  await env.DB.prepare(
    'UPDATE share_links SET password_hash = ?2, password_salt = ?3, password_iterations = ?4 WHERE id = ?1',
  )
    .bind(link.id, row.hash, row.salt, row.iterations)
    .run();
  return pathOf(link);
}

async function requestWithStoredHash(text: string) {
  const request = await makeRequest((await newOwner()).auth, { password: 'replaced below' });
  await env.DB.prepare('UPDATE file_requests SET password_hash = ?2 WHERE id = ?1').bind(request.id, text).run();
  return request;
}

describe('passwords stored by the earlier code', () => {
  it('open a link stored as hash, salt and iterations: HTTP Basic, the form and its grant', async () => {
    for (const row of [LINK_ROW, CHEAP_ROW]) {
      const path = await linkWithStoredRow(row);
      const download = await call(`${path}/download`, { headers: basic(row.password) });
      expect(download.status).toBe(200);
      expect(new Uint8Array(await download.arrayBuffer())).toEqual(PNG_1X1);
      expect((await call(`${path}/download`, { headers: { ...basic('not it'), ...someAddress() } })).status).toBe(401);
      const form = await call(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password: row.password }).toString(),
        redirect: 'manual',
      });
      expect(form.status).toBe(303);
      const grant = (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect((await call(`${path}/view`, { headers: { Cookie: grant } })).status).toBe(200);
    }
  });

  it('open a request stored as one pbkdf2-sha256 string, for its description and its uploads', async () => {
    const request = await requestWithStoredHash(REQUEST_ROW.text);
    const auth = basic(REQUEST_ROW.password);
    expect((await call(`/api/v2/r/${tokenOf(request)}`, { headers: auth })).status).toBe(200);
    expect((await send(request, [textFile()], { headers: auth })).status).toBe(201);
    await expectError(
      await send(request, [textFile()], { headers: { ...basic('not it'), ...someAddress() } }),
      401,
      'PASSWORD_REQUIRED',
      'v2',
    );
  });

  it('never match when damaged, and never answer 500', async () => {
    const [, iterations, salt, hash] = REQUEST_ROW.text.split('$');
    for (const damaged of [
      `pbkdf2-sha256$${iterations}$!!!!$${hash}`,
      `pbkdf2-sha256$many$${salt}$${hash}`,
      `pbkdf2-sha256$0$${salt}$${hash}`,
      `scrypt$${iterations}$${salt}$${hash}`,
      `pbkdf2-sha256$${iterations}$${salt}`,
    ]) {
      const request = await requestWithStoredHash(damaged);
      const response = await call(`/api/v2/r/${tokenOf(request)}`, {
        headers: { ...basic(REQUEST_ROW.password), ...someAddress() },
      });
      await expectError(response, 401, 'PASSWORD_REQUIRED', 'v2');
    }
  });
});

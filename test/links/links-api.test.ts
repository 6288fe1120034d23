import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expireLink, json, LINK_FIELDS, type LinkRecord, makeLink, owner, readLink } from '../helpers/links';
import { type ErrorBody, ISO_MS } from '../helpers/records';
import { call, createKey } from '../helpers/worker';

describe('POST /api/v2/files/{id}/links', () => {
  it('makes a link: 201 with exactly the record fields, a 256-bit token and the site URL', async () => {
    const { auth, fileId } = await owner();
    const response = await call(
      `/api/v2/files/${fileId}/links`,
      json({ label: 'for Ana', maxDownloads: 5, expiresIn: 3600 }, auth),
    );
    expect(response.status).toBe(201);
    const body = (await response.json()) as { success: boolean; data: LinkRecord; _perf: number };
    expect(body.success).toBe(true);
    expect(Number.isInteger(body._perf)).toBe(true);
    const link = body.data;
    expect(Object.keys(link).sort()).toEqual(LINK_FIELDS);
    expect(link).toMatchObject({
      fileId,
      collectionId: null,
      label: 'for Ana',
      hasPassword: false,
      maxDownloads: 5,
      downloadCount: 0,
      lastDownloadedAt: null,
      status: 'active',
    });
    expect(link.id).toMatch(/^lnk_[A-Za-z0-9_-]{22}$/);
    expect(link.url).toMatch(/^http:\/\/edgeshare\.test\/share\/[A-Za-z0-9_-]{43}$/);
    expect(link.url).not.toContain(link.id.slice(4));
    expect(link.url).not.toContain(fileId);
    expect(link.createdAt).toMatch(ISO_MS);
    expect(Date.parse(link.expiresAt ?? '') - Date.parse(link.createdAt)).toBe(3_600_000);
  });

  it('makes a plain link from an empty body, and every link gets its own token', async () => {
    const { auth, fileId } = await owner();
    const a = await makeLink(auth, fileId);
    const b = await makeLink(auth, fileId);
    expect(a).toMatchObject({ label: null, maxDownloads: null, expiresAt: null, hasPassword: false, status: 'active' });
    expect(a.url).not.toBe(b.url);
  });

  it('uses SITE_URL for the link URL when set', async () => {
    const { auth, fileId } = await owner();
    const response = await call(`/api/v2/files/${fileId}/links`, json({}, auth), { SITE_URL: 'https://share.example' });
    const link = ((await response.json()) as { data: LinkRecord }).data;
    expect(link.url).toMatch(/^https:\/\/share\.example\/share\//);
  });

  it.each([
    [{ maxDownloads: 0 }, 'maxDownloads'],
    [{ maxDownloads: 1.5 }, 'maxDownloads'],
    [{ maxDownloads: '3' }, 'maxDownloads'],
    [{ expiresIn: 10 }, 'expiresIn'],
    [{ expiresIn: 60, expiresAt: '2099-01-01T00:00:00Z' }, 'expiresIn'],
    [{ expiresAt: '2000-01-01T00:00:00Z' }, 'expiresAt'],
    [{ expiresAt: 'tomorrow' }, 'expiresAt'],
    [{ password: '' }, 'password'],
    [{ label: 'x'.repeat(201) }, 'label'],
    [{ colour: 'red' }, 'body'],
  ])('answers 400 VALIDATION_ERROR for %j', async (body, field) => {
    const { auth, fileId } = await owner();
    const response = await call(`/api/v2/files/${fileId}/links`, json(body, auth));
    expect(response.status).toBe(400);
    const error = (await response.json()) as ErrorBody;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(Number.isInteger(error._perf)).toBe(true);
    expect(error.details?.map((detail) => detail.field).join(' ')).toContain(field === 'body' ? '' : field);
  });

  it('answers 400 VALIDATION_ERROR for malformed JSON', async () => {
    const { auth, fileId } = await owner();
    const response = await call(`/api/v2/files/${fileId}/links`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"label":',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).code).toBe('VALIDATION_ERROR');
  });

  it("answers another account's file exactly like an unknown one: 404 FILE_NOT_FOUND", async () => {
    const { fileId } = await owner();
    const other = await createKey('other');
    const theirs = await call(`/api/v2/files/${fileId}/links`, json({}, other.auth));
    const unknown = await call('/api/v2/files/AAAAAAAAAAAAAAAAAAAAAA/links', json({}, other.auth));
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    const strip = ({ requestId: _r, _perf: _p, ...rest }: ErrorBody & { requestId?: string }) => rest;
    expect(strip((await theirs.json()) as ErrorBody)).toEqual(strip((await unknown.json()) as ErrorBody));
    const listed = await call(`/api/v2/files/${fileId}/links`, { headers: other.auth });
    expect(listed.status).toBe(404);
  });

  it('needs a key', async () => {
    const { fileId } = await owner();
    const response = await call(`/api/v2/files/${fileId}/links`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
  });

  it('needs links:write to make, change and revoke links, and files:read to read them', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const keyWith = async (scopes: string[]) => {
      const response = await call('/api/v2/keys', json({ name: scopes.join(' '), scopes }, auth));
      expect(response.status).toBe(201);
      return { Authorization: `Bearer ${((await response.json()) as { data: { key: string } }).data.key}` };
    };
    const forbidden = async (response: Response, scope: string) => {
      const body = (await response.json()) as ErrorBody;
      expect({ status: response.status, code: body.code, details: body.details }).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        details: [{ scope }],
      });
    };
    const reader = await keyWith(['files:read']);
    expect((await call(`/api/v2/files/${fileId}/links`, { headers: reader })).status).toBe(200);
    expect((await call(`/api/v2/links/${link.id}`, { headers: reader })).status).toBe(200);
    await forbidden(await call(`/api/v2/files/${fileId}/links`, json({}, reader)), 'links:write');
    await forbidden(await call(`/api/v2/links/${link.id}`, json({ label: 'x' }, reader, 'PATCH')), 'links:write');
    await forbidden(await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: reader }), 'links:write');
    const writer = await keyWith(['links:write']);
    await forbidden(await call(`/api/v2/files/${fileId}/links`, { headers: writer }), 'files:read');
    await forbidden(await call(`/api/v2/links/${link.id}`, { headers: writer }), 'files:read');
    expect((await call(`/api/v2/files/${fileId}/links`, json({}, writer))).status).toBe(201);
    expect((await call(`/api/v2/links/${link.id}`, json({ label: 'x' }, writer, 'PATCH'))).status).toBe(200);
    expect((await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: writer })).status).toBe(200);
  });

  it('is not part of v1', async () => {
    const { auth, fileId } = await owner();
    const response = await call(`/api/v1/files/${fileId}/links`, json({}, auth));
    expect(response.status).toBe(404);
  });
});

describe('GET /api/v2/files/{id}/links and /api/v2/links/{linkId}', () => {
  it('lists a file’s links newest first, revoked ones included', async () => {
    const { auth, fileId } = await owner();
    const first = await makeLink(auth, fileId, { label: 'one' });
    const second = await makeLink(auth, fileId, { label: 'two' });
    await call(`/api/v2/links/${first.id}`, { method: 'DELETE', headers: auth });
    const response = await call(`/api/v2/files/${fileId}/links`, { headers: auth });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { links: LinkRecord[] } };
    expect(data.links.map((link) => [link.id, link.status])).toEqual([
      [second.id, 'active'],
      [first.id, 'revoked'],
    ]);
  });

  it('reads one link', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId, { label: 'mine' });
    expect(await readLink(auth, link.id)).toEqual(link);
  });

  it("answers another account's link id exactly like an unknown one: 404 LINK_NOT_FOUND, on every method", async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const other = await createKey('other');
    const strip = async (response: Response) => {
      const { requestId: _r, _perf: _p, ...rest } = (await response.json()) as ErrorBody & { requestId?: string };
      return { status: response.status, ...rest };
    };
    for (const init of [
      { headers: other.auth },
      json({ label: 'x' }, other.auth, 'PATCH'),
      { method: 'DELETE', headers: other.auth },
    ]) {
      const theirs = await strip(await call(`/api/v2/links/${link.id}`, init));
      const unknown = await strip(await call('/api/v2/links/lnk_AAAAAAAAAAAAAAAAAAAAAA', init));
      const malformed = await strip(await call('/api/v2/links/nope', init));
      expect(theirs).toEqual({ status: 404, error: 'Link not found', code: 'LINK_NOT_FOUND' });
      expect(unknown).toEqual(theirs);
      expect(malformed).toEqual(theirs);
    }
    expect((await readLink(auth, link.id)).status).toBe('active');
  });

  it('answers 405 with Allow for another method on a link path', async () => {
    const { auth } = await owner();
    const response = await call('/api/v2/links/lnk_AAAAAAAAAAAAAAAAAAAAAA', { method: 'PUT', headers: auth });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('PATCH');
  });
});

describe('PATCH and DELETE /api/v2/links/{linkId}', () => {
  it('changes only the fields sent; null clears them', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId, { label: 'a', maxDownloads: 2, expiresIn: 600, password: 'sesame' });
    const response = await call(`/api/v2/links/${link.id}`, json({ label: null, maxDownloads: 10 }, auth, 'PATCH'));
    expect(response.status).toBe(200);
    const changed = ((await response.json()) as { data: LinkRecord }).data;
    expect(changed).toMatchObject({ label: null, maxDownloads: 10, expiresAt: link.expiresAt, hasPassword: true });
    const cleared = await call(
      `/api/v2/links/${link.id}`,
      json({ password: null, maxDownloads: null, expiresAt: null }, auth, 'PATCH'),
    );
    expect(((await cleared.json()) as { data: LinkRecord }).data).toMatchObject({
      hasPassword: false,
      maxDownloads: null,
      expiresAt: null,
    });
  });

  it('answers 400 for an empty change', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const response = await call(`/api/v2/links/${link.id}`, json({}, auth, 'PATCH'));
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).code).toBe('VALIDATION_ERROR');
  });

  it('revokes: 200 with status revoked, again no error, and PATCH never revives it', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const first = await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth });
    expect(first.status).toBe(200);
    expect(((await first.json()) as { data: LinkRecord }).data.status).toBe('revoked');
    const again = await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth });
    expect(again.status).toBe(200);
    await call(`/api/v2/links/${link.id}`, json({ maxDownloads: 5 }, auth, 'PATCH'));
    expect((await readLink(auth, link.id)).status).toBe('revoked');
  });

  it('shows status expired once the link’s own expiry passed', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId, { expiresIn: 60 });
    await expireLink(link.id);
    expect((await readLink(auth, link.id)).status).toBe('expired');
  });
});

describe('links per file', () => {
  it('refuses the 101st link to one file with 400 TOO_MANY_LINKS', async () => {
    const { auth, fileId } = await owner();
    const now = new Date().toISOString();
    const insert = env.DB.prepare(
      `INSERT INTO share_links (id, file_id, account_id, token, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)`,
    );
    const { id: accountId } = (await env.DB.prepare('SELECT account_id AS id FROM files WHERE id = ?1')
      .bind(fileId)
      .first<{ id: string }>()) ?? { id: '' };
    await env.DB.batch(
      Array.from({ length: 100 }, (_, i) =>
        insert.bind(`lnk_seed${String(i).padStart(18, '0')}`, fileId, accountId, `${fileId}-${i}`, now),
      ),
    );
    const response = await call(`/api/v2/files/${fileId}/links`, json({}, auth));
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).code).toBe('TOO_MANY_LINKS');
  });
});

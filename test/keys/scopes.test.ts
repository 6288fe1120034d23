// Scopes, route by route. The table is the app's own route list: every route under /api declares
// what it needs where it is defined (requires()), so a new route that forgets its scope fails
// here, and each declared scope is checked against the real route with a key that lacks it.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { needsOf } from '../../src/http/route-needs';
import { newKeyMaterial } from '../../src/keys/key-material';
import { SCOPES, type Scope } from '../../src/limiter/scopes';
import { insertKey } from '../../src/storage/keys-repo';
import type { ErrorBody } from '../helpers/records';
import { uploadOk } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

type Route = { method: string; path: string; scope: Scope | null | undefined; isPublic: boolean };

/** Every method-specific route the app serves under /api, with the needs it declares. */
function apiRoutes(): Route[] {
  const routes = new Map<string, Route>();
  for (const route of createApp().routes) {
    if (!route.path.startsWith('/api/') || route.method === 'ALL' || route.path.endsWith('/openapi.json')) continue;
    const id = `${route.method} ${route.path}`;
    // A route is registered as its middleware then its handler: the declaration comes first.
    if (!routes.has(id))
      routes.set(id, {
        method: route.method,
        path: route.path,
        scope: needsOf(route.handler)?.scope,
        isPublic: needsOf(route.handler)?.public === true,
      });
  }
  return [...routes.values()];
}

/** A key of its own account holding every scope but `missing`. */
async function keyWithout(missing: Scope) {
  const material = await newKeyMaterial();
  const scopes = SCOPES.filter((scope) => scope !== missing);
  await insertKey(env.DB, { ...material, name: `without ${missing}` }, {}, new Date().toISOString(), {
    scopes: JSON.stringify(scopes),
  });
  return { id: material.id, auth: { Authorization: `Bearer ${material.key}` } };
}

const FILE_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, FILE_ID);

describe('every API route', () => {
  const routes = apiRoutes();

  it('declares the scope it needs where it is defined', () => {
    expect(routes.length).toBeGreaterThan(15);
    const undeclared = routes.filter((route) => route.scope === undefined).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
  });

  it('knows the contract’s scopes for the routes that exist today', () => {
    const scopeOf = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)?.scope;
    expect(scopeOf('GET', '/api/v1/files')).toBe('files:read');
    expect(scopeOf('GET', '/api/v2/files/:id/download')).toBe('files:read');
    expect(scopeOf('GET', '/api/v2/usage')).toBe('files:read');
    expect(scopeOf('POST', '/api/v1/upload')).toBe('files:write');
    expect(scopeOf('POST', '/api/v2/upload/bulk')).toBe('files:write');
    expect(scopeOf('PATCH', '/api/v2/files/:id')).toBe('files:write');
    expect(scopeOf('POST', '/api/v2/uploads')).toBe('files:write');
    expect(scopeOf('PATCH', '/api/v2/uploads/:id')).toBe('files:write');
    expect(scopeOf('DELETE', '/api/v1/files/:id')).toBe('files:delete');
    expect(scopeOf('DELETE', '/api/v2/files/bulk')).toBe('files:delete');
    expect(scopeOf('POST', '/api/v2/keys')).toBe('keys:write');
    expect(scopeOf('DELETE', '/api/v2/keys/:keyId')).toBe('keys:write');
  });

  it('declares public (no key) only the file request paths and the abuse report, which answer without a key', async () => {
    const open = routes.filter((route) => route.isPublic);
    expect(open.length).toBeGreaterThan(0);
    expect(open.filter((route) => route.path === '/api/v2/reports').map((route) => route.method)).toEqual(['POST']);
    for (const route of open) {
      const reportOrRequest = route.path === '/api/v2/reports' || route.path.startsWith('/api/v2/r/:token');
      expect(reportOrRequest, route.path).toBe(true);
      expect(route.scope).toBeNull();
      // No key: never a 401, whatever the (unknown) token gets.
      const response = await call(concrete(route.path), {
        method: route.method,
        headers: { 'Content-Type': 'application/json', 'Tus-Resumable': '1.0.0', 'Upload-Length': '1' },
        body: route.method === 'GET' || route.method === 'HEAD' ? undefined : '{}',
      });
      expect(response.status, `${route.method} ${route.path}`).not.toBe(401);
    }
    // Every other path under /api/v2/r/ is public too: nothing there asks for a key.
    expect(routes.filter((route) => route.path.startsWith('/api/v2/r/') && !route.isPublic)).toEqual([]);
  });

  it('puts every owner route of file requests under requests:write, reads included (but the access log)', () => {
    const owned = routes.filter((route) => route.path.startsWith('/api/v2/requests'));
    expect(owned.length).toBeGreaterThanOrEqual(6);
    for (const route of owned) {
      // Every access log is read with files:read, a file request's as a link's (the spec).
      const scope = route.path.endsWith('/access') ? 'files:read' : 'requests:write';
      expect(route.scope, `${route.method} ${route.path}`).toBe(scope);
    }
    expect(owned.filter((route) => route.path.endsWith('/access'))).toHaveLength(1);
  });

  const scoped = routes.filter((route): route is Route & { scope: Scope } => typeof route.scope === 'string');
  it.each(scoped.map((route) => [route.method, route.path, route.scope] as const))(
    '%s %s answers 403 FORBIDDEN naming %s to a key without it',
    async (method, path, scope) => {
      const key = await keyWithout(scope);
      const response = await call(concrete(path), {
        method,
        headers: { ...key.auth, 'Content-Type': 'application/json', 'Tus-Resumable': '1.0.0' },
        body: method === 'GET' || method === 'HEAD' ? undefined : '{}',
      });
      const body = (await response.json()) as ErrorBody;
      expect({ status: response.status, code: body.code, details: body.details }).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        details: [{ scope }],
      });
      // Counted like any request of a valid key, and told so.
      expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    },
  );
});

describe('a refusal for a missing scope', () => {
  it('has no effect: nothing deleted, nothing stored, no bytes held', async () => {
    const owner = await createKey('owner');
    const file = await uploadOk('v1', owner.auth, { filename: 'keep.txt', content: 'keep me' });
    const noDelete = await keyWithout('files:delete');
    await env.DB.prepare('UPDATE api_keys SET account_id = ?1 WHERE id = ?2').bind(owner.id, noDelete.id).run();
    const deleted = await call(`/api/v1/files/${file.id}`, { method: 'DELETE', headers: noDelete.auth });
    expect(deleted.status).toBe(403);
    const bulk = await call('/api/v2/files/bulk', {
      method: 'DELETE',
      headers: { ...noDelete.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ids: [file.id] }),
    });
    expect(bulk.status).toBe(403);
    expect((await call(`/api/v1/files/${file.id}`, { headers: owner.auth })).status).toBe(200);

    const reader = await keyWithout('files:write');
    const body = new FormData();
    body.append('file', new File(['never stored'], 'no.txt', { type: 'text/plain' }));
    const upload = await call('/api/v1/upload', { method: 'POST', headers: reader.auth, body });
    expect(upload.status).toBe(403);
    const usage = await env.ACCOUNT_STORAGE.getByName(reader.id).usage({ accountId: reader.id });
    expect(usage).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    expect((await env.FILES.list({ prefix: `files/${reader.id}/` })).objects).toEqual([]);
  });

  it('is not a 401, and a key made before scopes (NULL) holds every scope', async () => {
    const legacy = await createKey('legacy');
    const row = await env.DB.prepare('SELECT scopes FROM api_keys WHERE id = ?1').bind(legacy.id).first();
    expect(row).toEqual({ scopes: null });
    for (const path of ['/api/v1/files', '/api/v2/usage', '/api/v2/keys']) {
      expect((await call(path, { headers: legacy.auth })).status, path).toBe(200);
    }
    const noRead = await keyWithout('files:read');
    const refused = await call('/api/v2/files', { headers: noRead.auth });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBeNull();
    // Unknown paths and wrong methods need no scope: 404 and 405 as before.
    expect((await call('/api/v2/nowhere', { headers: noRead.auth })).status).toBe(404);
    expect((await call('/api/v2/usage', { method: 'POST', headers: noRead.auth })).status).toBe(405);
  });
});

// OAuth 2.1 for MCP clients, through the Worker's fetch: the metadata documents, dynamic client
// registration, the PKCE code flow with the authorize page, tokens on /mcp acting as the key they
// were granted with (its rate limit, only the granted scopes), grants listed and revoked, and
// bearer API keys as before.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { newKeyMaterial } from '../../src/keys/key-material';
import { SCOPES, type Scope } from '../../src/limiter/scopes';
import { insertKey } from '../../src/storage/keys-repo';
import { createKey, revokeKeyInDb } from '../helpers/worker';
import {
  at,
  authorizePath,
  exchangeCode,
  grantTokens,
  HTTPS_ORIGIN,
  mcpPost,
  pkce,
  REDIRECT_URI,
  registerClient,
  submitAuthorize,
} from './oauth-helpers';

/** A key of its own account holding only `scopes`. */
async function keyWith(scopes: Scope[]) {
  const material = await newKeyMaterial();
  await insertKey(env.DB, { ...material, name: 'scoped' }, {}, new Date().toISOString(), {
    scopes: JSON.stringify(scopes),
  });
  return { id: material.id, key: material.key, auth: { Authorization: `Bearer ${material.key}` } };
}

type Grant = { id: string; clientId: string; clientName: string; scopes: string[]; createdAt: string };

async function grantsOf(auth: Record<string, string>) {
  const response = await at('/api/v2/oauth/grants', { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { grants: Grant[] } }).data.grants;
}

type RpcAnswer = { result?: { tools?: { name: string }[]; isError?: boolean; structuredContent?: { code?: string } } };

describe('OAuth metadata', () => {
  it('serves the authorization server metadata (RFC 8414) with PKCE S256, registration and every scope', async () => {
    const response = await at('/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: HTTPS_ORIGIN,
      authorization_endpoint: `${HTTPS_ORIGIN}/authorize`,
      token_endpoint: `${HTTPS_ORIGIN}/oauth/token`,
      registration_endpoint: `${HTTPS_ORIGIN}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      scopes_supported: [...SCOPES],
    });
    expect(metadata.response_types_supported).toEqual(['code']);
  });

  it('names the authorization server in both protected-resource documents (RFC 9728)', async () => {
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource', HTTPS_ORIGIN],
      ['/.well-known/oauth-protected-resource/mcp', `${HTTPS_ORIGIN}/mcp`],
    ] as const) {
      const response = await at(path);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ resource, authorization_servers: [HTTPS_ORIGIN] });
    }
  });
});

describe('OAuth from a browser-based client (CORS)', () => {
  it('lets another origin read the metadata documents and register, preflights included', async () => {
    const origin = 'https://inspector.example';
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
    ]) {
      const preflight = await at(path, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'mcp-protocol-version',
        },
      });
      expect(preflight.status, path).toBeLessThan(300);
      expect(preflight.headers.get('Access-Control-Allow-Origin'), path).toMatch(/^(\*|https:\/\/inspector\.example)$/);
      const read = await at(path, { headers: { Origin: origin, 'MCP-Protocol-Version': '2025-06-18' } });
      expect(read.status, path).toBe(200);
      expect(read.headers.get('Access-Control-Allow-Origin'), path).toMatch(/^(\*|https:\/\/inspector\.example)$/);
    }
    const registered = await at('/oauth/register', {
      method: 'POST',
      headers: { Origin: origin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://inspector.example/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('Access-Control-Allow-Origin')).toMatch(/^(\*|https:\/\/inspector\.example)$/);
  });
});

describe('dynamic client registration', () => {
  it('registers a public client and refuses a redirect URI that is http on another host', async () => {
    expect(await registerClient('Registered')).toMatch(/\S{8,}/);
    const refused = await at('/oauth/register', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://evil.example/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
  });
});

describe('the PKCE code flow', () => {
  it('shows the authorize page under a strict CSP, with the client’s name escaped and the asked scopes ticked', async () => {
    const clientId = await registerClient('<b>Agent</b>');
    const { challenge } = await pkce();
    const response = await at(authorizePath(clientId, challenge, { scope: 'files:read' }));
    expect(response.status).toBe(200);
    const csp = response.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:33418");
    expect(csp).toContain("frame-ancestors 'none'");
    const page = await response.text();
    expect(page).toContain('&lt;b&gt;Agent&lt;/b&gt;');
    expect(page).not.toContain('<b>Agent</b>');
    expect(page).toMatch(/value="files:read" checked/);
    expect(page).not.toMatch(/value="files:write" checked/);
  });

  it('refuses an unknown client on the page itself, never redirecting', async () => {
    const { challenge } = await pkce();
    const response = await at(authorizePath('nope', challenge), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('Location')).toBeNull();
  });

  it('grants a code for the key’s account, exchanged with the PKCE verifier for a token that lists tools on /mcp', async () => {
    const { key } = await createKey('oauth');
    const clientId = await registerClient();
    const { verifier, challenge } = await pkce();
    const path = authorizePath(clientId, challenge, { scope: 'files:read files:write', state: 'xyz' });
    const answer = await submitAuthorize(path, { key, scopes: ['files:read', 'files:write'] });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('Location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('iss')).toBe(HTTPS_ORIGIN);
    const code = location.searchParams.get('code') ?? '';

    const wrongVerifier = await exchangeCode(clientId, code, (await pkce()).verifier);
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });

    // The failed exchange spent nothing: a new flow, the right verifier.
    const again = await submitAuthorize(path, { key, scopes: ['files:read', 'files:write'] });
    const secondCode = new URL(again.headers.get('Location') ?? '').searchParams.get('code') ?? '';
    const exchanged = await exchangeCode(clientId, secondCode, verifier);
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as { access_token: string; scope: string; token_type: string };
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope.split(' ').sort()).toEqual(['files:read', 'files:write']);

    const listed = await mcpPost(tokens.access_token, { method: 'tools/list' });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as RpcAnswer;
    expect(body.result?.tools?.map((tool) => tool.name)).toContain('list_files');
    const written = await mcpPost(tokens.access_token, {
      method: 'tools/call',
      params: { name: 'upload_text', arguments: { filename: 'via-oauth.txt', text: 'hello' } },
    });
    expect(((await written.json()) as RpcAnswer).result?.isError).toBeFalsy();
  });

  it('lets a token do only what was granted, though its key holds more', async () => {
    const { key } = await createKey('broad');
    const { tokens } = await grantTokens(key, ['files:read']);
    const refused = await mcpPost(tokens.access_token, {
      method: 'tools/call',
      params: { name: 'upload_text', arguments: { filename: 'no.txt', text: 'no' } },
    });
    const result = ((await refused.json()) as RpcAnswer).result;
    expect(result?.isError).toBe(true);
    expect(result?.structuredContent?.code).toBe('FORBIDDEN');
    const read = await mcpPost(tokens.access_token, {
      method: 'tools/call',
      params: { name: 'list_files', arguments: {} },
    });
    expect(((await read.json()) as RpcAnswer).result?.isError).toBeFalsy();
  });

  it('refuses a scope beyond the key’s on the page, and grants nothing', async () => {
    const narrow = await keyWith(['files:read', 'keys:write']);
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const path = authorizePath(clientId, challenge, { scope: 'files:read files:write' });
    const answer = await submitAuthorize(path, { key: narrow.key, scopes: ['files:read', 'files:write'] });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('Location')).toBeNull();
    expect(await answer.text()).toContain('This key does not hold files:write');
    expect(await grantsOf(narrow.auth)).toEqual([]);
  });

  it('refuses an unknown or revoked key on the page', async () => {
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const path = authorizePath(clientId, challenge);
    const unknown = await submitAuthorize(path, { key: 'esk_notakey', scopes: ['files:read'] });
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toContain('That API key was not accepted');
    const { id, key } = await createKey('gone');
    await revokeKeyInDb(id);
    expect((await submitAuthorize(path, { key, scopes: ['files:read'] })).status).toBe(401);
  });

  it('sends access_denied back to the client when the person denies', async () => {
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const answer = await submitAuthorize(authorizePath(clientId, challenge, { state: 's' }), { decision: 'deny' });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('Location') ?? '');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('s');
  });
});

describe('a token on /mcp', () => {
  it('counts against the rate limit of the key it was granted with, as that key would', async () => {
    const { key } = await createKey('counted');
    const { tokens } = await grantTokens(key, ['files:read']);
    const first = await mcpPost(key, { method: 'tools/list' });
    const remaining = Number(first.headers.get('X-RateLimit-Remaining'));
    const second = await mcpPost(tokens.access_token, { method: 'tools/list' });
    expect(second.status).toBe(200);
    expect(Number(second.headers.get('X-RateLimit-Remaining'))).toBe(remaining - 1);
  });

  it('stops working when the key it was granted with is revoked', async () => {
    const { id, key } = await createKey('short-lived');
    const { tokens } = await grantTokens(key, ['files:read']);
    expect((await mcpPost(tokens.access_token, { method: 'tools/list' })).status).toBe(200);
    await revokeKeyInDb(id);
    expect((await mcpPost(tokens.access_token, { method: 'tools/list' })).status).toBe(401);
  });

  it('is not an API key elsewhere: the REST API answers 401', async () => {
    const { key } = await createKey('rest');
    const { tokens } = await grantTokens(key, ['files:read']);
    const response = await at('/api/v2/files', { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(response.status).toBe(401);
  });

  it('leaves bearer API keys working on /mcp and the REST API', async () => {
    const { key, auth } = await createKey('plain');
    const listed = await mcpPost(key, { method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as RpcAnswer).result?.tools?.length).toBeGreaterThan(5);
    expect((await at('/api/v2/files', { headers: auth })).status).toBe(200);
  });
});

describe('grants in the keys view', () => {
  it('lists the account’s grants with client name, scopes and creation time, and revokes one: its token gets 401 on /mcp', async () => {
    const { key, auth } = await createKey('owner');
    const { tokens, clientId } = await grantTokens(key, ['files:read'], 'Claude Test');
    const grants = await grantsOf(auth);
    expect(grants).toHaveLength(1);
    const [grant] = grants;
    expect(grant).toMatchObject({ clientId, clientName: 'Claude Test', scopes: ['files:read'] });
    expect(Math.abs(Date.parse(grant?.createdAt ?? '') - Date.now())).toBeLessThan(3_600_000);

    // Another account cannot see or revoke it.
    const stranger = await createKey('stranger');
    expect(await grantsOf(stranger.auth)).toEqual([]);
    const foreign = await at(`/api/v2/oauth/grants/${grant?.id}`, { method: 'DELETE', headers: stranger.auth });
    expect(foreign.status).toBe(404);
    expect((await mcpPost(tokens.access_token, { method: 'tools/list' })).status).toBe(200);

    const revoked = await at(`/api/v2/oauth/grants/${grant?.id}`, { method: 'DELETE', headers: auth });
    expect(revoked.status).toBe(200);
    const refused = await mcpPost(tokens.access_token, { method: 'tools/list' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('WWW-Authenticate')).toBe(
      `Bearer resource_metadata="${HTTPS_ORIGIN}/.well-known/oauth-protected-resource"`,
    );
    expect(await grantsOf(auth)).toEqual([]);
  });

  it('needs keys:write to list or revoke grants', async () => {
    const reader = await keyWith(['files:read']);
    const response = await at('/api/v2/oauth/grants', { headers: reader.auth });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'FORBIDDEN' });
  });
});

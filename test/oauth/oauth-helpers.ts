// An OAuth 2.1 client by hand (registration, PKCE, the authorize form, the token endpoint), each
// request through the Worker's own fetch on an https origin (the library offers OAuth only there
// and on loopback hosts).
import { call } from '../helpers/worker';

export const HTTPS_ORIGIN = 'https://edgeshare.test';
export const REDIRECT_URI = 'http://127.0.0.1:33418/callback';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A PKCE verifier and its S256 challenge. */
export async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  return { verifier, challenge };
}

export const at = (path: string, init?: RequestInit) => call(`${HTTPS_ORIGIN}${path}`, init);

/** A public client registered dynamically (RFC 7591): its client_id. */
export async function registerClient(name = 'Test Agent', redirectUri = REDIRECT_URI): Promise<string> {
  const response = await at('/oauth/register', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  if (response.status !== 201) throw new Error(`registration: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** The authorize page's address for a client's code request with PKCE. */
export function authorizePath(clientId: string, challenge: string, options: { scope?: string; state?: string } = {}) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: options.state ?? 'state-1',
    resource: HTTPS_ORIGIN,
  });
  if (options.scope) query.set('scope', options.scope);
  return `/authorize?${query}`;
}

/** Submits the authorize form as a browser would (Allow, or Deny). */
export function submitAuthorize(path: string, fields: { key?: string; scopes?: string[]; decision?: string }) {
  const form = new URLSearchParams();
  if (fields.key !== undefined) form.set('key', fields.key);
  for (const scope of fields.scopes ?? []) form.append('scope', scope);
  form.set('decision', fields.decision ?? 'approve');
  return at(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
}

/** Exchanges a code at the token endpoint. */
export function exchangeCode(clientId: string, code: string, verifier: string) {
  return at('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
      resource: HTTPS_ORIGIN,
    }),
  });
}

export type Tokens = { access_token: string; refresh_token?: string; scope: string; token_type: string };

/** The whole code flow for `key`, granting `scopes`: the client and its tokens. */
export async function grantTokens(key: string, scopes: string[], name = 'Test Agent') {
  const clientId = await registerClient(name);
  const { verifier, challenge } = await pkce();
  const path = authorizePath(clientId, challenge, { scope: scopes.join(' ') });
  const answer = await submitAuthorize(path, { key, scopes });
  if (answer.status !== 302) throw new Error(`authorize: ${answer.status} ${await answer.text()}`);
  const code = new URL(answer.headers.get('Location') ?? '').searchParams.get('code') ?? '';
  const response = await exchangeCode(clientId, code, verifier);
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
  return { clientId, tokens: (await response.json()) as Tokens };
}

/** One JSON-RPC message to /mcp with a bearer token (an API key or an OAuth access token). */
export function mcpPost(token: string, message: Record<string, unknown>) {
  return at('/mcp', {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
}

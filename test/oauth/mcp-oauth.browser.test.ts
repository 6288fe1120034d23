/// <reference lib="dom" />
// The whole OAuth flow as an MCP client that connects only through OAuth walks it, against a real
// wrangler dev: the official SDK's client auth discovers the authorization server from /mcp's 401,
// registers itself (DCR), and sends a person to /authorize, driven here in Chromium (a scope beyond
// the key's refused, then the granted ones); it exchanges the code with its PKCE verifier, lists
// the tools, is refused a tool outside its grant, and after the grant is revoked on the keys page
// its token gets 401.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createKey, launchBrowser, newPage, screenshot, server, warnIfNoChromium } from '../helpers/browser.ts';

// Never listened on: Chromium's navigation to it is answered by the test (page.route).
const REDIRECT_URL = 'http://127.0.0.1:48213/oauth/callback';

/** The SDK's OAuthClientProvider, in memory; sending the person to the authorize page is the test's. */
class MemoryProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  get redirectUrl() {
    return REDIRECT_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK Test Agent',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const mcpUrl = () => new URL(`${server().origin}/mcp`);

const newClient = () => new Client({ name: 'edgeshare-oauth-test', version: '1.0.0' });

/** The grant on the authorize page: sign in with `key`, tick exactly `scopes`, Allow. */
async function authorize(page: Page, key: string, scopes: string[]) {
  await page.getByLabel('An API key of your account').fill(key);
  for (const box of await page.locator('input[name="scope"]').all()) {
    await box.setChecked(scopes.includes((await box.getAttribute('value')) ?? ''));
  }
  await page.getByRole('button', { name: 'Allow' }).click();
}

describe.runIf(warnIfNoChromium('the MCP OAuth browser test'))('an MCP client connecting through OAuth', () => {
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('registers, is authorized in the browser, lists tools, is refused outside its grant, and gets 401 once revoked', async () => {
    const { origin } = server();
    const ownerKey = await createKey('oauth owner');
    // A narrower key of the same account: the one the person signs in with.
    const made = await api<{ data: { key: string } }>(origin, ownerKey, '/api/v2/keys', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'reader', scopes: ['files:read', 'links:write'] }),
    });
    expect(made.status).toBe(201);
    const readerKey = made.body.data.key;

    // 1. The SDK meets /mcp's 401, discovers, registers and asks to send the person to /authorize.
    const provider = new MemoryProvider();
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await expect(newClient().connect(transport)).rejects.toThrow(/unauthorized/i);
    expect(provider.client?.client_id).toBeTruthy();
    const authorizationUrl = provider.authorizationUrl;
    expect(authorizationUrl?.origin).toBe(origin);
    expect(authorizationUrl?.pathname).toBe('/authorize');
    expect(authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');

    // 2. The person, in Chromium: a scope beyond the key's is refused on the page…
    const { page, problems } = await newPage(context);
    let redirected: URL | undefined;
    // The code is read off the browser's request to the callback, which nothing serves (routing it
    // does not catch a form's redirect in chromium-headless-shell).
    page.on('request', (request) => {
      if (request.url().startsWith(`${REDIRECT_URL}?`)) redirected = new URL(request.url());
    });
    await page.goto(String(authorizationUrl));
    expect(await page.locator('#client-name').textContent()).toBe('SDK Test Agent');
    await authorize(page, readerKey, ['files:read', 'files:write']);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This key does not hold files:write');
    expect(redirected).toBeUndefined();
    await screenshot(page, 'oauth-authorize-refused');

    // …then only what it holds is granted, and the browser goes back to the client with a code.
    await authorize(page, readerKey, ['files:read']);
    await expect.poll(() => redirected?.searchParams.get('code') ?? null).not.toBeNull();
    // No CSP violation or script error; the refusal's own 403 is the page working.
    expect(problems.filter((problem) => !problem.includes('status of 403'))).toEqual([]);

    // 3. The SDK exchanges the code (PKCE) and connects with its token.
    await transport.finishAuth(redirected?.searchParams.get('code') ?? '');
    expect(provider.saved?.access_token).toBeTruthy();
    expect(provider.saved?.scope).toBe('files:read');
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('list_files');
    const listed = await client.callTool({ name: 'list_files', arguments: {} });
    expect(listed.isError).toBeFalsy();
    // A scope outside the grant (the key holds links:write; the grant does not).
    const refused = await client.callTool({
      name: 'upload_text',
      arguments: { filename: 'no.txt', text: 'not granted' },
    });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ code: 'FORBIDDEN' });

    // 4. Revoked on the keys page (signed in with the owner's key), the token gets 401.
    const keysPage = (await newPage(context)).page;
    keysPage.on('dialog', (dialog) => dialog.accept());
    await keysPage.goto(`${origin}/keys`);
    await keysPage.getByLabel('Your API key').fill(ownerKey);
    await keysPage.getByRole('button', { name: 'Open my keys' }).click();
    const revoke = keysPage.getByRole('button', { name: 'Revoke SDK Test Agent' });
    await revoke.waitFor();
    const grantRow = keysPage.locator('#account-grants-body tr');
    expect(await grantRow.count()).toBe(1);
    expect(await grantRow.first().textContent()).toContain('files:read');
    await screenshot(keysPage, 'oauth-connected-apps');
    await revoke.click();
    await expect.poll(() => keysPage.locator('#account-grants-body tr').count()).toBe(0);

    const raw = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${provider.saved?.access_token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('WWW-Authenticate')).toContain('resource_metadata=');
    // The SDK's own client is refused too (its refresh token went with the grant).
    provider.authorizationUrl = undefined;
    await expect(client.listTools()).rejects.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { call, createKey, ORIGIN } from '../helpers/worker';
import { mcpClient, toolData } from './mcp-helpers';

describe('POST /mcp', () => {
  it('initializes statelessly and lists every tool', async () => {
    const { key } = await createKey('mcp');
    const client = await mcpClient(key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'add_to_collection',
        'create_collection',
        'create_file_request',
        'create_share_link',
        'create_upload_url',
        'delete_file',
        'get_access_log',
        'get_file',
        'get_usage',
        'list_files',
        'upload_from_url',
        'upload_text',
        'list_links',
        'revoke_share_link',
        'list_collections',
        'remove_from_collection',
        'list_file_requests',
        'close_file_request',
      ].sort(),
    );
    expect(client.getServerVersion()?.name).toBe('edgeshare');
    const usage = await toolData(client, 'get_usage');
    expect(usage).toMatchObject({ usedBytes: 0, files: 0 });
  });

  it('answers 401 with the resource metadata challenge without a valid key', async () => {
    for (const headers of [{}, { Authorization: 'Bearer esk_nope' }] as Record<string, string>[]) {
      const response = await call('/mcp', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('WWW-Authenticate')).toBe(
        `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource"`,
      );
      expect(await response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
  });

  it('serves the protected-resource metadata (RFC 9728)', async () => {
    const response = await call('/.well-known/oauth-protected-resource');
    expect(response.status).toBe(200);
    const document = (await response.json()) as Record<string, unknown>;
    expect(document).toMatchObject({ resource: ORIGIN, bearer_methods_supported: ['header'] });
    expect(document.scopes_supported).toContain('files:read');
  });

  it('answers 405 for GET and every other method but POST', async () => {
    const { auth } = await createKey('mcp-405');
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      for (const headers of [{}, auth]) {
        const response = await call('/mcp', { method, headers: { ...headers, Accept: 'text/event-stream' } });
        expect(response.status, method).toBe(405);
        expect(response.headers.get('Allow')).toBe('POST');
        expect(await response.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
      }
    }
  });

  it('answers a lone tools/call without initialize (stateless), one message per POST', async () => {
    const { auth } = await createKey('mcp-raw');
    const post = (body: unknown) =>
      call('/mcp', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
    const answer = await post({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_usage', arguments: {} },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('Content-Type')).toContain('application/json');
    expect(answer.headers.get('Mcp-Session-Id')).toBeNull();
    expect(answer.headers.get('X-RateLimit-Limit')).not.toBeNull();
    expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', id: 7, result: { structuredContent: { files: 0 } } });
    const batch = await post([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
    const broken = await call('/mcp', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{',
    });
    expect(broken.status).toBe(400);
  });

  it('answers the CORS preflight of a browser client', async () => {
    const response = await call('/mcp', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://inspector.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('mcp-protocol-version');
  });
});

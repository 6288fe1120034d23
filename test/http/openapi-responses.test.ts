// Real responses of every documented operation, in both versions, checked against the OpenAPI
// document the Worker serves: the status is documented for that operation, the body matches the
// schema for that status (objects closed, so an undocumented field fails), the content type is a
// documented one, and every documented header that is sent matches its schema (the required ones
// must be sent). The documents themselves are validated in test/api/openapi-document.node.test.ts.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { crc32 } from '../../src/lib/crc32';
import { ageFile, linkHeader, newIdentity } from '../helpers/age-files';
import { quarantine, WITH_CONTACT } from '../helpers/moderation';
import {
  type OpenApiDocument,
  operationById,
  operationsOf,
  resolveHeader,
  type Schema,
  schemaCompiler,
} from '../helpers/openapi';
import { api, VERSIONS } from '../helpers/responses';
import { form } from '../helpers/upload';
import { awayFromWindowEdge, call, createKey, pollPause } from '../helpers/worker';
import { at, grantTokens } from '../oauth/oauth-helpers';

type Version = (typeof VERSIONS)[number];
type Checker = ReturnType<typeof schemaCompiler>;

const docs = {} as Record<Version, OpenApiDocument>;
const compilers = {} as Record<Version, Checker>;
/** `operationId status` of every response checked, per version. */
const checked = { v1: new Set<string>(), v2: new Set<string>() };

beforeAll(async () => {
  for (const version of VERSIONS) {
    const response = await call(`/api/${version}/openapi.json`);
    docs[version] = (await response.json()) as OpenApiDocument;
    compilers[version] = schemaCompiler(docs[version], { closed: true });
  }
});

const mediaType = (value: string | null) => (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** Checks one real response against what the document says of `operationId`; returns its body. */
async function expectDocumented(version: Version, operationId: string, response: Response): Promise<unknown> {
  const doc = docs[version];
  const { method, path, operation } = operationById(doc, operationId);
  const at = `${version} ${method.toUpperCase()} ${path} → ${response.status}`;
  const spec = operation.responses[String(response.status)];
  const text = await response.text();
  expect(spec, `${at} is documented (${text.slice(0, 200)})`).toBeDefined();
  if (!spec) return undefined;

  for (const [name, declared] of Object.entries(spec.headers ?? {})) {
    const header = resolveHeader(doc, declared);
    const value = response.headers.get(name);
    if (value === null) {
      expect(header.required ?? false, `${at}: required header ${name}`).toBe(false);
      continue;
    }
    const schema = header.schema as Schema;
    const typed = schema.type === 'integer' ? Number(value) : value;
    const validate = compilers[version](schema);
    expect(validate(typed), `${at}: header ${name}: ${value} ${JSON.stringify(validate.errors)}`).toBe(true);
  }

  const type = mediaType(response.headers.get('content-type'));
  if (!spec.content || method === 'head' || response.status === 304) {
    expect(text, `${at}: no body`).toBe('');
    checked[version].add(`${operationId} ${response.status}`);
    return undefined;
  }
  const media = spec.content[type] ?? spec.content['*/*'];
  expect(media, `${at}: content type ${type} is documented (${Object.keys(spec.content)})`).toBeDefined();
  let body: unknown = text;
  if (type === 'application/json') {
    body = JSON.parse(text);
    const validate = compilers[version](media?.schema as Schema);
    expect(validate(body), `${at}: ${JSON.stringify(validate.errors)}\n${text}`).toBe(true);
  }
  checked[version].add(`${operationId} ${response.status}`);
  return body;
}

const upload = (version: Version, auth: Record<string, string>, file = 'hello.txt', content: BodyInit = 'hi there') =>
  call(api(version, '/upload'), {
    method: 'POST',
    headers: auth,
    body: form([{ filename: file, type: 'text/plain', content }], { expiresIn: '3600' }),
  });

describe.each(VERSIONS)('every %s operation answers as its OpenAPI document says', (version) => {
  it('uploadFile: 201, 400, 401, 413, 415, 429', async () => {
    const { auth } = await createKey('doc', { storageQuotaBytes: 100 });
    await expectDocumented(version, 'uploadFile', await upload(version, auth));
    const noFile = await call(api(version, '/upload'), { method: 'POST', headers: auth, body: form([], { a: 'b' }) });
    await expectDocumented(version, 'uploadFile', noFile);
    await expectDocumented(version, 'uploadFile', await upload(version, {}));
    await expectDocumented(version, 'uploadFile', await upload(version, auth, 'big.txt', 'x'.repeat(200)));
    await expectDocumented(version, 'uploadFile', await upload(version, auth, 'tool.exe'));
    // An hour's window (made away from its end): the second upload is refused, never counted in a
    // new minute's window.
    const limited = await createKey('doc-limited', { rateLimitRequests: 1, rateLimitWindowSeconds: 3600 });
    await (await upload(version, limited.auth)).arrayBuffer();
    await expectDocumented(version, 'uploadFile', await upload(version, limited.auth));
  });

  it('listFiles, getFile, deleteFile: 200, 400, 404', async () => {
    const { auth } = await createKey('doc-read');
    const created = (await expectDocumented(version, 'uploadFile', await upload(version, auth))) as {
      data: { id: string };
    };
    const id = created.data.id;
    await expectDocumented(version, 'listFiles', await call(api(version, '/files?limit=5'), { headers: auth }));
    await expectDocumented(version, 'listFiles', await call(api(version, '/files?page=0'), { headers: auth }));
    await expectDocumented(version, 'getFile', await call(api(version, `/files/${id}`), { headers: auth }));
    await expectDocumented(version, 'getFile', await call(api(version, '/files/nope'), { headers: auth }));
    const remove = { method: 'DELETE', headers: auth };
    await expectDocumented(version, 'deleteFile', await call(api(version, `/files/${id}`), remove));
    await expectDocumented(version, 'deleteFile', await call(api(version, `/files/${id}`), remove));
  });

  it('downloadFile and downloadFileHead: 200, 206, 304, 404, 416, 451', async () => {
    const { auth } = await createKey('doc-download');
    const stored = await upload(version, auth, 'notes.txt', 'n'.repeat(100));
    const created = (await expectDocumented(version, 'uploadFile', stored)) as { data: { id: string } };
    const path = api(version, `/files/${created.data.id}/download`);
    for (const [operationId, method] of [
      ['downloadFile', 'GET'],
      ['downloadFileHead', 'HEAD'],
    ] as const) {
      const get = (headers: Record<string, string> = {}) => call(path, { method, headers: { ...auth, ...headers } });
      const whole = await get();
      const etag = whole.headers.get('etag') ?? '';
      await expectDocumented(version, operationId, whole);
      await expectDocumented(version, operationId, await get({ Range: 'bytes=0-9' }));
      await expectDocumented(version, operationId, await get({ 'If-None-Match': etag }));
      await expectDocumented(version, operationId, await get({ Range: 'bytes=5000-' }));
      const missing = await call(api(version, '/files/nope/download'), { method, headers: auth });
      if (method === 'GET') await expectDocumented(version, operationId, missing);
      else expect(missing.status).toBe(404);
    }
    // Quarantined by the operator: 451 with the statement and Link, its owner included.
    await quarantine(created.data.id, 'Held for review.');
    for (const [operationId, method] of [
      ['downloadFile', 'GET'],
      ['downloadFileHead', 'HEAD'],
    ] as const) {
      const refused = await call(path, { method, headers: auth }, WITH_CONTACT);
      expect(refused.status).toBe(451);
      await expectDocumented(version, operationId, refused);
    }
  });
});

describe('every v2 addition answers as its OpenAPI document says', () => {
  it('uploadRawFile: 201, 400, 401, 413, 415', async () => {
    const { auth } = await createKey('doc-raw', { storageQuotaBytes: 100 });
    const put = (name: string, body: string, headers: Record<string, string> = {}) =>
      call(`/api/v2/upload/${name}`, {
        method: 'PUT',
        headers: { ...auth, 'Content-Length': String(body.length), ...headers },
        body,
      });
    await expectDocumented('v2', 'uploadRawFile', await put('raw.txt', 'raw bytes'));
    await expectDocumented('v2', 'uploadRawFile', await put('raw.txt', 'raw', { 'Repr-Digest': 'sha-256=:AAAA:' }));
    const mismatch = await put('raw.txt', 'raw', { 'Repr-Digest': `sha-256=:${btoa('x'.repeat(32))}:` });
    expect(mismatch.status).toBe(400);
    await expectDocumented('v2', 'uploadRawFile', mismatch);
    await expectDocumented('v2', 'uploadRawFile', await put('big.txt', 'x'.repeat(200)));
    await expectDocumented('v2', 'uploadRawFile', await put('tool.exe', 'MZ'));
    await expectDocumented('v2', 'uploadRawFile', await call('/api/v2/upload/a.txt', { method: 'PUT', body: 'a' }));
  });

  it('uploadFiles and deleteFiles: 201, 200, 400', async () => {
    const { auth } = await createKey('doc-bulk');
    const files = form(
      [
        { name: 'files', filename: 'a.txt', type: 'text/plain', content: 'a' },
        { name: 'files[]', filename: 'b.exe', type: 'text/plain', content: 'b' },
      ],
      { isPublic: 'false' },
    );
    const uploaded = (await expectDocumented(
      'v2',
      'uploadFiles',
      await call('/api/v2/upload/bulk', { method: 'POST', headers: auth, body: files }),
    )) as { data: { results: { success: boolean; data?: { id: string } }[] } };
    const empty = await call('/api/v2/upload/bulk', { method: 'POST', headers: auth, body: form([], { a: 'b' }) });
    await expectDocumented('v2', 'uploadFiles', empty);
    const ids = uploaded.data.results.flatMap((result) => (result.data ? [result.data.id] : []));
    const remove = (body: unknown) =>
      call('/api/v2/files/bulk', {
        method: 'DELETE',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    await expectDocumented('v2', 'deleteFiles', await remove({ ids: [...ids, 'nope'] }));
    await expectDocumented('v2', 'deleteFiles', await remove({ ids: [] }));
  });

  it('updateFile: 200, 400, 404, 415', async () => {
    const { auth } = await createKey('doc-patch');
    const created = (await expectDocumented('v2', 'uploadFile', await upload('v2', auth))) as { data: { id: string } };
    const patch = (id: string, body: unknown) =>
      call(`/api/v2/files/${id}`, {
        method: 'PATCH',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    await expectDocumented('v2', 'updateFile', await patch(created.data.id, { isPublic: false, expiresAt: null }));
    await expectDocumented('v2', 'updateFile', await patch(created.data.id, {}));
    await expectDocumented('v2', 'updateFile', await patch('nope', { isPublic: true }));
    await expectDocumented('v2', 'updateFile', await patch(created.data.id, { originalName: 'x.exe' }));
  });

  it('getUsage: 200, 401, 503', async () => {
    // The 503 comes from an unreachable object, whose outage is logged: keep that line out of the output.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { auth } = await createKey('doc-usage');
    await expectDocumented('v2', 'getUsage', await call('/api/v2/usage', { headers: auth }));
    await expectDocumented('v2', 'getUsage', await call('/api/v2/usage', { headers: { Authorization: 'Bearer x' } }));
    const unreachable = {
      getByName: () => {
        throw new Error('injected: object unreachable');
      },
    };
    await expectDocumented(
      'v2',
      'getUsage',
      await call('/api/v2/usage', { headers: auth }, { KEY_LIMITER: unreachable }),
    );
    logged.mockRestore();
  });

  it('getPolicy: 200, 401; and 422 POLICY_VIOLATION on every operation the policy bounds', async () => {
    const { auth } = await createKey('doc-policy');
    await expectDocumented('v2', 'getPolicy', await call('/api/v2/policy', { headers: auth }));
    await expectDocumented('v2', 'getPolicy', await call('/api/v2/policy', { headers: { Authorization: 'Bearer x' } }));
    const file = (await (await upload('v2', auth)).json()) as { data: { id: string } };
    const link = (await (
      await call(`/api/v2/files/${file.data.id}/links`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '{}',
      })
    ).json()) as { data: { id: string } };
    const bounded = { LINK_REQUIRE_PASSWORD: 'true', FILE_REQUIRE_EXPIRY: 'true', REQUEST_MAX_BYTES: '1000' };
    const json = (method: string, body: unknown): RequestInit => ({
      method,
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const refused: [string, string, string, RequestInit][] = [
      ['v2', 'getPolicy', '/api/v2/policy', { headers: auth }],
      ['v2', 'createShareLink', `/api/v2/files/${file.data.id}/links`, json('POST', {})],
      ['v2', 'updateShareLink', `/api/v2/links/${link.data.id}`, json('PATCH', { password: null })],
      ['v2', 'createFileRequest', '/api/v2/requests', json('POST', {})],
      ['v2', 'updateFile', `/api/v2/files/${file.data.id}`, json('PATCH', { expiresIn: null })],
      [
        'v1',
        'uploadFile',
        '/api/v1/upload',
        { method: 'POST', headers: auth, body: form([{ filename: 'a.txt', content: 'a' }]) },
      ],
      [
        'v2',
        'uploadFile',
        '/api/v2/upload',
        { method: 'POST', headers: auth, body: form([{ filename: 'a.txt', content: 'a' }]) },
      ],
      [
        'v2',
        'uploadFiles',
        '/api/v2/upload/bulk',
        { method: 'POST', headers: auth, body: form([{ name: 'files', filename: 'a.txt', content: 'a' }]) },
      ],
      ['v2', 'uploadRawFile', '/api/v2/upload/a.txt', { method: 'PUT', headers: auth, body: 'a' }],
      [
        'v2',
        'createUpload',
        '/api/v2/uploads',
        { method: 'POST', headers: { ...auth, 'Tus-Resumable': '1.0.0', 'Upload-Length': '1' } },
      ],
    ];
    for (const [version, operationId, path, init] of refused) {
      const response = await call(path, init, bounded);
      if (operationId !== 'getPolicy') expect(response.status, operationId).toBe(422);
      await expectDocumented(version as Version, operationId, response);
    }
    const request = (await (await call('/api/v2/requests', json('POST', { maxBytes: 500 }))).json()) as {
      data: { id: string };
    };
    const changed = await call(`/api/v2/requests/${request.data.id}`, json('PATCH', { maxBytes: null }), bounded);
    expect(changed.status).toBe(422);
    await expectDocumented('v2', 'updateFileRequest', changed);
  });
});

describe('every webhook operation answers as the v2 document says', () => {
  it('createWebhook … retryWebhookDelivery: 201, 200, 202, 400, 404', async () => {
    const { auth } = await createKey('doc-webhooks');
    const json = { ...auth, 'content-type': 'application/json' };
    const send = (path: string, method: string, body?: unknown) =>
      call(`/api/v2${path}`, { method, headers: json, body: body === undefined ? undefined : JSON.stringify(body) });
    // Nothing listens on port 9: deliveries fail at once, and stay listed.
    const created = (await expectDocumented(
      'v2',
      'createWebhook',
      await send('/webhooks', 'POST', { url: 'http://127.0.0.1:9/hook', events: ['*'] }),
    )) as { data: { id: string } };
    await expectDocumented(
      'v2',
      'createWebhook',
      await send('/webhooks', 'POST', { url: 'http://x.test/', events: ['*'] }),
    );
    const id = created.data.id;
    const unknown = `wh_${'A'.repeat(22)}`;
    await expectDocumented('v2', 'listWebhooks', await send('/webhooks', 'GET'));
    await expectDocumented('v2', 'getWebhook', await send(`/webhooks/${id}`, 'GET'));
    await expectDocumented('v2', 'getWebhook', await send(`/webhooks/${unknown}`, 'GET'));
    await expectDocumented(
      'v2',
      'updateWebhook',
      await send(`/webhooks/${id}`, 'PATCH', { events: ['file.uploaded'] }),
    );
    await expectDocumented('v2', 'updateWebhook', await send(`/webhooks/${id}`, 'PATCH', {}));
    await expectDocumented('v2', 'updateWebhook', await send(`/webhooks/${unknown}`, 'PATCH', { events: ['*'] }));
    await upload('v2', auth);
    let deliveryId: string | undefined;
    for (let attempt = 0, deadline = Date.now() + 30_000; !deliveryId && Date.now() < deadline; attempt++) {
      const listed = await send(`/webhooks/${id}/deliveries`, 'GET');
      deliveryId = ((await listed.json()) as { data: { deliveries: { id: string }[] } }).data.deliveries[0]?.id;
      if (!deliveryId) await pollPause(attempt);
    }
    await expectDocumented('v2', 'listWebhookDeliveries', await send(`/webhooks/${id}/deliveries`, 'GET'));
    await expectDocumented('v2', 'listWebhookDeliveries', await send(`/webhooks/${id}/deliveries?limit=0`, 'GET'));
    await expectDocumented('v2', 'listWebhookDeliveries', await send(`/webhooks/${unknown}/deliveries`, 'GET'));
    const retry = (delivery: string) => send(`/webhooks/${id}/deliveries/${delivery}/retry`, 'POST');
    await expectDocumented('v2', 'retryWebhookDelivery', await retry(deliveryId ?? 'none'));
    await expectDocumented('v2', 'retryWebhookDelivery', await retry(`msg_${'A'.repeat(22)}`));
    await expectDocumented('v2', 'deleteWebhook', await send(`/webhooks/${id}`, 'DELETE'));
    await expectDocumented('v2', 'deleteWebhook', await send(`/webhooks/${id}`, 'DELETE'));
  });
});

describe('every share-link operation answers as the v2 document says', () => {
  it('createShareLink, listShareLinks, getShareLink, updateShareLink, revokeShareLink: 201, 200, 400, 404', async () => {
    const { auth } = await createKey('doc-links');
    const created = (await expectDocumented('v2', 'uploadFile', await upload('v2', auth))) as { data: { id: string } };
    const send = (method: string, path: string, body?: unknown) =>
      call(`/api/v2${path}`, {
        method,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const fileLinks = `/files/${created.data.id}/links`;
    const link = (await expectDocumented(
      'v2',
      'createShareLink',
      await send('POST', fileLinks, { label: 'doc', password: 'pw', maxDownloads: 2, expiresIn: 600 }),
    )) as { data: { id: string } };
    await expectDocumented('v2', 'createShareLink', await send('POST', fileLinks, { maxDownloads: 0 }));
    await expectDocumented('v2', 'createShareLink', await send('POST', '/files/nope/links', {}));
    await expectDocumented('v2', 'listShareLinks', await send('GET', fileLinks));
    await expectDocumented('v2', 'listShareLinks', await send('GET', '/files/nope/links'));
    await expectDocumented('v2', 'getShareLink', await send('GET', `/links/${link.data.id}`));
    await expectDocumented('v2', 'getShareLink', await send('GET', '/links/nope'));
    await expectDocumented('v2', 'updateShareLink', await send('PATCH', `/links/${link.data.id}`, { label: null }));
    await expectDocumented('v2', 'updateShareLink', await send('PATCH', `/links/${link.data.id}`, {}));
    await expectDocumented('v2', 'revokeShareLink', await send('DELETE', `/links/${link.data.id}`));
    await expectDocumented('v2', 'revokeShareLink', await send('DELETE', '/links/nope'));
  });
});

describe('every access-log operation answers as the v2 document says', () => {
  it('getShareLinkAccessLog, getFileAccessLog, getCollectionAccessLog, getFileRequestAccessLog: 200, 400, 404', async () => {
    const { auth } = await createKey('doc-access');
    const created = (await expectDocumented('v2', 'uploadFile', await upload('v2', auth))) as {
      data: { id: string; shareUrl: string };
    };
    const send = (method: string, path: string, body?: unknown) =>
      call(`/api/v2${path}`, {
        method,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const link = (await (await send('POST', `/files/${created.data.id}/links`, {})).json()) as {
      data: { id: string; url: string };
    };
    // A visit of each, so the pages hold events whose every field the schema checks.
    await (await call(`${new URL(link.data.url).pathname}/download`)).arrayBuffer();
    await (await call(`${new URL(created.data.shareUrl).pathname}/download`)).arrayBuffer();
    const request = (await (await send('POST', '/requests', {})).json()) as { data: { id: string; url: string } };
    await (await call(new URL(request.data.url).pathname)).arrayBuffer();
    const collection = (await (
      await send('POST', '/collections', { name: 'logged', fileIds: [created.data.id] })
    ).json()) as {
      data: { id: string };
    };
    const collectionLink = (await (await send('POST', `/collections/${collection.data.id}/links`, {})).json()) as {
      data: { url: string };
    };
    await (await call(`${new URL(collectionLink.data.url).pathname}/archive.zip`)).arrayBuffer();
    for (const [operationId, path] of [
      ['getShareLinkAccessLog', `/links/${link.data.id}`],
      ['getFileAccessLog', `/files/${created.data.id}`],
      ['getCollectionAccessLog', `/collections/${collection.data.id}`],
      ['getFileRequestAccessLog', `/requests/${request.data.id}`],
    ] as const) {
      await expectDocumented('v2', operationId, await send('GET', `${path}/access?limit=5`));
      await expectDocumented('v2', operationId, await send('GET', `${path}/access?cursor=nope`));
      await expectDocumented('v2', operationId, await send('GET', `${path.replace(/[^/]+$/, 'nope')}/access`));
    }
  });
});

describe('the keys operations answer as the v2 document says', () => {
  it('listKeys, createKey, renameKey, revokeKey: 200, 201, 400, 403, 404, 409', async () => {
    const { id, auth } = await createKey('doc-keys');
    const send = (method: string, path: string, body?: unknown, headers = auth) =>
      call(path, {
        method,
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    await expectDocumented('v2', 'listKeys', await send('GET', '/api/v2/keys'));
    const created = (await expectDocumented(
      'v2',
      'createKey',
      await send('POST', '/api/v2/keys', { name: 'reader', scopes: ['files:read'] }),
    )) as { data: { id: string; key: string } };
    await expectDocumented('v2', 'createKey', await send('POST', '/api/v2/keys', { name: '' }));
    const reader = { Authorization: `Bearer ${created.data.key}` };
    await expectDocumented('v2', 'createKey', await send('POST', '/api/v2/keys', { name: 'x' }, reader));
    await expectDocumented('v2', 'renameKey', await send('PATCH', `/api/v2/keys/${created.data.id}`, { name: 'r' }));
    await expectDocumented('v2', 'renameKey', await send('PATCH', '/api/v2/keys/key_nope', { name: 'r' }));
    await expectDocumented('v2', 'revokeKey', await send('DELETE', `/api/v2/keys/${id}`));
    await expectDocumented('v2', 'revokeKey', await send('DELETE', `/api/v2/keys/${created.data.id}`));
  });
});

describe('every tus operation answers as the v2 document says', () => {
  const TUS = { 'Tus-Resumable': '1.0.0' };
  const OCTETS = { 'Content-Type': 'application/offset+octet-stream' };
  const meta = (name: string) => `filename ${btoa(name)}`;
  const create = (
    auth: Record<string, string>,
    length: number,
    init: RequestInit & { headers?: Record<string, string> } = {},
  ) =>
    call('/api/v2/uploads', {
      ...init,
      method: 'POST',
      headers: { ...TUS, ...auth, 'Upload-Length': String(length), 'Upload-Metadata': meta('a.txt'), ...init.headers },
    });
  const locationOf = (response: Response) => new URL(response.headers.get('location') ?? '').pathname;

  it('discoverUploads, createUpload: 204, 201, 400, 401, 412, 413, 415, 460', async () => {
    const { auth } = await createKey('doc-tus-create', { storageQuotaBytes: 1000 });
    await expectDocumented('v2', 'discoverUploads', await call('/api/v2/uploads', { method: 'OPTIONS' }));
    await expectDocumented('v2', 'createUpload', await create(auth, 10));
    await expectDocumented('v2', 'createUpload', await create(auth, 10, { headers: OCTETS, body: 'hello' }));
    await expectDocumented('v2', 'createUpload', await create(auth, 0));
    await expectDocumented('v2', 'createUpload', await create(auth, 10, { headers: { 'Upload-Metadata': '' } }));
    await expectDocumented('v2', 'createUpload', await create({}, 10));
    await expectDocumented('v2', 'createUpload', await create(auth, 10, { headers: { 'Tus-Resumable': '0.2.2' } }));
    await expectDocumented('v2', 'createUpload', await create(auth, 5000));
    await expectDocumented(
      'v2',
      'createUpload',
      await create(auth, 10, { headers: { 'Content-Type': 'text/plain' }, body: 'x' }),
    );
    const wrong = { ...OCTETS, 'Upload-Checksum': 'sha1 Kq5sNclPz7QV2+lfQIuc6R7oRu0=' };
    await expectDocumented('v2', 'createUpload', await create(auth, 10, { headers: wrong, body: 'hello' }));
  });

  it('getUploadOffset, appendToUpload, overrideUploadMethod, getUploadedFile, terminateUpload: 204, 200 and their errors', async () => {
    const { auth } = await createKey('doc-tus');
    const path = locationOf(await create(auth, 11));
    const send = (offset: number, body: string, headers: Record<string, string> = {}, method = 'PATCH') =>
      call(path, {
        method,
        headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': String(offset), ...headers },
        body,
      });
    await expectDocumented('v2', 'getUploadOffset', await call(path, { method: 'HEAD', headers: { ...TUS, ...auth } }));
    await expectDocumented('v2', 'appendToUpload', await send(0, 'hello'));
    await expectDocumented('v2', 'appendToUpload', await send(0, 'hello'));
    await expectDocumented('v2', 'appendToUpload', await send(5, 'x', { 'Content-Type': 'text/plain' }));
    await expectDocumented(
      'v2',
      'appendToUpload',
      await send(5, 'x', { 'Upload-Checksum': 'sha1 AAAAAAAAAAAAAAAAAAAAAAAAAAA=' }),
    );
    await expectDocumented('v2', 'appendToUpload', await send(5, 'far too many bytes'));
    await expectDocumented('v2', 'getUploadedFile', await call(path, { headers: auth }));
    const override = { 'X-HTTP-Method-Override': 'PATCH' };
    await expectDocumented('v2', 'overrideUploadMethod', await send(5, ' world', override, 'POST'));
    await expectDocumented('v2', 'getUploadedFile', await call(path, { headers: auth }));
    await expectDocumented(
      'v2',
      'terminateUpload',
      await call(path, { method: 'DELETE', headers: { ...TUS, ...auth } }),
    );
    await expectDocumented(
      'v2',
      'terminateUpload',
      await call(path, { method: 'DELETE', headers: { ...TUS, ...auth } }),
    );
    await expectDocumented('v2', 'appendToUpload', await send(11, 'x'));
    await expectDocumented('v2', 'getUploadedFile', await call(path, { headers: auth }));
    const unknown = '/api/v2/uploads/AAAAAAAAAAAAAAAAAAAAAA';
    await expectDocumented(
      'v2',
      'appendToUpload',
      await call(unknown, {
        method: 'PATCH',
        headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0' },
        body: 'x',
      }),
    );
    await expectDocumented('v2', 'getUploadedFile', await call(unknown, { headers: auth }));
  });
});

describe('every file request operation answers as the v2 document says', () => {
  const TUS = { 'Tus-Resumable': '1.0.0' };
  const OCTETS = { 'Content-Type': 'application/offset+octet-stream' };
  const json = { 'Content-Type': 'application/json' };
  type Made = { id: string; url: string; uploadUrl: string; tusUrl: string };

  it('createFileRequest, listFileRequests, getFileRequest, updateFileRequest, closeFileRequest, listFileRequestFiles', async () => {
    const { auth } = await createKey('doc-requests', { rateLimitRequests: 10_000 });
    const created = await call('/api/v2/requests', {
      method: 'POST',
      headers: { ...auth, ...json },
      body: JSON.stringify({ maxFiles: 2, message: 'hi', password: 'pw' }),
    });
    const made = ((await expectDocumented('v2', 'createFileRequest', created)) as { data: Made }).data;
    const bad = await call('/api/v2/requests', {
      method: 'POST',
      headers: { ...auth, ...json },
      body: '{"maxFiles":0}',
    });
    await expectDocumented('v2', 'createFileRequest', bad);
    await expectDocumented('v2', 'listFileRequests', await call('/api/v2/requests', { headers: auth }));
    await expectDocumented('v2', 'listFileRequests', await call('/api/v2/requests?page=0', { headers: auth }));
    await expectDocumented('v2', 'getFileRequest', await call(`/api/v2/requests/${made.id}`, { headers: auth }));
    await expectDocumented('v2', 'getFileRequest', await call('/api/v2/requests/nope', { headers: auth }));
    const patch = (body: string) =>
      call(`/api/v2/requests/${made.id}`, { method: 'PATCH', headers: { ...auth, ...json }, body });
    await expectDocumented('v2', 'updateFileRequest', await patch('{"maxFiles":3}'));
    await expectDocumented('v2', 'updateFileRequest', await patch('{}'));
    await expectDocumented(
      'v2',
      'listFileRequestFiles',
      await call(`/api/v2/requests/${made.id}/files`, { headers: auth }),
    );
    await expectDocumented(
      'v2',
      'closeFileRequest',
      await call(`/api/v2/requests/${made.id}`, { method: 'DELETE', headers: auth }),
    );
    await expectDocumented(
      'v2',
      'closeFileRequest',
      await call('/api/v2/requests/nope', { method: 'DELETE', headers: auth }),
    );
  });

  it('describeFileRequest, uploadToFileRequest and the tus operations through a request', async () => {
    const { auth } = await createKey('doc-requests-public', { rateLimitRequests: 10_000 });
    const created = await call('/api/v2/requests', {
      method: 'POST',
      headers: { ...auth, ...json },
      body: JSON.stringify({ maxFiles: 3, maxFileSize: 100 }),
    });
    const made = ((await created.json()) as { data: Made }).data;
    const token = made.url.split('/r/')[1];
    await expectDocumented('v2', 'describeFileRequest', await call(`/api/v2/r/${token}`));
    await expectDocumented('v2', 'describeFileRequest', await call('/api/v2/r/unknown'));
    const send = (content: string) =>
      call(made.uploadUrl, { method: 'POST', body: form([{ filename: 'a.txt', type: 'text/plain', content }]) });
    await expectDocumented('v2', 'uploadToFileRequest', await send('hello'));
    await expectDocumented('v2', 'uploadToFileRequest', await send('x'.repeat(101)));
    await expectDocumented('v2', 'uploadToFileRequest', await call(made.uploadUrl, { method: 'POST', body: 'x' }));
    // The raw PUT on a request of its own (the tus calls below need the first one's slots).
    const forRaw = await call('/api/v2/requests', {
      method: 'POST',
      headers: { ...auth, ...json },
      body: JSON.stringify({ maxFiles: 3, maxFileSize: 100 }),
    });
    const rawUrl = ((await forRaw.json()) as { data: Made }).data.uploadUrl;
    const put = (name: string, body: string, headers: Record<string, string> = {}) =>
      call(`${rawUrl}/${name}`, { method: 'PUT', headers: { 'Content-Type': 'text/plain', ...headers }, body });
    await expectDocumented('v2', 'uploadRawToFileRequest', await put('raw.txt', 'raw hello'));
    await expectDocumented('v2', 'uploadRawToFileRequest', await put('big.txt', 'x'.repeat(101)));
    await expectDocumented(
      'v2',
      'uploadRawToFileRequest',
      await put('bad.txt', 'abc', { 'Repr-Digest': `sha-256=:${btoa('y'.repeat(32))}:` }),
    );
    await expectDocumented(
      'v2',
      'uploadRawToFileRequest',
      await call('/api/v2/r/unknown/upload/a.txt', { method: 'PUT', body: 'x' }),
    );

    const create = (length: number, headers: Record<string, string> = {}, body?: string) =>
      call(made.tusUrl, {
        method: 'POST',
        headers: {
          ...TUS,
          'Upload-Length': String(length),
          'Upload-Metadata': `filename ${btoa('b.txt')}`,
          ...headers,
        },
        body,
      });
    const first = await create(11);
    const path = new URL(first.headers.get('location') ?? '').pathname;
    await expectDocumented('v2', 'createFileRequestUpload', first);
    await expectDocumented('v2', 'createFileRequestUpload', await create(1000));
    const patch = (offset: number, body: string, headers: Record<string, string> = {}, method = 'PATCH') =>
      call(path, { method, headers: { ...TUS, ...OCTETS, 'Upload-Offset': String(offset), ...headers }, body });
    await expectDocumented('v2', 'getFileRequestUploadOffset', await call(path, { method: 'HEAD', headers: TUS }));
    await expectDocumented('v2', 'appendToFileRequestUpload', await patch(0, 'hello'));
    await expectDocumented('v2', 'appendToFileRequestUpload', await patch(0, 'hello'));
    await expectDocumented('v2', 'getFileRequestUploadReceipt', await call(path));
    await expectDocumented(
      'v2',
      'overrideFileRequestUploadMethod',
      await patch(5, ' world', { 'X-HTTP-Method-Override': 'PATCH' }, 'POST'),
    );
    await expectDocumented('v2', 'getFileRequestUploadReceipt', await call(path));
    const other = await create(10);
    const otherPath = new URL(other.headers.get('location') ?? '').pathname;
    await expectDocumented(
      'v2',
      'terminateFileRequestUpload',
      await call(otherPath, { method: 'DELETE', headers: TUS }),
    );
    await expectDocumented(
      'v2',
      'terminateFileRequestUpload',
      await call(`${made.tusUrl}/AAAAAAAAAAAAAAAAAAAAAA`, { method: 'DELETE', headers: TUS }),
    );
    await expectDocumented('v2', 'getFileRequestUploadOffset', await call(otherPath, { method: 'HEAD', headers: TUS }));
  });
});

describe('every collection operation answers as the v2 document says', () => {
  it('createCollection … downloadFileRequestArchive: 201, 200, 206, 304, 400, 404, 412, 416', async () => {
    const { auth } = await createKey('doc-collections', { rateLimitRequests: 10_000 });
    const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      call(
        `/api/v2${path}`,
        {
          method,
          headers: { ...auth, 'Content-Type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
        headers['X-Budget'] ? { SUBREQUEST_BUDGET: headers['X-Budget'] } : {},
      );
    const file = (await expectDocumented('v2', 'uploadFile', await upload('v2', auth))) as { data: { id: string } };
    const other = (await expectDocumented('v2', 'uploadFile', await upload('v2', auth, 'b.txt', 'bee'))) as {
      data: { id: string };
    };
    // Their CRC-32s known (as the upload paths record them), the archive is rangeable.
    for (const [stored, text] of [
      [file, 'hi there'],
      [other, 'bee'],
    ] as const) {
      await env.DB.prepare('UPDATE files SET crc32 = ?2 WHERE id = ?1')
        .bind(stored.data.id, crc32(new TextEncoder().encode(text)))
        .run();
    }
    const made = (await expectDocumented(
      'v2',
      'createCollection',
      await send('POST', '/collections', { name: 'doc', fileIds: [file.data.id] }),
    )) as { data: { id: string } };
    const id = made.data.id;
    const unknown = `col_${'A'.repeat(22)}`;
    await expectDocumented('v2', 'createCollection', await send('POST', '/collections', { name: '' }));
    await expectDocumented(
      'v2',
      'createCollection',
      await send('POST', '/collections', { name: 'x', fileIds: ['no'] }),
    );
    await expectDocumented('v2', 'listCollections', await send('GET', '/collections'));
    await expectDocumented('v2', 'listCollections', await send('GET', '/collections?page=0'));
    await expectDocumented('v2', 'getCollection', await send('GET', `/collections/${id}`));
    await expectDocumented('v2', 'getCollection', await send('GET', `/collections/${unknown}`));
    await expectDocumented('v2', 'updateCollection', await send('PATCH', `/collections/${id}`, { note: 'n' }));
    await expectDocumented('v2', 'updateCollection', await send('PATCH', `/collections/${id}`, {}));
    await expectDocumented('v2', 'updateCollection', await send('PATCH', `/collections/${unknown}`, { note: 'n' }));
    const files = `/collections/${id}/files`;
    await expectDocumented('v2', 'addCollectionFiles', await send('POST', files, { fileIds: [other.data.id] }));
    await expectDocumented('v2', 'addCollectionFiles', await send('POST', files, { fileIds: [] }));
    await expectDocumented('v2', 'addCollectionFiles', await send('POST', files, { fileIds: ['nope'] }));
    await expectDocumented('v2', 'listCollectionFiles', await send('GET', files));
    await expectDocumented('v2', 'listCollectionFiles', await send('GET', `/collections/${unknown}/files`));
    const links = `/collections/${id}/links`;
    await expectDocumented('v2', 'createCollectionLink', await send('POST', links, { maxDownloads: 3 }));
    await expectDocumented('v2', 'createCollectionLink', await send('POST', links, { maxDownloads: 0 }));
    await expectDocumented('v2', 'createCollectionLink', await send('POST', `/collections/${unknown}/links`, {}));
    await expectDocumented('v2', 'listCollectionLinks', await send('GET', links));
    await expectDocumented('v2', 'listCollectionLinks', await send('GET', `/collections/${unknown}/links`));

    const zip = `/collections/${id}/archive`;
    for (const [operationId, method] of [
      ['downloadCollectionArchive', 'GET'],
      ['downloadCollectionArchiveHead', 'HEAD'],
    ] as const) {
      const whole = await send(method, zip);
      const etag = whole.headers.get('etag') ?? '';
      await expectDocumented('v2', operationId, whole);
      await expectDocumented('v2', operationId, await send(method, zip, undefined, { Range: 'bytes=0-9' }));
      await expectDocumented('v2', operationId, await send(method, zip, undefined, { 'If-None-Match': etag }));
      await expectDocumented('v2', operationId, await send(method, `${zip}?v=stale`));
      if (method === 'GET') {
        await expectDocumented('v2', operationId, await send(method, zip, undefined, { Range: 'bytes=99999-' }));
        await expectDocumented('v2', operationId, await send(method, zip, undefined, { 'X-Budget': '11' }));
        await expectDocumented('v2', operationId, await send(method, `/collections/${unknown}/archive`));
      }
    }
    const request = (await (await send('POST', '/requests', {})).json()) as { data: { id: string } };
    const requestZip = `/requests/${request.data.id}/archive`;
    for (const [operationId, method] of [
      ['downloadFileRequestArchive', 'GET'],
      ['downloadFileRequestArchiveHead', 'HEAD'],
    ] as const) {
      const whole = await send(method, requestZip);
      const etag = whole.headers.get('etag') ?? '';
      await expectDocumented('v2', operationId, whole);
      await expectDocumented('v2', operationId, await send(method, requestZip, undefined, { Range: 'bytes=0-9' }));
      await expectDocumented('v2', operationId, await send(method, requestZip, undefined, { 'If-None-Match': etag }));
      await expectDocumented('v2', operationId, await send(method, `${requestZip}?v=stale`));
      if (method === 'GET') await expectDocumented('v2', operationId, await send(method, '/requests/nope/archive'));
    }

    await expectDocumented('v2', 'removeCollectionFile', await send('DELETE', `${files}/${other.data.id}`));
    await expectDocumented('v2', 'removeCollectionFile', await send('DELETE', `${files}/${other.data.id}`));
    await expectDocumented('v2', 'deleteCollection', await send('DELETE', `/collections/${id}`));
    await expectDocumented('v2', 'deleteCollection', await send('DELETE', `/collections/${id}`));
  });
});

describe('the report operation answers as the v2 document says', () => {
  it('reportAbuse: 202 (JSON and a page), 400, 403, 429', async () => {
    const report = (body: BodyInit, type: string, overrides = {}, headers: Record<string, string> = {}) =>
      call('/api/v2/reports', { method: 'POST', headers: { 'Content-Type': type, ...headers }, body }, overrides);
    const ok = JSON.stringify({ url: 'https://example.com/share/nothing', reason: 'spam' });
    await expectDocumented('v2', 'reportAbuse', await report(ok, 'application/json'));
    const form = 'url=nothing&reason=other';
    const page = await report(form, 'application/x-www-form-urlencoded', {}, { Accept: 'text/html' });
    expect(page.status).toBe(202);
    await expectDocumented('v2', 'reportAbuse', page);
    await expectDocumented('v2', 'reportAbuse', await report('{"reason": "spam"}', 'application/json'));
    const turnstile = { TURNSTILE_SITE_KEY: '1x00000000000000000000AA', TURNSTILE_SECRET_KEY: 'secret' };
    await expectDocumented('v2', 'reportAbuse', await report(ok, 'application/json', turnstile));
    const address = { 'CF-Connecting-IP': '192.0.2.77' };
    // Reports count in hour windows aligned to the clock: all three in one.
    await awayFromWindowEdge(3600);
    for (let i = 0; i < 2; i++) await report(ok, 'application/json', { REPORTS_PER_ADDRESS: '2' }, address);
    const throttled = await report(ok, 'application/json', { REPORTS_PER_ADDRESS: '2' }, address);
    expect(throttled.status).toBe(429);
    await expectDocumented('v2', 'reportAbuse', throttled);
  });
});

describe('the OAuth grant operations answer as the v2 document says', () => {
  it('listOAuthGrants, revokeOAuthGrant: 200, 404', async () => {
    const { key, auth } = await createKey('openapi oauth', { rateLimitRequests: 100_000 });
    // Grants belong to an https origin (the library serves no other but loopback): asked there.
    const { tokens } = await grantTokens(key, ['files:read']);
    expect(tokens.access_token).toBeTruthy();
    const list = await at('/api/v2/oauth/grants', { headers: auth });
    expect(list.status).toBe(200);
    const [grant] = ((await list.clone().json()) as { data: { grants: { id: string }[] } }).data.grants;
    await expectDocumented('v2', 'listOAuthGrants', list);
    const revoke = (id: string) => at(`/api/v2/oauth/grants/${id}`, { method: 'DELETE', headers: auth });
    await expectDocumented('v2', 'revokeOAuthGrant', await revoke(grant?.id ?? ''));
    await expectDocumented('v2', 'revokeOAuthGrant', await revoke(grant?.id ?? ''));
  });
});

describe('every end-to-end encryption operation and field answers as the v2 document says', () => {
  it('age uploads, keyed links, link headers and the identity: 200, 201, 400, 404, 409, 422', async () => {
    const { auth } = await createKey('openapi e2e', { rateLimitRequests: 100_000 });
    const owner = await newIdentity();
    const file = await ageFile(owner, 1000, 31);
    const json = (method: string, body: unknown): RequestInit => ({
      method,
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    // Uploads: the record's encryption, meta and e2eHeader fields are in the (closed) schemas.
    const put = (body: Uint8Array, headers: Record<string, string> = {}) =>
      call('/api/v2/upload/f.age?encryption=age', { method: 'PUT', headers: { ...auth, ...headers }, body });
    const raw = (await expectDocumented(
      'v2',
      'uploadRawFile',
      await put(file.bytes, { 'Edgeshare-Meta': file.meta }),
    )) as {
      data: { id: string };
    };
    const id = raw.data.id;
    await expectDocumented('v2', 'uploadRawFile', await put(file.bytes.slice(0, 40)));
    const body = form([{ filename: 'f.age', content: file.bytes }], { encryption: 'age', meta: file.meta });
    await expectDocumented('v2', 'uploadFile', await call('/api/v2/upload', { method: 'POST', headers: auth, body }));
    await expectDocumented('v2', 'getFile', await call(`/api/v2/files/${id}`, { headers: auth }));
    await expectDocumented('v2', 'listFiles', await call('/api/v2/files', { headers: auth }));
    // A link needs its header (400 without), a bad one is 422; the link's headers, and one replaced.
    const links = `/api/v2/files/${id}/links`;
    await expectDocumented('v2', 'createShareLink', await call(links, json('POST', {})));
    const bad = file.header.replace('-> X25519', '-X X25519');
    await expectDocumented('v2', 'createShareLink', await call(links, json('POST', { e2eHeader: bad })));
    const keyed = await linkHeader(file);
    const link = (await expectDocumented(
      'v2',
      'createShareLink',
      await call(links, json('POST', { e2eHeader: keyed.header })),
    )) as { data: { id: string } };
    const headers = `/api/v2/links/${link.data.id}/headers`;
    await expectDocumented('v2', 'listLinkHeaders', await call(headers, { headers: auth }));
    await expectDocumented('v2', 'listLinkHeaders', await call('/api/v2/links/lnk_nope/headers', { headers: auth }));
    const again = await linkHeader(file);
    await expectDocumented(
      'v2',
      'putLinkHeader',
      await call(`${headers}/${id}`, json('PUT', { header: again.header })),
    );
    await expectDocumented('v2', 'putLinkHeader', await call(`${headers}/${id}`, json('PUT', { header: bad })));
    await expectDocumented('v2', 'putLinkHeader', await call(`${headers}/${id}`, json('PUT', {})));
    await expectDocumented('v2', 'putLinkHeader', await call(`${headers}/nope`, json('PUT', { header: again.header })));
    // A collection's link with e2eHeaders.
    const collection = (await expectDocumented(
      'v2',
      'createCollection',
      await call('/api/v2/collections', json('POST', { name: 'sealed', fileIds: [id] })),
    )) as { data: { id: string } };
    const collectionLinks = `/api/v2/collections/${collection.data.id}/links`;
    const member = await linkHeader(file);
    await expectDocumented(
      'v2',
      'createCollectionLink',
      await call(collectionLinks, json('POST', { e2eHeaders: { [id]: member.header } })),
    );
    // The identity: none, the first, the same again, another without replace, a bad backup.
    const identity = '/api/v2/e2e/identity';
    await expectDocumented('v2', 'getE2eIdentity', await call(identity, { headers: auth }));
    await expectDocumented('v2', 'putE2eIdentity', await call(identity, json('PUT', { recipient: owner.recipient })));
    await expectDocumented('v2', 'putE2eIdentity', await call(identity, json('PUT', { recipient: owner.recipient })));
    const other = await newIdentity();
    await expectDocumented('v2', 'putE2eIdentity', await call(identity, json('PUT', { recipient: other.recipient })));
    await expectDocumented('v2', 'putE2eIdentity', await call(identity, json('PUT', { recipient: 'age1nope' })));
    const notArmored = { recipient: owner.recipient, backup: 'not an age file' };
    await expectDocumented('v2', 'putE2eIdentity', await call(identity, json('PUT', notArmored)));
    await expectDocumented('v2', 'getE2eIdentity', await call(identity, { headers: auth }));
    // The policy shows e2eAllowed.
    await expectDocumented('v2', 'getPolicy', await call('/api/v2/policy', { headers: auth }));
  });
});

describe('the checks above', () => {
  it('called every operation of each document, and saw each of its success statuses', () => {
    for (const version of VERSIONS) {
      for (const { operation } of operationsOf(docs[version])) {
        const statuses = Object.keys(operation.responses).filter((status) => /^[23]/.test(status));
        for (const status of statuses) {
          expect(
            checked[version].has(`${operation.operationId} ${status}`),
            `${version} ${operation.operationId} ${status}`,
          ).toBe(true);
        }
      }
    }
  });
});

import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { bulkDelete, bulkUpload, bytesOf, expectPerfValue, serverTiming, unknownId } from '../helpers/files';
import { json } from '../helpers/responses';
import { instrumentedBucket } from '../helpers/storage';
import { ELF, filesForm, textFile, upload, uploadOk } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

/** A Durable Object namespace whose stubs take `delayMs` longer to answer `method` (they still reach the real objects). */
function slowStubs<T extends object>(inner: T, method: string, delayMs: number): T {
  return new Proxy(inner, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      if (property !== 'getByName' && property !== 'get') return value.bind(object);
      return (...args: unknown[]) => {
        const stub = Reflect.apply(value, object, args) as object;
        return new Proxy(stub, {
          get(target, name) {
            const member = Reflect.get(target, name);
            if (name !== method || typeof member !== 'function') return member;
            return async (...callArgs: unknown[]) => {
              await new Promise((resolve) => setTimeout(resolve, delayMs));
              return Reflect.apply(member, target, callArgs);
            };
          },
        });
      };
    },
  });
}

type Probe = { status: number; code?: string; send: () => Promise<Response> };

async function authed() {
  return (await createKey()).auth;
}

/** One request per documented v2 JSON answer, each with its own key. */
const PROBES: Record<string, Probe> = {
  'upload 201': { status: 201, send: async () => (await upload('v2', await authed(), textFile('a.txt'))).response },
  'list 200': { status: 200, send: async () => call('/api/v2/files', { headers: await authed() }) },
  'get 200': {
    status: 200,
    send: async () => {
      const auth = await authed();
      const { id } = await uploadOk('v2', auth, textFile('hello.txt'));
      return call(`/api/v2/files/${id}`, { headers: auth });
    },
  },
  'delete 200': {
    status: 200,
    send: async () => {
      const auth = await authed();
      const { id } = await uploadOk('v2', auth, textFile('hello.txt'));
      return call(`/api/v2/files/${id}`, { method: 'DELETE', headers: auth });
    },
  },
  'bulk upload 201': {
    status: 201,
    send: async () => bulkUpload(await authed(), filesForm([textFile('a.txt'), textFile('b.txt')])),
  },
  'bulk delete 200': {
    status: 200,
    send: async () => {
      const auth = await authed();
      const { id } = await uploadOk('v2', auth, textFile('hello.txt'));
      return bulkDelete(auth, { ids: [id, unknownId()] });
    },
  },
  'validation 400': {
    status: 400,
    code: 'VALIDATION_ERROR',
    send: async () => call('/api/v2/files?page=0', { headers: await authed() }),
  },
  'bulk delete 400': {
    status: 400,
    code: 'VALIDATION_ERROR',
    send: async () => bulkDelete(await authed(), '{"ids":'),
  },
  'unauthorized 401': { status: 401, code: 'UNAUTHORIZED', send: () => call('/api/v2/files') },
  'unknown file 404': {
    status: 404,
    code: 'FILE_NOT_FOUND',
    send: async () => call(`/api/v2/files/${unknownId()}`, { headers: await authed() }),
  },
  'unknown route 404': {
    status: 404,
    code: 'NOT_FOUND',
    send: async () => call('/api/v2/nothing-here', { headers: await authed() }),
  },
  'wrong method 405': {
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    send: async () => call('/api/v2/files', { method: 'PUT', headers: await authed() }),
  },
  'too large 413': {
    status: 413,
    code: 'FILE_TOO_LARGE',
    send: async () =>
      (await upload('v2', await authed(), textFile('big.txt', 'x'.repeat(2000)), { env: { MAX_FILE_SIZE: '1000' } }))
        .response,
  },
  'bad type 415': {
    status: 415,
    code: 'INVALID_FILE_TYPE',
    send: async () => (await upload('v2', await authed(), { filename: 'tool.bin', content: ELF })).response,
  },
  'rate limited 429': {
    status: 429,
    code: 'RATE_LIMITED',
    send: async () => {
      const { auth } = await createKey('x', { rateLimitRequests: 1, rateLimitWindowSeconds: 3600 });
      expect((await call('/api/v2/files', { headers: auth })).status).toBe(200);
      return call('/api/v2/files', { headers: auth });
    },
  },
  'storage failure 500': {
    status: 500,
    code: 'UPLOAD_FAILED',
    send: async () => {
      const { bucket } = instrumentedBucket(env.FILES, { failPutNumber: 1 });
      return call(
        '/api/v2/upload',
        { method: 'POST', headers: await authed(), body: filesForm([textFile('a.txt')], {}, 'file') },
        { FILES: bucket },
      );
    },
  },
};

describe('v2 _perf and Server-Timing', () => {
  it.each(Object.entries(PROBES))('%s carries an integer _perf and a Server-Timing total', async (_name, probe) => {
    const response = await probe.send();
    const body = await json<{ code?: string }>(response);
    expect({ status: response.status, code: body.code }).toEqual({ status: probe.status, code: probe.code });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const perf = expectPerfValue(body);
    const total = serverTiming(response).get('total');
    expect(total).toBeDefined();
    // Same measurement: the header keeps one decimal, _perf rounds to whole milliseconds.
    expect(Math.abs(perf - (total ?? Number.NaN))).toBeLessThanOrEqual(1);
  });

  it('sends the same total in Server-Timing as in _perf, however long the Worker works after the body', async () => {
    // The idempotency record is written after the body is made and before the answer leaves: made
    // slow here, as a loaded machine makes any such step, it must not split the two measurements.
    const IDEMPOTENCY = slowStubs(env.IDEMPOTENCY, 'complete', 40);
    const response = await call(
      '/api/v2/upload',
      {
        method: 'POST',
        headers: { ...(await authed()), 'Idempotency-Key': 'perf-total' },
        body: filesForm([textFile('a.txt')], {}, 'file'),
      },
      { IDEMPOTENCY },
    );
    expect(response.status).toBe(201);
    const perf = expectPerfValue(await json(response));
    expect(Math.abs(perf - (serverTiming(response).get('total') ?? Number.NaN))).toBeLessThanOrEqual(1);
  });

  it('measures real time: a slow R2 write shows in _perf and in r2', async () => {
    const { bucket } = instrumentedBucket(env.FILES, { delayMs: 30 });
    const response = await call(
      '/api/v2/upload',
      { method: 'POST', headers: await authed(), body: filesForm([textFile('a.txt')], {}, 'file') },
      { FILES: bucket },
    );
    expect(response.status).toBe(201);
    const perf = expectPerfValue(await json(response));
    const spans = serverTiming(response);
    expect(perf).toBeGreaterThanOrEqual(29);
    expect(spans.get('r2')).toBeGreaterThanOrEqual(29);
    expect(spans.get('total')).toBeGreaterThanOrEqual(spans.get('r2') ?? Number.POSITIVE_INFINITY);
  });

  it('sends _perf once, as the last top-level field, and keeps the body valid JSON', async () => {
    const response = await call('/api/v2/files', { headers: await authed() });
    const text = await response.text();
    expect(text.match(/"_perf"/g)).toHaveLength(1);
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['success', 'data', '_perf']);
  });

  it('times auth, rate limit, D1 and R2 for an upload', async () => {
    const response = (await upload('v2', await authed(), textFile('a.txt'))).response;
    expect(response.status).toBe(201);
    expect([...serverTiming(response).keys()].sort()).toEqual(['auth', 'd1', 'r2', 'ratelimit', 'total']);
  });

  it('times auth, rate limit and D1 for a list', async () => {
    const response = await call('/api/v2/files', { headers: await authed() });
    const spans = serverTiming(response);
    for (const name of ['auth', 'ratelimit', 'd1', 'total']) expect(spans.has(name), name).toBe(true);
  });

  it('times D1 for the file-request and key routes as for the file routes', async () => {
    const auth = await authed();
    const created = await call('/api/v2/requests', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{}',
    });
    const { data } = await json<{ data: { id: string } }>(created.clone());
    const responses = {
      'POST /requests': created,
      'GET /requests': await call('/api/v2/requests', { headers: auth }),
      'GET /requests/{id}/files': await call(`/api/v2/requests/${data.id}/files`, { headers: auth }),
      'GET /keys': await call('/api/v2/keys', { headers: auth }),
    };
    for (const [name, response] of Object.entries(responses)) {
      expect(response.status, name).toBeLessThan(300);
      expect(serverTiming(response).has('d1'), name).toBe(true);
    }
  });

  it('times D1 on a file request’s public paths (no key)', async () => {
    const created = await call('/api/v2/requests', {
      method: 'POST',
      headers: { ...(await authed()), 'Content-Type': 'application/json' },
      body: '{}',
    });
    const { data } = await json<{ data: { uploadUrl: string } }>(created);
    const path = new URL(data.uploadUrl).pathname.replace(/\/upload$/, '');
    const response = await call(path);
    expect(response.status).toBe(200);
    expect(serverTiming(response).has('d1')).toBe(true);
  });

  it('times auth, rate limit, D1 and R2 for a download, and leaves the bytes alone', async () => {
    const auth = await authed();
    const { id } = await uploadOk('v2', auth, textFile('a.txt', 'plain bytes'));
    const response = await call(`/api/v2/files/${id}/download`, { headers: auth });
    expect(response.status).toBe(200);
    expect([...serverTiming(response).keys()].sort()).toEqual(['auth', 'd1', 'r2', 'ratelimit', 'total']);
    expect(await response.text()).toBe('plain bytes');
  });

  it('never adds _perf to a downloaded JSON file (whole, ranged or HEAD)', async () => {
    const auth = await authed();
    const content = '{"hello":"world","n":[1,2,3]}';
    const { id } = await uploadOk('v2', auth, { filename: 'data.json', type: 'application/json', content });
    const whole = await call(`/api/v2/files/${id}/download`, { headers: auth });
    expect(whole.status).toBe(200);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytesOf(content));
    expect(whole.headers.get('content-length')).toBe(String(content.length));
    expect(whole.headers.get('server-timing')).toMatch(/total;dur=/);

    const ranged = await call(`/api/v2/files/${id}/download`, { headers: { ...auth, Range: 'bytes=0-15' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe(content.slice(0, 16));

    const head = await call(`/api/v2/files/${id}/download`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(content.length));
  });

  it('sends Server-Timing on a 304', async () => {
    const auth = await authed();
    const { id } = await uploadOk('v2', auth, textFile('hello.txt'));
    const first = await call(`/api/v2/files/${id}/download`, { headers: auth });
    await first.arrayBuffer();
    const etag = first.headers.get('etag') ?? '';
    const again = await call(`/api/v2/files/${id}/download`, { headers: { ...auth, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(serverTiming(again).has('total')).toBe(true);
  });
});

describe('v1 has no _perf', () => {
  it('leaves _perf out of every v1 answer, success and error', async () => {
    const auth = await authed();
    const uploaded = await call('/api/v1/upload', {
      method: 'POST',
      headers: auth,
      body: filesForm([textFile('a.txt')], {}, 'file'),
    });
    const { data } = await json<{ data: { id: string } }>(uploaded.clone());
    const responses = [
      uploaded,
      await call('/api/v1/files', { headers: auth }),
      await call(`/api/v1/files/${data.id}`, { headers: auth }),
      await call('/api/v1/files?page=0', { headers: auth }),
      await call('/api/v1/files'),
      await call(`/api/v1/files/${unknownId()}`, { headers: auth }),
      await call('/api/v1/files', { method: 'PUT', headers: auth }),
      await call(`/api/v1/files/${data.id}`, { method: 'DELETE', headers: auth }),
    ];
    expect(responses.map((response) => response.status)).toEqual([201, 200, 200, 400, 401, 404, 405, 200]);
    for (const response of responses) expect(await json<object>(response)).not.toHaveProperty('_perf');
  });
});

describe('GET /api/v2/openapi.json', () => {
  it('has no _perf and lists the bulk endpoints', async () => {
    const response = await call('/api/v2/openapi.json');
    expect(response.status).toBe(200);
    const doc = await json<{ paths: Record<string, Record<string, unknown>>; _perf?: number }>(response);
    expect(doc).not.toHaveProperty('_perf');
    expect(Object.keys(doc.paths['/upload/bulk'] ?? {})).toContain('post');
    expect(Object.keys(doc.paths['/files/bulk'] ?? {})).toContain('delete');
  });

  it('is decided by route: errors under paths ending in /openapi.json carry _perf', async () => {
    const auth = await authed();
    const responses = [
      await call('/api/v2/files/openapi.json', { headers: auth }),
      await call('/api/v2/files/openapi.json'),
      await call('/api/v2/openapi.json', { method: 'POST', headers: auth }),
      await call('/api/v2/nothing/openapi.json', { headers: auth }),
    ];
    for (const response of responses) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(await json<object>(response)).toHaveProperty('_perf');
    }
  });

  it('keeps the bulk endpoints out of the v1 document', async () => {
    const doc = await json<{ paths: Record<string, unknown> }>(await call('/api/v1/openapi.json'));
    expect(Object.keys(doc.paths)).not.toContain('/upload/bulk');
    expect(Object.keys(doc.paths)).not.toContain('/files/bulk');
  });
});

// Clear answers to mistakes: each message says what was wrong and, for limits, what the limit is.
// And the request log never carries a share token.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAdminRouter } from '../../src/keys/admin-routes';
import { type OpenApiDocument, operationsOf, type Schema } from '../helpers/openapi';
import type { ErrorBody } from '../helpers/records';
import { json } from '../helpers/responses';
import { form, upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

afterEach(() => {
  vi.restoreAllMocks();
});

async function error(response: Response, status: number, code: string): Promise<ErrorBody> {
  expect(response.status).toBe(status);
  const body = await json<ErrorBody>(response);
  expect(body.code).toBe(code);
  return body;
}

describe('list query mistakes', () => {
  it.each([
    ['page=-1', 'page', 'page must be at least 1'],
    ['page=0', 'page', 'page must be at least 1'],
    ['limit=0', 'limit', 'limit must be at least 1'],
    ['limit=101', 'limit', 'limit must be at most 100'],
    ['limit=2.5', 'limit', 'limit must be a whole number'],
    ['page=1&page=2', 'page', 'page was given more than once'],
    ['limit=5&limit=5', 'limit', 'limit was given more than once'],
  ])('%s → 400 naming %s: "%s"', async (query, field, message) => {
    const { auth } = await createKey();
    for (const version of ['v1', 'v2']) {
      const body = await error(
        await call(`/api/${version}/files?${query}`, { headers: auth }),
        400,
        'VALIDATION_ERROR',
      );
      expect(body.details).toEqual([{ field, message }]);
      expect(body.error).toContain(message);
    }
  });
});

// Every JSON body the API takes, walked from the OpenAPI documents (v1, v2 and the admin API's):
// each required field left out, each field of the wrong type, the body not an object, a field no
// route takes. Each answer is a 400 whose every detail names its field and says what it must be.
// zod's stock phrases (the lookbehind spares the event type request.received).
const ZOD_WORDING = /(?<![.\w])(expected|received)\b|invalid input/i;
const ADMIN = { Authorization: 'Bearer test-admin-token-0123456789abcdefghij' };

type Walked = {
  label: string;
  path: string;
  method: string;
  admin: boolean;
  required: string[];
  /** Each property with a value of the wrong JSON type for it. */
  wrong: [string, unknown][];
};
const walked: Walked[] = [];

const resolve = (doc: OpenApiDocument, schema: Schema): Schema => {
  const ref = typeof schema.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : undefined;
  return ref ? resolve(doc, doc.components.schemas?.[ref] ?? {}) : schema;
};

/** A value of the wrong JSON type for a property, or undefined when any type would do. */
function wrongValue(doc: OpenApiDocument, property: Schema): unknown {
  const schema = resolve(doc, property);
  const options = (schema.anyOf as Schema[] | undefined)?.map((option) => resolve(doc, option)) ?? [schema];
  const types = options.flatMap((option) => {
    const values = option.enum as unknown[] | undefined;
    return [option.type ?? (values ? typeof values[0] : [])].flat();
  });
  if (types.includes('string')) return 12_345;
  if (types.includes('integer') || types.includes('number')) return 'twelve';
  if (types.includes('boolean')) return 'yes';
  if (types.includes('array') || types.includes('object')) return 'x';
  return undefined;
}

/** For an array property, an array holding one item of the wrong type, or undefined. */
function wrongItem(doc: OpenApiDocument, property: Schema): unknown[] | undefined {
  const schema = resolve(doc, property);
  const items =
    (schema.anyOf as Schema[] | undefined)?.map((option) => resolve(doc, option)).find((o) => o.items)?.items ??
    schema.items;
  const item = items ? wrongValue(doc, items as Schema) : undefined;
  return item === undefined ? undefined : [item];
}

beforeAll(async () => {
  const admin = createAdminRouter().getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'admin', version: '1' } });
  const documents: [string, OpenApiDocument, string][] = [
    ['v1', (await (await call('/api/v1/openapi.json')).json()) as OpenApiDocument, '/api/v1'],
    ['v2', (await (await call('/api/v2/openapi.json')).json()) as OpenApiDocument, '/api/v2'],
    ['admin', admin as unknown as OpenApiDocument, '/admin'],
  ];
  for (const [name, doc, prefix] of documents) {
    for (const { method, path, operation } of operationsOf(doc)) {
      const body = operation.requestBody?.content['application/json']?.schema;
      if (!body) continue;
      const schema = resolve(doc, body);
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      walked.push({
        label: `${name} ${method.toUpperCase()} ${path}`,
        path: `${prefix}${path.replace(/\{[^}]+\}/g, 'x_unknown')}`,
        method: method.toUpperCase(),
        admin: name === 'admin',
        required: (schema.required ?? []) as string[],
        wrong: Object.entries(properties)
          .flatMap(([field, property]): [string, unknown][] => [
            [field, wrongValue(doc, property)],
            [field, wrongItem(doc, property)],
          ])
          .filter(([, value]) => value !== undefined),
      });
    }
  }
});

describe('validation messages of every JSON body', () => {
  it('name their field and say what it must be: never zod’s own words', async () => {
    expect(walked.length).toBeGreaterThanOrEqual(10);
    const { auth } = await createKey('message walker', { rateLimitRequests: 100_000 });
    const send = async (route: Walked, body: unknown) => {
      const response = await call(route.path, {
        method: route.method,
        headers: { ...(route.admin ? ADMIN : auth), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await json<ErrorBody>(response) };
    };
    const problems: string[] = [];
    const expectNamed = (
      route: Walked,
      sent: unknown,
      answer: { status: number; body: ErrorBody },
      named: string[],
    ) => {
      const at = `${route.label} ${JSON.stringify(sent)} → ${answer.status} ${JSON.stringify(answer.body)}`;
      if (answer.status !== 400 || answer.body.code !== 'VALIDATION_ERROR')
        return void problems.push(`not a 400: ${at}`);
      const details = (answer.body.details ?? []).filter(
        (detail): detail is { field: string; message: string } => 'field' in detail,
      );
      if (details.length === 0) problems.push(`no details: ${at}`);
      for (const { field, message } of details) {
        const name =
          field
            .split('.')
            .filter((part) => !/^\d+$/.test(part))
            .at(-1) ?? field;
        if (ZOD_WORDING.test(message)) problems.push(`zod's words: ${at}`);
        if (!message.includes(name)) problems.push(`${field} not named in "${message}": ${at}`);
      }
      for (const field of named) {
        if (!details.some((detail) => detail.field === field || detail.field.startsWith(`${field}.`))) {
          problems.push(`no detail for ${field}: ${at}`);
        }
      }
    };
    for (const route of walked) {
      // Every required field left out: each is named (and a body that asks for nothing is refused in words).
      const empty = await send(route, {});
      if (route.required.length > 0 || empty.status === 400) expectNamed(route, {}, empty, route.required);
      // A field no route takes, beside the required ones left out: refused by name where the body is strict.
      const unknown = await send(route, { colour: 'red' });
      if (unknown.status === 400) expectNamed(route, { colour: 'red' }, unknown, route.required);
      // The body not an object.
      for (const body of [[], 'text', 42]) expectNamed(route, body, await send(route, body), []);
      // Each field of the wrong type, alone.
      for (const [field, value] of route.wrong) {
        const body = { [field]: value };
        expectNamed(route, body, await send(route, body), [field]);
      }
    }
    expect(problems).toEqual([]);
  });

  it.each([
    ['a missing name', {}, 'name', 'name is required'],
    ['a name that is a number', { name: 42 }, 'name', 'name must be a string'],
    ['a scope that is not a string', { name: 'x', scopes: [7] }, 'scopes.0', 'scopes.0 must be one of'],
    [
      'a field the route does not take',
      { name: 'x', colour: 'red' },
      'body',
      'body has a field this request does not take: colour',
    ],
    ['an expiry that is text', { name: 'x', expiresIn: 'soon' }, 'expiresIn', 'expiresIn must be a number'],
    ['a fractional expiry', { name: 'x', expiresIn: 90.5 }, 'expiresIn', 'expiresIn must be a whole number'],
  ])('POST /api/v2/keys with %s: "%s"', async (_label, body, field, message) => {
    const { auth } = await createKey();
    const response = await call('/api/v2/keys', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await error(response, 400, 'VALIDATION_ERROR');
    expect(answer.details).toEqual([{ field, message: expect.stringContaining(message) }]);
    expect(answer.error).toContain(message);
  });
});

describe('413 messages state the limit', () => {
  it('FILE_TOO_LARGE names MAX_FILE_SIZE, whether refused from Content-Length or while streaming', async () => {
    const { auth } = await createKey();
    const overrides = { MAX_FILE_SIZE: '1048576' };
    const big = new Uint8Array(1_048_577).fill(65);
    const early = await call(
      '/api/v1/upload',
      { method: 'POST', headers: auth, body: form([{ filename: 'big.txt', content: new Uint8Array(2_000_000) }]) },
      overrides,
    );
    expect((await error(early, 413, 'FILE_TOO_LARGE')).error).toContain('1048576 bytes (1 MiB)');
    const streamed = await call(
      '/api/v2/upload',
      { method: 'POST', headers: auth, body: form([{ filename: 'big.txt', content: big }]) },
      overrides,
    );
    expect((await error(streamed, 413, 'FILE_TOO_LARGE')).error).toContain('1048576 bytes (1 MiB)');
  });

  it('STORAGE_EXCEEDED names the quota', async () => {
    const { auth } = await createKey('small quota', { storageQuotaBytes: 1_536 });
    const body = await error(
      await call('/api/v1/upload', {
        method: 'POST',
        headers: auth,
        body: form([{ filename: 'a.txt', content: 'x'.repeat(2_000) }]),
      }),
      413,
      'STORAGE_EXCEEDED',
    );
    expect(body.error).toContain('this account may store at most 1536 bytes (1.5 KiB)');
  });
});

describe('bulk delete body', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
  ])('sent as %s gets the 400 VALIDATION_ERROR envelope asking for JSON', async (_label, type) => {
    const { auth } = await createKey();
    const response = await call('/api/v2/files/bulk', {
      method: 'DELETE',
      headers: { ...auth, 'Content-Type': type },
      body: JSON.stringify({ ids: ['x'] }),
    });
    const body = await error(response, 400, 'VALIDATION_ERROR');
    expect(body.details).toEqual([{ field: 'body', message: expect.stringContaining('application/json') }]);
  });
});

describe('the request log', () => {
  it('names the share route, never the share token', async () => {
    const { auth } = await createKey();
    const { body } = await upload('v1', auth, { filename: 'a.txt', content: 'secret link' });
    const token = new URL(body.data.shareUrl).pathname.split('/')[2] ?? '';
    expect(token).toHaveLength(32);
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    for (const path of [
      `/share/${token}`,
      `/share/${token}/download`,
      `/share/${token}/view`,
      '/share/unknown-token',
    ]) {
      await (await call(path)).arrayBuffer();
    }
    const requests = lines.filter((line) => line.includes('"msg":"request"'));
    expect(requests).toHaveLength(4);
    expect(requests.join('\n')).not.toContain(token);
    expect(requests.join('\n')).not.toContain('unknown-token');
    expect(requests.map((line) => JSON.parse(line).path)).toEqual([
      '/share/:token',
      '/share/:token/download',
      '/share/:token/view',
      '/share/:token',
    ]);
  });
});

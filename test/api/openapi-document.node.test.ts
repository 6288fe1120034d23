// The OpenAPI documents themselves, checked in Node: valid OpenAPI 3.1 by an independent
// validator (@seriousme/openapi-schema-validator, the official OpenAPI JSON Schemas with Ajv, plus
// $ref resolution), every schema inside valid JSON Schema 2020-12, and complete enough for a
// generated client: every served route documented, one operationId each, binary bodies, headers.
// (The validator reads its schemas from disk, so it runs here and not in workerd; real responses
// are checked against these documents in test/http/openapi-responses.test.ts.)
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { ERROR_STATUS } from '../../src/errors';
import {
  documentedRoutes,
  type OpenApiDocument,
  operationById,
  operationsOf,
  resolveHeader,
  type Schema,
  schemaCompiler,
  servedRoutes,
} from '../helpers/openapi';

const VERSIONS = ['v1', 'v2'] as const;
const app = createApp();
const docs = {} as Record<(typeof VERSIONS)[number], OpenApiDocument>;

beforeAll(async () => {
  for (const version of VERSIONS) {
    // Only the configuration is needed: the documents are served before authentication.
    const response = await app.request(`/api/${version}/openapi.json`, {}, {});
    expect(response.status).toBe(200);
    docs[version] = (await response.json()) as OpenApiDocument;
  }
});

/** The component schema a `{$ref}` points at. */
const componentOf = (doc: OpenApiDocument, schema: Schema | undefined) =>
  doc.components.schemas?.[String(schema?.$ref).replace('#/components/schemas/', '')];

/** Every schema object a document holds: components, parameters, bodies and response headers. */
function schemasOf(doc: OpenApiDocument): [string, Schema][] {
  const found: [string, Schema][] = Object.entries(doc.components.schemas ?? {}).map(([name, schema]) => [
    `components.schemas.${name}`,
    schema,
  ]);
  for (const [name, header] of Object.entries(doc.components.headers ?? {})) {
    if (header.schema) found.push([`components.headers.${name}`, header.schema]);
  }
  for (const { method, path, operation } of operationsOf(doc)) {
    const at = `${method.toUpperCase()} ${path}`;
    for (const parameter of operation.parameters ?? []) found.push([`${at} ${parameter.name}`, parameter.schema]);
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
      found.push([`${at} body ${type}`, media.schema]);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [type, media] of Object.entries(response.content ?? {})) {
        found.push([`${at} ${status} ${type}`, media.schema]);
      }
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        const schema = resolveHeader(doc, header).schema;
        if (schema) found.push([`${at} ${status} header ${name}`, schema]);
      }
    }
  }
  return found;
}

describe.each(VERSIONS)('the %s OpenAPI document', (version) => {
  it('is a valid OpenAPI 3.1 document, every $ref resolved', async () => {
    const doc = docs[version];
    expect(doc.openapi).toBe('3.1.0');
    // A copy: the validator may resolve refs in what it is given.
    const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('holds only valid JSON Schema 2020-12 (strict: no unknown keyword, type or format)', () => {
    const compile = schemaCompiler(docs[version], { closed: false });
    const schemas = schemasOf(docs[version]);
    expect(schemas.length).toBeGreaterThan(20);
    for (const [where, schema] of schemas) expect(() => compile(schema), where).not.toThrow();
  });

  it('documents every route the app serves under it, and nothing it does not serve', () => {
    // A new route (the tus uploads under /api/v2/uploads, say) fails here until it is documented.
    const served = servedRoutes(app.routes, version);
    const documented = documentedRoutes(docs[version]);
    // Hono answers HEAD through GET: a documented HEAD is served by the GET route.
    const heads = documented.filter((route) => route.startsWith('HEAD '));
    for (const head of heads) expect(served).toContain(head.replace(/^HEAD /, 'GET '));
    // The CORS middleware answers every OPTIONS (tus discovery is one): its path must be served.
    const options = documented.filter((route) => route.startsWith('OPTIONS '));
    for (const option of options) {
      const path = option.replace(/^OPTIONS /, '');
      expect(served.some((route) => route.endsWith(` ${path}`))).toBe(true);
    }
    expect(documented.filter((route) => !route.startsWith('HEAD ') && !route.startsWith('OPTIONS '))).toEqual(served);
  });

  it('names every operation with a unique operationId, the same in both versions for the same operation', () => {
    const operations = operationsOf(docs[version]);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const v1 = new Map(operationsOf(docs.v1).map(({ method, path, operation }) => [`${method} ${path}`, operation]));
    for (const { method, path, operation } of operations) {
      const same = v1.get(`${method} ${path}`);
      if (same) expect(operation.operationId).toBe(same.operationId);
    }
  });

  it('asks for a bearer key everywhere', () => {
    const doc = docs[version];
    expect(doc.components.securitySchemes?.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  it('gives every authenticated response the rate-limit headers, every 429 Retry-After, every 401 WWW-Authenticate', () => {
    const doc = docs[version];
    expect(Object.keys(doc.components.headers ?? {}).sort()).toEqual([
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
    for (const { method, path, operation } of operationsOf(doc)) {
      // An operation that needs no key (tus discovery) is neither authenticated nor counted.
      if (operation.security?.length === 0) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        const names = Object.keys(response.headers ?? {});
        const at = `${method} ${path} ${status}`;
        if (status === 'default') continue;
        if (status === '401') expect(names, at).toEqual(['WWW-Authenticate']);
        else expect(names, at).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining']));
        if (status === '429') expect(names, at).toContain('Retry-After');
      }
      for (const status of ['401', '429', 'default'])
        expect(operation.responses[status], `${path} ${status}`).toBeDefined();
    }
  });

  it('shows each error response its own example: codes answered with that status, not FILE_NOT_FOUND for all', () => {
    const statuses = ERROR_STATUS as Record<string, number>;
    let seen = 0;
    for (const { method, path, operation } of operationsOf(docs[version])) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status !== 'default' && Number(status) < 400) continue;
        const media = response.content?.['application/json'] as
          | { examples?: Record<string, { value: { code: string; error: string } }> }
          | undefined;
        if (!media) continue;
        const at = `${method} ${path} ${status}`;
        const examples = Object.values(media.examples ?? {});
        expect(examples.length, at).toBeGreaterThan(0);
        for (const { value } of examples) {
          expect(statuses[value.code], at).toBe(status === 'default' ? 500 : Number(status));
          expect(value.error, at).toBeTruthy();
          seen++;
        }
        // A file request's public paths take no key: their 401 is the request's password.
        if (status === '401')
          expect(
            examples.map(({ value }) => value.code),
            at,
          ).toEqual(path.startsWith('/r/') ? ['PASSWORD_REQUIRED'] : ['UNAUTHORIZED']);
      }
    }
    expect(seen).toBeGreaterThan(20);
  });

  it('describes uploads as binary file parts', () => {
    const upload = operationById(docs[version], 'uploadFile').operation;
    const form = upload.requestBody?.content['multipart/form-data']?.schema as Schema;
    const schema = componentOf(docs[version], form);
    expect(schema).toMatchObject({ properties: { file: { type: 'string', format: 'binary' } } });
  });

  it('describes downloads: binary bodies with their headers, HEAD, and the conditional request headers', () => {
    const doc = docs[version];
    for (const id of ['downloadFile', 'downloadFileHead']) {
      const { method, operation } = operationById(doc, id);
      expect(method).toBe(id === 'downloadFile' ? 'get' : 'head');
      expect(operation.parameters?.map((parameter) => `${parameter.in} ${parameter.name}`)).toEqual([
        'path id',
        'header Range',
        'header If-None-Match',
        'header If-Modified-Since',
        'header If-Range',
      ]);
      for (const status of ['200', '206']) {
        const response = operation.responses[status];
        const headers = Object.keys(response?.headers ?? {});
        expect(headers).toEqual(expect.arrayContaining(['Content-Disposition', 'ETag', 'Content-Length']));
        if (status === '206') expect(headers).toContain('Content-Range');
        if (method === 'get') expect(response?.content?.['*/*']?.schema).toMatchObject({ format: 'binary' });
        else expect(response?.content).toBeUndefined();
      }
      expect(Object.keys(operation.responses).sort()).toEqual(
        ['200', '206', '304', '401', '403', '404', '416', '429', 'default'].sort(),
      );
      expect(Object.keys(operation.responses['416']?.headers ?? {})).toContain('Content-Range');
    }
  });
});

describe('the v2 document', () => {
  it('describes bulk upload parts as binary files, named files or files[]', () => {
    const doc = docs.v2;
    const { operation } = operationById(doc, 'uploadFiles');
    const schema = componentOf(doc, operation.requestBody?.content['multipart/form-data']?.schema);
    const binaryArray = { type: 'array', items: { type: 'string', format: 'binary' } };
    expect(schema).toMatchObject({ properties: { files: binaryArray, 'files[]': binaryArray } });
  });

  it('documents the additions: PATCH with its body, list search and sort, usage', () => {
    const doc = docs.v2;
    const update = operationById(doc, 'updateFile');
    expect(`${update.method} ${update.path}`).toBe('patch /files/{id}');
    expect(Object.keys(update.operation.requestBody?.content ?? {})).toEqual(['application/json']);
    const list = operationById(doc, 'listFiles').operation;
    expect(list.parameters?.map((parameter) => parameter.name)).toEqual(['page', 'limit', 'q', 'sort', 'order']);
    expect(operationById(doc, 'getUsage').path).toBe('/usage');
    expect(operationById(docs.v1, 'listFiles').operation.parameters?.map((parameter) => parameter.name)).toEqual([
      'page',
      'limit',
    ]);
  });
});

// Reading our OpenAPI documents in tests: their operations, and validators for the JSON Schemas
// inside them (JSON Schema 2020-12, OpenAPI 3.1's dialect), compiled by Ajv in strict mode.
// Used both in workerd (real responses) and in Node (the documents themselves).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export type Schema = Record<string, unknown>;
export type HeaderSpec = { $ref?: string; required?: boolean; schema?: Schema; description?: string };
export type ResponseSpec = {
  description: string;
  headers?: Record<string, HeaderSpec>;
  content?: Record<string, { schema: Schema }>;
};
export type ParameterSpec = { name: string; in: string; required?: boolean; schema: Schema };
export type Operation = {
  operationId?: string;
  /** `[]` for an operation that needs no key (tus discovery). */
  security?: Record<string, string[]>[];
  parameters?: ParameterSpec[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, ResponseSpec>;
};
export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas?: Record<string, Schema>;
    headers?: Record<string, HeaderSpec>;
    securitySchemes?: Record<string, Schema>;
  };
  security?: Record<string, string[]>[];
};

export const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;

/** Every operation of a document, with its method and path. */
export function operationsOf(doc: OpenApiDocument) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] ? [{ method, path, operation: item[method] as Operation }] : [])),
  );
}

export function operationById(doc: OpenApiDocument, operationId: string) {
  const found = operationsOf(doc).find((entry) => entry.operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
}

/** A response header as documented, its $ref (to components.headers) resolved. */
export function resolveHeader(doc: OpenApiDocument, header: HeaderSpec): HeaderSpec {
  if (!header.$ref) return header;
  const name = header.$ref.replace('#/components/headers/', '');
  const resolved = doc.components.headers?.[name];
  if (!resolved) throw new Error(`unresolved ${header.$ref}`);
  return resolved;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOC_ID = 'https://edgeshare.test/openapi.json';

// Refs to the document's schemas, pointed at the copy registered with Ajv.
const rewriteRefs = (schema: unknown): Schema =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${DOC_ID}#/$defs/`));

/**
 * Closes every object schema that does not say otherwise, so a field a response sends but the
 * document does not name fails validation (objects combined by allOf are left open).
 */
function closeObjects(schema: unknown, inAllOf = false): void {
  if (Array.isArray(schema)) {
    for (const item of schema) closeObjects(item, inAllOf);
    return;
  }
  if (typeof schema !== 'object' || schema === null) return;
  const object = schema as Schema;
  if (object.properties && !('additionalProperties' in object) && !inAllOf) object.additionalProperties = false;
  for (const [key, value] of Object.entries(object)) closeObjects(value, key === 'allOf');
}

/**
 * Compiles the document's schemas with Ajv (2020-12, strict: an unknown keyword or format is an
 * error). OpenAPI's own annotations (example, discriminator, xml, externalDocs) and the `binary`
 * format are known to it. With `closed`, objects refuse fields they do not name.
 */
export function schemaCompiler(doc: OpenApiDocument, options: { closed: boolean }) {
  // strictRequired off: `not: { required: [a, b] }` (a and b exclude each other) is valid JSON Schema.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  const defs = rewriteRefs(doc.components.schemas ?? {});
  if (options.closed) closeObjects(defs);
  ajv.addSchema({ $id: DOC_ID, $defs: defs });
  const cache = new Map<unknown, ValidateFunction>();
  return (schema: Schema): ValidateFunction => {
    const known = cache.get(schema);
    if (known) return known;
    const copy = rewriteRefs(schema);
    if (options.closed) closeObjects(copy);
    const validate = ajv.compile(copy);
    cache.set(schema, validate);
    return validate;
  };
}

/** The API routes an app serves (from Hono's route list), as `METHOD /path/{param}` without the version prefix. */
export function servedRoutes(routes: { method: string; path: string }[], version: 'v1' | 'v2'): string[] {
  const prefix = `/api/${version}/`;
  const served = routes
    .filter((route) => route.method !== 'ALL' && route.path.startsWith(prefix) && !route.path.endsWith('/openapi.json'))
    .map((route) => `${route.method} ${route.path.slice(prefix.length - 1).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
  return [...new Set(served)].sort();
}

export const documentedRoutes = (doc: OpenApiDocument) =>
  operationsOf(doc)
    .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
    .sort();

// What an MCP tool is: a REST operation's rules behind a name. Its arguments are validated by the
// very zod schemas of the REST route it mirrors (its path parameters, query and JSON body), and
// its JSON Schema is written from them by the generator that writes the OpenAPI document, so a
// tool and its route cannot drift (test/mcp/schemas.test.ts compares them).
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { validationError, zodValidationError } from '../errors';
import type { Scope } from '../limiter/scopes';

type AnyObject = z.ZodObject<z.core.$ZodLooseShape>;

/**
 * The schemas a tool's arguments go through, as the REST route's do: `params` (path parameters
 * and the tool's own fields), `query` (a query's schema: numbers and booleans arrive as JSON and
 * are read as the query's text), `body` (the JSON body's schema: every other argument).
 */
export type ToolInput<P extends AnyObject, Q extends AnyObject, B extends AnyObject> = {
  params?: P;
  query?: Q;
  body?: B;
};

export type ToolArgs<P extends AnyObject, Q extends AnyObject, B extends AnyObject> = {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
};

export type McpTool = {
  name: string;
  description: string;
  /** The scope of the REST route it mirrors; null: any valid key. */
  scope: Scope | null;
  /** The REST operations whose schemas it reuses (operationId), for the comparison test. */
  operations: string[];
  /** The arguments' JSON Schema (an object), as tools/list shows it. */
  inputSchema(): JsonObject;
  /** Validates the arguments (400 VALIDATION_ERROR as over REST) and runs: the REST answer's `data`. */
  call(c: Context<AppEnv>, args: Record<string, unknown>): Promise<unknown>;
};

export type JsonObject = { [key: string]: unknown };

const EMPTY = z.object({});

/** Declares a tool (see McpTool). `operations`: the REST operations whose schemas `input` takes. */
export function tool<
  P extends AnyObject = typeof EMPTY,
  Q extends AnyObject = typeof EMPTY,
  B extends AnyObject = typeof EMPTY,
>(definition: {
  name: string;
  description: string;
  scope: Scope | null;
  operations: string[];
  input: ToolInput<P, Q, B>;
  run(c: Context<AppEnv>, args: ToolArgs<P, Q, B>): Promise<unknown>;
}): McpTool {
  const { input } = definition;
  let schema: JsonObject | undefined;
  return {
    name: definition.name,
    description: definition.description,
    scope: definition.scope,
    operations: definition.operations,
    inputSchema: () => {
      schema ??= jsonSchemaOf(input);
      return schema;
    },
    call: (c, args) => definition.run(c, parseArgs(input, args) as ToolArgs<P, Q, B>),
  };
}

/** Exactly one of `names` is given: its name, else a 400 naming the first. */
export function oneOf<T extends Record<string, unknown>>(args: T, names: (keyof T & string)[]): keyof T & string {
  const given = names.filter((name) => args[name] !== undefined);
  const [only] = given;
  if (given.length !== 1 || only === undefined) {
    throw validationError(names[0] ?? 'id', `give exactly one of ${names.join(', ')}`);
  }
  return only;
}

const keysOf = (schema: AnyObject | undefined) => Object.keys(schema?.shape ?? {});

function pick(args: Record<string, unknown>, keys: string[], asText = false): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of keys) {
    const value = args[key];
    if (value === undefined) continue;
    picked[key] = asText && (typeof value === 'number' || typeof value === 'boolean') ? String(value) : value;
  }
  return picked;
}

function parsePiece(schema: AnyObject | undefined, value: Record<string, unknown>): unknown {
  if (!schema) return {};
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodValidationError(parsed.error.issues);
  return parsed.data;
}

/** The arguments through the route's schemas, in the route's order: parameters, query, body. */
function parseArgs(input: ToolInput<AnyObject, AnyObject, AnyObject>, args: Record<string, unknown>) {
  const paramKeys = keysOf(input.params);
  const queryKeys = keysOf(input.query);
  const taken = new Set([...paramKeys, ...queryKeys]);
  const rest = Object.fromEntries(Object.entries(args).filter(([key]) => !taken.has(key)));
  return {
    params: parsePiece(input.params, pick(args, paramKeys)),
    query: parsePiece(input.query, pick(args, queryKeys, true)),
    body: parsePiece(input.body, rest),
  };
}

/**
 * The arguments' JSON Schema, written by the OpenAPI document's generator from the same zod
 * schemas (descriptions, bounds and the query's integers as the document shows them): one object
 * of every piece's properties, required where its piece requires them.
 */
function jsonSchemaOf(input: ToolInput<AnyObject, AnyObject, AnyObject>): JsonObject {
  const shape = { ...input.params?.shape, ...input.query?.shape, ...input.body?.shape };
  const document = new OpenAPIHono();
  document.openAPIRegistry.registerPath({
    method: 'post',
    path: '/tool',
    request: { body: { content: { 'application/json': { schema: z.object(shape) } } } },
    responses: { 200: { description: 'The answer' } },
  });
  const generated = document.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'tool', version: '1' } });
  const body = generated.paths?.['/tool']?.post?.requestBody;
  const content = body && 'content' in body ? body.content['application/json']?.schema : undefined;
  const generatedProperties = (content && 'properties' in content ? content.properties : undefined) ?? {};
  const properties = Object.fromEntries(
    Object.entries(generatedProperties).map(([key, property]) => [key, oneType(property as JsonObject)]),
  );
  // Query fields have defaults and are never required; path parameters and body fields say so.
  const required = [...requiredKeys(input.params), ...requiredKeys(input.body)];
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(input.body ? { additionalProperties: false } : {}),
  };
}

const requiredKeys = (schema: AnyObject | undefined) =>
  Object.entries(schema?.shape ?? {})
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key);

/**
 * A property's schema with one JSON type: a nullable field (`type: [x, "null"]`, or an anyOf of a
 * schema and `{type: "null"}`) is shown as its type alone, since an argument left out means what
 * null means there (clients such as the MCP Inspector's `--strict` flag a property of several
 * types as unportable). Arguments are still parsed by the route's schema, which takes null too.
 */
export function oneType(schema: JsonObject): JsonObject {
  let result: JsonObject = { ...schema };
  if (Array.isArray(result.type)) {
    const types = result.type.filter((type) => type !== 'null');
    result.type = types.length === 1 ? types[0] : types;
  }
  if (Array.isArray(result.anyOf)) {
    const branches = (result.anyOf as JsonObject[]).filter((branch) => branch.type !== 'null');
    const { anyOf: _anyOf, ...rest } = result;
    const [only] = branches;
    result = branches.length === 1 && only ? { ...only, ...rest } : { ...rest, anyOf: branches };
  }
  if (result.properties && typeof result.properties === 'object') {
    result.properties = Object.fromEntries(
      Object.entries(result.properties as Record<string, JsonObject>).map(([key, value]) => [key, oneType(value)]),
    );
  }
  if (result.items && typeof result.items === 'object' && !Array.isArray(result.items)) {
    result.items = oneType(result.items as JsonObject);
  }
  return result;
}

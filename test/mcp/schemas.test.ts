// The tools' input schemas come from the REST routes' zod schemas: each tool's JSON Schema shows
// every parameter and body field of the REST operations it mirrors exactly as the OpenAPI
// document does (a path parameter under a clearer name, its own description; a nullable field as
// an optional one of its one type), so the two cannot drift.
import { describe, expect, it } from 'vitest';
import { oneType } from '../../src/mcp/tool';
import { call, createKey } from '../helpers/worker';
import { mcpClient } from './mcp-helpers';

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; required?: boolean; schema: Schema; description?: string };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};

/** A REST path parameter's name in the tools (`id` says too little to an agent). */
const RENAMED: Record<string, Record<string, string>> = {
  getFile: { id: 'fileId' },
  deleteFile: { id: 'fileId' },
  createShareLink: { id: 'fileId' },
  createCollectionLink: { id: 'collectionId' },
  addCollectionFiles: { id: 'collectionId' },
  getFileAccessLog: { id: 'fileId' },
  getFileRequestAccessLog: { id: 'requestId' },
  listShareLinks: { id: 'fileId' },
  listCollectionLinks: { id: 'collectionId' },
  removeCollectionFile: { id: 'collectionId' },
  closeFileRequest: { id: 'requestId' },
};

/** Tools that take some of their operation's fields, and set the rest themselves. */
const SUBSET = new Set(['create_upload_url']);
/**
 * Fields a tool does not take: an agent's text or fetched URL is never taken as an age file, and a
 * collection's link gets no members' age headers from an agent (end-to-end encryption needs the
 * owner's key, docs/e2e.md).
 */
const NOT_TAKEN: Record<string, string[]> = {
  upload_text: ['encryption'],
  upload_from_url: ['encryption'],
  create_share_link: ['e2eHeaders'],
};

function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? (components[ref.replace('#/components/schemas/', '')] ?? {}) : schema;
}

const withoutProse = (schema: Schema) => {
  const { description: _d, example: _e, ...rest } = schema;
  return rest;
};

describe('tool input schemas', () => {
  it('match the REST operations’ parameters and bodies in /api/v2/openapi.json', async () => {
    const document = (await (await call('/api/v2/openapi.json')).json()) as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, Schema> };
    };
    const operations = new Map(
      Object.values(document.paths)
        .flatMap((path) => Object.values(path))
        .map((operation) => [operation.operationId, operation]),
    );
    const { key } = await createKey('schemas');
    const { tools } = await (await mcpClient(key)).listTools();
    const { MCP_TOOLS } = await import('../../src/mcp/routes');
    let compared = 0;
    for (const listed of tools) {
      const tool = MCP_TOOLS.find((candidate) => candidate.name === listed.name);
      expect(tool, listed.name).toBeDefined();
      const properties = (listed.inputSchema.properties ?? {}) as Record<string, Schema>;
      expect(listed.inputSchema.type).toBe('object');
      for (const operationId of tool?.operations ?? []) {
        const operation = operations.get(operationId);
        expect(operation, operationId).toBeDefined();
        const renamed = RENAMED[operationId] ?? {};
        const expected: [string, Schema, boolean][] = [];
        for (const parameter of operation?.parameters ?? []) {
          if (parameter.in === 'header') continue;
          // A parameter's prose is its own; its type, bounds, pattern and default are the route's.
          expected.push([renamed[parameter.name] ?? parameter.name, withoutProse(oneType(parameter.schema)), false]);
        }
        const json = operation?.requestBody?.content['application/json']?.schema;
        if (json) {
          const body = resolve(json, document.components.schemas);
          for (const [name, schema] of Object.entries((body.properties ?? {}) as Record<string, Schema>)) {
            // A nullable field is an optional argument of the one type (the portability test below).
            expected.push([name, oneType(resolve(schema, document.components.schemas)), true]);
          }
        }
        for (const [name, schema, exact] of expected) {
          const actual = properties[name];
          if (!actual && SUBSET.has(listed.name)) continue;
          if (!actual && NOT_TAKEN[listed.name]?.includes(name)) continue;
          expect(actual, `${listed.name}.${name} (${operationId})`).toBeDefined();
          expect(exact ? actual : withoutProse(actual ?? {}), `${listed.name}.${name} (${operationId})`).toEqual(
            schema,
          );
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('describes every argument, and requires what the route requires', async () => {
    const { key } = await createKey('schemas-2');
    const { tools } = await (await mcpClient(key)).listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool.inputSchema]));
    expect(byName.get('get_file')?.required).toEqual(['fileId']);
    expect(byName.get('upload_text')?.required).toEqual(['filename', 'text']);
    expect(byName.get('upload_from_url')?.required).toEqual(['url']);
    expect(byName.get('create_collection')?.required).toEqual(['name']);
    expect(byName.get('add_to_collection')?.required).toEqual(['collectionId', 'fileIds']);
    expect(byName.get('create_share_link')).toMatchObject({ additionalProperties: false });
    expect(byName.get('list_files')?.properties).toMatchObject({ limit: { type: 'integer', maximum: 100 } });
    expect(byName.get('revoke_share_link')?.required).toEqual(['linkId']);
    expect(byName.get('remove_from_collection')?.required).toEqual(['collectionId', 'fileId']);
    expect(byName.get('close_file_request')?.required).toEqual(['requestId']);
    expect(byName.get('list_links')?.required).toBeUndefined();
    expect(byName.get('list_file_requests')?.properties).toMatchObject({ limit: { type: 'integer', default: 20 } });
  });
});

/** The JSON types a property's schema allows: its `type` (one or a list), and those of its anyOf/oneOf branches. */
function typesOf(schema: Schema): Set<string> {
  const types = new Set<string>();
  const type = schema.type;
  if (typeof type === 'string') types.add(type);
  if (Array.isArray(type)) for (const each of type) types.add(String(each));
  if (schema.nullable === true) types.add('null');
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches))
      for (const branch of branches) for (const each of typesOf(branch as Schema)) types.add(each);
  }
  return types;
}

/** Every property schema under `schema` (nested objects' properties, array items), with its path. */
function* propertiesOf(schema: Schema, path: string): Generator<[string, Schema]> {
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    yield [`${path}.${name}`, property];
    yield* propertiesOf(property, `${path}.${name}`);
  }
  const items = schema.items;
  if (items && typeof items === 'object' && !Array.isArray(items)) {
    yield [`${path}[]`, items as Schema];
    yield* propertiesOf(items as Schema, `${path}[]`);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) yield* propertiesOf(branch as Schema, path);
  }
}

describe('tool input schemas are portable (the MCP Inspector’s --strict)', () => {
  it('give every property of every tool one JSON type: a nullable REST field is an optional argument', async () => {
    const { key } = await createKey('portable');
    const { tools } = await (await mcpClient(key)).listTools();
    expect(tools.length).toBeGreaterThanOrEqual(18);
    const mixed: string[] = [];
    let walked = 0;
    for (const tool of tools) {
      for (const [path, property] of propertiesOf(tool.inputSchema as Schema, tool.name)) {
        walked++;
        const types = typesOf(property);
        if (types.size > 1) mixed.push(`${path}: ${[...types].join(' | ')}`);
      }
    }
    expect(walked).toBeGreaterThan(50);
    expect(mixed).toEqual([]);
  });
});

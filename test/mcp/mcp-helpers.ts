// Drives POST /mcp with the official SDK client over HTTP, through the Worker's own fetch.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { call, ORIGIN } from '../helpers/worker';

// Our tools declare no output schema, so the client compiles none (workerd forbids Ajv's code generation).
const NO_SCHEMAS: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/** A connected client speaking to the Worker with `key` (each POST through `call`). */
export async function mcpClient(key: string, options: { origin?: string; fetch?: typeof fetch } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${options.origin ?? ORIGIN}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: options.fetch ?? ((url, init) => call(String(url), init)),
  });
  const client = new Client({ name: 'edgeshare-test', version: '1.0.0' }, { jsonSchemaValidator: NO_SCHEMAS });
  await client.connect(transport);
  return client;
}

export type ToolResult = CallToolResult & { structuredContent?: Record<string, unknown> };

/** Calls a tool: its result (isError for a refusal). */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** The data of a tool call that must succeed. */
export async function toolData<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await callTool(client, name, args);
  if (result.isError) throw new Error(`${name} refused: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent as T;
}

/** The refusal of a tool call that must fail: the REST error's code, message and details. */
export async function toolRefusal(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await callTool(client, name, args);
  if (!result.isError) throw new Error(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent as { error: string; code: string; details?: Record<string, unknown>[] };
}

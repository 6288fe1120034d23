// One MCP exchange, statelessly: every POST gets its own server and transport (the SDK's
// Streamable HTTP transport on web Request/Response, JSON answers, no session), which answer it
// and are dropped. Tools run with the request's context, as the REST handlers do.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError, forbidden } from '../errors';
import { hasScope } from '../limiter/scopes';
import { log } from '../log';
import type { McpTool } from './tool';

const SERVER_INFO = { name: 'edgeshare', version: '2.0.0' };

const INSTRUCTIONS =
  'edgeshare stores and shares files. File contents never pass through this connection: upload with ' +
  'upload_from_url (the service fetches the URL) or create_upload_url (PUT the bytes there yourself), and ' +
  'share with create_share_link. Each tool needs its scope on the API key.';

// The server never asks the client for anything (no elicitation), so it compiles no JSON Schema:
// the SDK's default (Ajv) would generate code at run time, which workerd forbids.
const NO_SCHEMAS: jsonSchemaValidator = {
  getValidator: () => {
    throw new Error('this server validates no client schema');
  },
};

/** Answers one MCP POST whose JSON-RPC message was already read (`message`). */
export async function answerMcp(
  c: Context<AppEnv>,
  request: Request,
  message: unknown,
  tools: readonly McpTool[],
): Promise<Response> {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_SCHEMAS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema() as { type: 'object' },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = byName.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    return callTool(c, tool, params.arguments ?? {});
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: message });
  } finally {
    await server.close();
  }
}

/**
 * A tool's answer: the REST answer's `data` as structuredContent (and as JSON text, for clients
 * that read only text); a refusal is isError with the REST error's code, message and details.
 */
async function callTool(c: Context<AppEnv>, tool: McpTool, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const key = c.get('apiKey');
    if (tool.scope && !hasScope(key.scopes, tool.scope)) throw forbidden(tool.scope);
    const data = (await tool.call(c, args)) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  } catch (error) {
    const refusal = error instanceof ApiError ? error : internalError(c, tool, error);
    c.set('mcp', { ...c.get('mcp'), code: refusal.code });
    const envelope = {
      error: refusal.message,
      code: refusal.code,
      ...(refusal.details ? { details: refusal.details } : {}),
    };
    return {
      isError: true,
      content: [{ type: 'text', text: `${refusal.code}: ${refusal.message}` }],
      structuredContent: envelope,
    };
  }
}

function internalError(c: Context<AppEnv>, tool: McpTool, error: unknown): ApiError {
  log('error', 'mcp tool failed', { requestId: c.get('requestId'), tool: tool.name, error: String(error) });
  return new ApiError('INTERNAL_ERROR');
}

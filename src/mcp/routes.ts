// POST /mcp: the Model Context Protocol's Streamable HTTP transport, statelessly (each POST stands
// alone, JSON answers), authenticated by an API key like /api; any other method is 405. And the
// OAuth protected-resource metadata (RFC 9728) that a 401's challenge points clients to.
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../env';
import { methodNotAllowed } from '../http/fallbacks';
import { origins } from '../http/request-deps';
import { declared, PUBLIC, requires } from '../http/route-needs';
import { SCOPES } from '../limiter/scopes';
import { offersOAuth } from '../oauth/authorization-server';
import { FILE_TOOLS } from './file-tools-routes';
import { answerMcp } from './server';
import { SHARING_TOOLS } from './sharing-tools-routes';
import type { McpTool } from './tool';
import { UNDO_TOOLS } from './undo-tools-routes';

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
/** The origin's document and /mcp's own (RFC 9728 §3.1: the resource's path after the well-known one). */
export const RESOURCE_METADATA_PATHS = [RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}${MCP_PATH}`] as const;

/** Every tool, in the order tools/list shows them. */
export const MCP_TOOLS: readonly McpTool[] = [...FILE_TOOLS, ...SHARING_TOOLS, ...UNDO_TOOLS];

// upload_text's 64 KiB of text may double as JSON escapes; nothing else comes near.
const MAX_MCP_BODY = 512 * 1024;

// Any valid key: the one request the key's rate limit counts. Each tool then checks its scope.
const MCP_NEEDS = requires({ scope: null });

type RpcMessage = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { name?: unknown } };

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

const asMessage = (value: unknown): RpcMessage | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as RpcMessage) : undefined;

/** What the log line shows of a message: its method, and the tool a tools/call names. */
function described(message: RpcMessage | undefined) {
  if (!message || typeof message.method !== 'string') return {};
  const tool = message.method === 'tools/call' ? message.params?.name : undefined;
  return { method: message.method, ...(typeof tool === 'string' ? { tool } : {}) };
}

export function createMcpRouter() {
  const router = new Hono<AppEnv>();
  router.post(
    MCP_PATH,
    MCP_NEEDS,
    bodyLimit({
      maxSize: MAX_MCP_BODY,
      onError: (c) => c.json(rpcError(-32600, `The request is larger than ${MAX_MCP_BODY} bytes`), 413),
    }),
    async function mcp(c) {
      let message: unknown;
      try {
        message = JSON.parse(await c.req.text());
      } catch {
        return c.json(rpcError(-32700, 'Parse error: Invalid JSON'), 400);
      }
      // One message per POST (as from protocol 2025-06-18): one call, one request for the rate limit.
      if (Array.isArray(message)) {
        return c.json(rpcError(-32600, 'Invalid Request: send one JSON-RPC message per POST (no batches)'), 400);
      }
      c.set('mcp', described(asMessage(message)));
      return answerMcp(c, c.req.raw, message, MCP_TOOLS);
    },
  );
  // No server-sent event stream and no session to end: only POST (OPTIONS is CORS's, before this).
  router.all(
    MCP_PATH,
    declared((c) => {
      throw methodNotAllowed(c.req.method, ['POST']);
    }, PUBLIC),
  );

  // RFC 9728: what the resource is, who issues its OAuth tokens (where this origin can: see
  // src/oauth/), and how to present a token or an API key (a Bearer header).
  const metadata = (resource: string, api: string) => ({
    resource,
    resource_name: 'edgeshare',
    ...(offersOAuth(api) ? { authorization_servers: [api] } : {}),
    bearer_methods_supported: ['header'],
    scopes_supported: [...SCOPES],
    resource_documentation: `${api}/docs`,
  });
  router.get(RESOURCE_METADATA_PATHS[0], (c) => c.json(metadata(origins(c).api, origins(c).api)));
  router.get(RESOURCE_METADATA_PATHS[1], (c) => c.json(metadata(`${origins(c).api}${MCP_PATH}`, origins(c).api)));
  return router;
}

/**
 * Around authentication on /mcp: a 401 names where the resource's metadata is
 * (`WWW-Authenticate: Bearer resource_metadata="…"`, as MCP clients look for it); a tools/call
 * refused by the key's rate limit is answered as the tool's refusal (isError, RATE_LIMITED), with
 * Retry-After and the X-RateLimit-* headers.
 */
export const mcpRefusals = (): MiddlewareHandler<AppEnv> =>
  async function mcpRefusals(c, next) {
    await next();
    if (c.res.status === 401) {
      const where = `${origins(c).api}${RESOURCE_METADATA_PATH}`;
      c.res.headers.set('WWW-Authenticate', `Bearer resource_metadata="${where}"`);
      return;
    }
    if (c.res.status !== 429 || c.req.method !== 'POST' || !c.res.headers.has('X-RateLimit-Limit')) return;
    const message = asMessage(await c.req.json().catch(() => undefined));
    if (message?.method !== 'tools/call' || message.id === undefined) return;
    const refusal = (await c.res.json()) as { error: string; code: string };
    c.set('mcp', { ...described(message), code: refusal.code });
    const result = {
      isError: true,
      content: [{ type: 'text', text: `${refusal.code}: ${refusal.error}` }],
      structuredContent: { error: refusal.error, code: refusal.code },
    };
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    headers.set('Content-Type', 'application/json');
    c.res = undefined;
    c.res = new Response(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }), { status: 200, headers });
  };

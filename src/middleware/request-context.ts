import { createMiddleware } from 'hono/factory';
import { getConfig } from '../config';
import type { AppEnv } from '../env';
import { log } from '../log';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * The path as logged: share tokens and file request tokens are secrets (the URL is the
 * capability), so their segment is replaced by its route name.
 */
export const loggedPath = (path: string) =>
  path.replace(/^\/share\/[^/]+/, '/share/:token').replace(/^(\/api\/v2)?\/r\/[^/]+/, '$1/r/:token');

/**
 * Gives every request an id (the client's when it sent a valid one) and writes one JSON log
 * line when the response is ready (an MCP call's adds its method and tool: one line per call).
 * Never logs headers, query strings or share tokens. A request
 * whose client went away (a tus PATCH cut off mid-body, say) is a client abort, logged as info
 * with `clientAborted: true` whatever answer nobody read: it is no fault of the server.
 */
export const requestContext = () =>
  createMiddleware<AppEnv>(async function requestContext(c, next) {
    const startedAt = Date.now();
    const sent = c.req.header('x-request-id');
    const requestId = sent && CLIENT_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
    c.set('requestId', requestId);
    await next();
    c.res.headers.set('X-Request-Id', requestId);
    const key = c.get('apiKey');
    const clientAborted = c.req.raw.signal?.aborted === true;
    log(c.res.status >= 500 && !clientAborted ? 'error' : 'info', 'request', {
      requestId,
      method: c.req.method,
      path: loggedPath(c.req.path),
      status: c.res.status,
      durationMs: Date.now() - startedAt,
      keyId: key?.id,
      ...(c.get('mcp') ? { mcp: c.get('mcp') } : {}),
      ...(clientAborted ? { clientAborted } : {}),
      ...(c.error ? { error: String(c.error) } : {}),
    });
  });

/**
 * Parses config once per env. Kept apart from requestContext so that a bad value is answered
 * (500) after requestContext has started: the answer still gets its X-Request-Id and log line.
 */
export const loadConfig = () =>
  createMiddleware<AppEnv>(async function loadConfig(c, next) {
    c.set('config', getConfig(c.env));
    await next();
  });

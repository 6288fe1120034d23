import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { Timings } from '../http/timing';

/**
 * v2's `_perf`: whole milliseconds spent in the Worker, added to every JSON body (errors
 * included), plus a Server-Timing header with the total and its parts (auth, ratelimit, d1, r2).
 */
export const perf = () =>
  createMiddleware<AppEnv>(async function perf(c, next) {
    // The API description is a document, not an API response.
    if (c.req.path.endsWith('/openapi.json')) return next();
    const timings = new Timings();
    c.set('timings', timings);
    const start = performance.now();
    await next();
    const total = performance.now() - start;
    c.res.headers.set('Server-Timing', timings.header(total));
    if (!c.res.headers.get('content-type')?.startsWith('application/json')) return;
    // A download (always sent as an attachment) is the user's bytes, even when they are JSON.
    if (c.res.headers.has('content-disposition')) return;
    // Our JSON bodies are objects: append the field instead of parsing and re-serialising.
    const text = await c.res.text();
    const end = text.lastIndexOf('}');
    if (end < 0) return;
    const separator = text.slice(0, end).trimEnd().endsWith('{') ? '' : ',';
    const body = `${text.slice(0, end)}${separator}"_perf":${Math.round(total)}}`;
    const contentType = c.res.headers.get('content-type') ?? 'application/json';
    c.res.headers.delete('content-length');
    // Hono copies the other headers of the response being replaced onto the new one.
    c.res = new Response(body, { status: c.res.status, headers: { 'content-type': contentType } });
  });

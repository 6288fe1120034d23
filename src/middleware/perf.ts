import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { Timings } from '../lib/timing';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * v2's `_perf`: whole milliseconds spent in the Worker, added to every JSON body (errors
 * included), plus a Server-Timing header with the total and its parts (auth, ratelimit, d1, r2).
 * Every JSON answer of ours goes through `c.json` (handlers and the error renderer alike), so
 * the field is added as the body is serialised: no second pass over the body. Decided by route,
 * not by path: the one JSON answer without it is the OpenAPI document, whose route (app.ts)
 * serialises it itself; an error under any path, `/api/v2/files/openapi.json` included, has it.
 */
export const perf = () =>
  createMiddleware<AppEnv>(async function perf(c, next) {
    const timings = new Timings();
    c.set('timings', timings);
    const start = performance.now();
    // The header's total is the body's _perf, one measurement: work after the body is made (an
    // idempotency record, the unwinding middleware) would otherwise set the two apart.
    let total: number | undefined;
    const json = c.json.bind(c);
    c.json = ((object: unknown, ...rest: unknown[]) => {
      if (!isPlainObject(object)) return (json as (...args: unknown[]) => Response)(object, ...rest);
      total = performance.now() - start;
      return (json as (...args: unknown[]) => Response)({ ...object, _perf: Math.round(total) }, ...rest);
    }) as typeof c.json;
    await next();
    c.res.headers.set('Server-Timing', timings.header(total ?? performance.now() - start));
  });

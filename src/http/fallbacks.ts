// 405 and 404 answers derived from what a router registers (Hono's `router.routes`): a route
// added to a router is in its Allow answers, with no table to keep beside it.
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { ANY_KEY, declared } from './route-needs';

type AnyRouter = Hono<AppEnv>;

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** A document's path (`/files/{id}`) as Hono writes it (`/files/:id`). */
export const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

const headPaths = new WeakMap<AnyRouter, Set<string>>();
/** The 405 answers addFallbacks made (Hono keeps a mounted router's handlers, or wraps them). */
const fallbacks = new WeakSet<object>();
const isFallback = (handler: unknown): boolean =>
  typeof handler === 'function' &&
  (fallbacks.has(handler) || isFallback((handler as { __COMPOSED_HANDLER?: unknown }).__COMPOSED_HANDLER));

/**
 * Allow names HEAD beside this GET route: its HEAD is an operation clients use (a file's or a
 * download's headers, a tus upload's offset). Hono answers HEAD through any GET route whatever
 * this says; it only decides what Allow offers.
 */
export function offersHead(router: AnyRouter, path: string): void {
  const paths = headPaths.get(router) ?? new Set<string>();
  paths.add(honoPath(path));
  headPaths.set(router, paths);
}

/** The methods a path of the router answers, in one fixed order (`also`: answered before it, like tus OPTIONS). */
export function allowedMethods(router: AnyRouter, path: string, also: readonly string[] = []): string[] {
  const methods = new Set<string>(also);
  for (const route of router.routes) if (route.path === path && route.method !== 'ALL') methods.add(route.method);
  if (methods.has('GET') && headPaths.get(router)?.has(path)) methods.add('HEAD');
  return METHOD_ORDER.filter((method) => methods.has(method));
}

/** 405 METHOD_NOT_ALLOWED for this request, with the methods the path does answer. */
export function methodNotAllowed(method: string, allowed: string[]): ApiError {
  return new ApiError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed here`, {
    headers: { Allow: allowed.filter((name) => name !== method).join(', ') },
  });
}

export type FallbackOptions = {
  /** Then any other path under the router is 404 NOT_FOUND. */
  catchAll?: boolean;
  /** Methods answered for every path before the router sees the request (tus OPTIONS). */
  also?: readonly string[];
};

/**
 * Every path the router has registered so far, and has no fallback for yet (from an earlier call,
 * or from a router mounted on it, like tus's), answers 405 (with Allow) for other methods. Call
 * it after the routes it covers: a route registered after its path's fallback is never reached.
 */
export function addFallbacks(router: AnyRouter, options: FallbackOptions = {}): void {
  const routes = router.routes;
  const paths = new Set(routes.filter((route) => route.method !== 'ALL').map((route) => route.path));
  for (const path of paths) {
    if (routes.some((route) => route.path === path && isFallback(route.handler))) continue;
    const allowed = allowedMethods(router, path, options.also);
    // Under /api these answers need a valid key and no scope.
    const fallback = declared((c: Context<AppEnv>) => {
      throw methodNotAllowed(c.req.method, allowed);
    }, ANY_KEY);
    fallbacks.add(fallback);
    router.all(path, fallback);
  }
  if (!options.catchAll) return;
  router.all('*', notFound);
}

/** 404 NOT_FOUND for any valid key (the catch-all of a router, and of /api itself). */
export const notFound = declared(() => {
  throw new ApiError('NOT_FOUND');
}, ANY_KEY);

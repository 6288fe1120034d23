// What each API route needs from the key that calls it, declared where the route is defined:
// `requires({ scope: 'files:read' })` as the route's first middleware. Authentication (auth.ts)
// finds the declaration of the route that will answer before anything runs, so a key without
// the scope is refused before any effect, and the middleware keeps no table of paths.
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv, RouteNeeds } from '../env';

export type { RouteNeeds };

const declarations = new WeakMap<object, RouteNeeds>();

/**
 * Declares what a route needs. Put it first among the route's middleware. When it runs it only
 * checks that authentication used this very declaration (a route reached some other way fails
 * closed).
 */
export function requires(needs: RouteNeeds): MiddlewareHandler<AppEnv> {
  const middleware: MiddlewareHandler<AppEnv> = async function requires(c, next) {
    if (c.get('needs') !== needs)
      throw new Error(`route ${c.req.method} ${c.req.path} reached without its authorization`);
    await next();
  };
  declarations.set(middleware, needs);
  return middleware;
}

/** Any valid key: what the 404 and 405 answers under /api need. */
export const ANY_KEY: RouteNeeds = { scope: null };

/** What a public route declares: no key, no scope (see `public` above). */
export const PUBLIC: RouteNeeds = { scope: null, public: true };

/** The first middleware of a public route: declares it PUBLIC and does nothing else. */
export const publicRoute: MiddlewareHandler<AppEnv> = declared(async function publicRoute(_c, next) {
  await next();
}, PUBLIC);

/** Declares a handler's needs on the handler itself (the 404 and 405 answers, which need no check). */
export function declared<H extends object>(handler: H, needs: RouteNeeds): H {
  declarations.set(handler, needs);
  return handler;
}

/** The declaration carried by a route handler (Hono wraps a sub-app's handlers when mounting some). */
export function needsOf(handler: unknown): RouteNeeds | undefined {
  if (typeof handler !== 'function') return undefined;
  return declarations.get(handler) ?? needsOf((handler as { __COMPOSED_HANDLER?: unknown }).__COMPOSED_HANDLER);
}

// Middleware mounted with use() (and the catch-all answers) match every method.
const ANY_METHOD = 'ALL';

/**
 * The needs of the route that will answer this request: the first matched handler that is a
 * route of its own (not a use() middleware) must declare them, or the first declared catch-all
 * answers. A route that forgot its declaration is undefined here: the request fails closed.
 */
export function routeNeeds(c: Context<AppEnv>): RouteNeeds | undefined {
  for (const route of matchedRoutes(c)) {
    const needs = needsOf(route.handler);
    if (needs) return needs;
    if (route.method !== ANY_METHOD) return undefined;
  }
  return undefined;
}

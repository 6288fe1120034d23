import type { Hono } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { ANY_KEY, declared } from '../middleware/route-needs';

/**
 * Known paths answer 405 (with Allow) for other methods; with `catchAll`, anything else under
 * the router is 404 NOT_FOUND. Under /api both need a valid key and no scope.
 */
export function addFallbacks(router: Hono<AppEnv>, paths: Record<string, string[]>, catchAll = true, rest = '*') {
  for (const [path, methods] of Object.entries(paths)) {
    router.all(
      path,
      declared((c) => {
        throw new ApiError('METHOD_NOT_ALLOWED', `Method ${c.req.method} is not allowed here`, {
          headers: { Allow: methods.join(', ') },
        });
      }, ANY_KEY),
    );
  }
  if (!catchAll) return;
  router.all(
    rest,
    declared(() => {
      throw new ApiError('NOT_FOUND');
    }, ANY_KEY),
  );
}

import type { Hono } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';

/**
 * Known paths answer 405 (with Allow) for other methods; with `catchAll`, anything else under
 * the router is 404 NOT_FOUND.
 */
export function addFallbacks(router: Hono<AppEnv>, paths: Record<string, string[]>, catchAll = true) {
  for (const [path, methods] of Object.entries(paths)) {
    router.all(path, (c) => {
      throw new ApiError('METHOD_NOT_ALLOWED', `Method ${c.req.method} is not allowed here`, {
        headers: { Allow: methods.join(', ') },
      });
    });
  }
  if (!catchAll) return;
  router.all('*', () => {
    throw new ApiError('NOT_FOUND');
  });
}

// /api/v1: the seed's file API, exactly (the same routes as v2's files, in v1's shapes).
import { addFileRoutes } from '../files/routes';
import { addFallbacks } from '../http/fallbacks';
import { versionRouter } from '../http/validation';

export function createV1Router() {
  const router = versionRouter();
  addFileRoutes(router, 'v1');
  // Other methods on these paths: 405 with Allow; any other path: 404.
  addFallbacks(router, { catchAll: true });
  return router;
}

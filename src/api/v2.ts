// The API's table of contents: v2 assembled in one place, feature by feature. Each
// feature registers its own routes (with their OpenAPI operations) on the version's router; the
// order matters only where paths overlap (DELETE /files/bulk before DELETE /files/{id}).
import { addArchiveRoutes } from '../collections/archive-routes';
import { addCollectionRoutes } from '../collections/routes';
import { addE2eRoutes } from '../e2e/routes';
import { addBulkRoutes } from '../files/bulk-routes';
import { addManageRoutes } from '../files/manage-routes';
import { addRawUploadRoute } from '../files/raw-upload-routes';
import { addFileRoutes } from '../files/routes';
import { addFallbacks } from '../http/fallbacks';
import { versionRouter } from '../http/validation';
import { addKeyRoutes } from '../keys/routes';
import { addLinkAccessRoutes } from '../links/access-log-routes';
import { addLinkRoutes } from '../links/routes';
import { addOAuthGrantRoutes } from '../oauth/grants-routes';
import { addPolicyRoutes } from '../policy/routes';
import { addRequestAccessRoutes } from '../requests/access-log-routes';
import { addRequestRoutes } from '../requests/routes';
import { addUploadRoutes } from '../tus/routes';
import { addWebhookRoutes } from '../webhooks/routes';

/** /api/v2: every feature (the public file-request paths are mounted by app.ts, before authentication). */
export function createV2Router() {
  const router = versionRouter();
  // Files: bulk upload and delete, changes and usage, the raw-body upload, then the v1 routes.
  addBulkRoutes(router);
  addManageRoutes(router);
  addRawUploadRoute(router);
  // File requests, share links, collections and the owner's ZIP archives, keys, webhooks, and the
  // bounds the policy sets on them.
  addRequestRoutes(router);
  addLinkRoutes(router);
  addCollectionRoutes(router);
  addArchiveRoutes(router);
  addKeyRoutes(router);
  addOAuthGrantRoutes(router);
  addWebhookRoutes(router);
  // Access logs (who fetched what), before the file routes' /files/{id}.
  addLinkAccessRoutes(router);
  addRequestAccessRoutes(router);
  addPolicyRoutes(router);
  addE2eRoutes(router);
  addFileRoutes(router, 'v2');
  // Resumable uploads (tus), with their own 405s.
  addUploadRoutes(router);
  addFallbacks(router, { catchAll: true });
  return router;
}

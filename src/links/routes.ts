// v2 only: share links an account makes to its files. HTTP only: validation, one service call,
// the answer. The rules are in service.ts.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';
import { FileIdParamSchema } from '../files/schemas';
import { E2E_UPLOAD_ERRORS, errors, ok, POLICY_ERRORS } from '../http/openapi';
import { accountId, origins, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { jsonBodyLimit } from '../http/validation';
import { policy } from '../policy/routes';
import { successV2 } from '../schemas';
import {
  LinkCreateSchema,
  LinkHeaderParamSchema,
  LinkHeaderPutSchema,
  LinkHeaderRecordSchema,
  LinkIdParamSchema,
  LinkRecordSchema,
  LinkUpdateSchema,
} from './schemas';
import {
  createLink,
  getLink,
  type LinkDeps,
  listLinkHeaders,
  listLinks,
  putLinkHeader,
  revokeLink,
  updateLink,
} from './service';

/** What the link rules need from the request (the MCP tools' too). */
export const linkDeps = (c: Parameters<MiddlewareHandler<AppEnv>>[0]): LinkDeps => ({
  // Timed on v2 (Server-Timing), like every other route's D1 calls.
  db: storage(c).db,
  counters: c.env.LINK_COUNTERS,
  origins: origins(c),
  policy: policy(c),
});

export function addLinkRoutes(router: OpenAPIHono<AppEnv>) {
  // Making, changing and revoking links needs `links:write`; reading them needs `files:read`.
  const create = createRoute({
    method: 'post',
    path: '/files/{id}/links',
    operationId: 'createShareLink',
    summary: 'Make a share link to a file: optional label, password, download cap, expiry',
    description:
      'The link works whether or not the file is public. `expiresAt` and `expiresIn` exclude each other. ' +
      'The account’s policy (GET /policy) may require an expiry, a password or a download cap, and bound them: ' +
      '422 POLICY_VIOLATION names each bound broken. ' +
      'The password is never shown again; visitors give it on the share page or with HTTP Basic and an ' +
      'empty user name (`curl -u :PASSWORD <url>/download`). An end-to-end encrypted file needs `e2eHeader`: the ' +
      'link serves that age header and the payload, a whole age file (docs/e2e.md).',
    middleware: [requires({ scope: 'links:write' }), jsonBodyLimit()] as const,
    request: {
      params: FileIdParamSchema,
      body: { required: true, content: { 'application/json': { schema: LinkCreateSchema } } },
    },
    responses: {
      201: ok(successV2(LinkRecordSchema), 'The new link'),
      // 451: no link is made to a file the operator quarantined or removed.
      ...errors(400, 401, 404, 415, 429, 451),
      ...E2E_UPLOAD_ERRORS,
    },
  });
  router.openapi(create, async (c) => {
    const link = await createLink(linkDeps(c), c.req.valid('param').id, accountId(c), c.req.valid('json'));
    return c.json({ success: true as const, data: link }, 201);
  });

  const list = createRoute({
    method: 'get',
    path: '/files/{id}/links',
    operationId: 'listShareLinks',
    summary: 'The links made to a file, newest first (revoked and expired ones included)',
    middleware: [requires({ scope: 'files:read' })] as const,
    request: { params: FileIdParamSchema },
    responses: {
      200: ok(successV2(z.object({ links: z.array(LinkRecordSchema) })), 'The file’s links'),
      ...errors(401, 404, 429),
    },
  });
  router.openapi(list, async (c) => {
    const links = await listLinks(linkDeps(c), c.req.valid('param').id, accountId(c));
    return c.json({ success: true as const, data: { links } }, 200);
  });

  const get = createRoute({
    method: 'get',
    path: '/links/{linkId}',
    operationId: 'getShareLink',
    summary: 'Read one link, with its exact download count',
    middleware: [requires({ scope: 'files:read' })] as const,
    request: { params: LinkIdParamSchema },
    responses: { 200: ok(successV2(LinkRecordSchema), 'The link'), ...errors(401, 404, 429) },
  });
  router.openapi(get, async (c) => {
    const link = await getLink(linkDeps(c), c.req.valid('param').linkId, accountId(c));
    return c.json({ success: true as const, data: link }, 200);
  });

  const update = createRoute({
    method: 'patch',
    path: '/links/{linkId}',
    operationId: 'updateShareLink',
    summary: 'Change a link: label, password, download cap, expiry (null clears each)',
    description:
      'A revoked link stays revoked. Raising the cap of an exhausted link opens it again. Only the fields sent ' +
      'are judged against the account’s policy (GET /policy): a bound tightened since the link was made never ' +
      'refuses a change that leaves its field alone.',
    middleware: [requires({ scope: 'links:write' }), jsonBodyLimit()] as const,
    request: {
      params: LinkIdParamSchema,
      body: { required: true, content: { 'application/json': { schema: LinkUpdateSchema } } },
    },
    responses: {
      200: ok(successV2(LinkRecordSchema), 'The link as it is now'),
      ...errors(400, 401, 404, 415, 429),
      ...POLICY_ERRORS,
    },
  });
  router.openapi(update, async (c) => {
    const link = await updateLink(linkDeps(c), c.req.valid('param').linkId, accountId(c), c.req.valid('json'));
    return c.json({ success: true as const, data: link }, 200);
  });

  const putHeader = createRoute({
    method: 'put',
    path: '/links/{linkId}/headers/{fileId}',
    operationId: 'putLinkHeader',
    summary: 'Give a link its age header for an encrypted file (a collection member added later), or replace it',
    description:
      'The file must be the link’s own file or a live member of its collection, and end-to-end encrypted (a plain ' +
      'one is 400 VALIDATION_ERROR). A collection link serves a member only with its header; replacing a header ' +
      'changes the link’s downloads’ ETag. A revoked link takes none (404 LINK_NOT_FOUND).',
    middleware: [requires({ scope: 'links:write' }), jsonBodyLimit()] as const,
    request: {
      params: LinkHeaderParamSchema,
      body: { required: true, content: { 'application/json': { schema: LinkHeaderPutSchema } } },
    },
    responses: {
      200: ok(successV2(LinkHeaderRecordSchema), 'The header the link keeps for the file now'),
      ...errors(400, 401, 404, 415, 429),
      ...E2E_UPLOAD_ERRORS,
    },
  });
  router.openapi(putHeader, async (c) => {
    const { linkId, fileId } = c.req.valid('param');
    const data = await putLinkHeader(linkDeps(c), linkId, accountId(c), fileId, c.req.valid('json').header);
    return c.json({ success: true as const, data }, 200);
  });

  const listHeaders = createRoute({
    method: 'get',
    path: '/links/{linkId}/headers',
    operationId: 'listLinkHeaders',
    summary: 'The age headers a link keeps, one per encrypted file it serves',
    middleware: [requires({ scope: 'files:read' })] as const,
    request: { params: LinkIdParamSchema },
    responses: {
      200: ok(successV2(z.object({ headers: z.array(LinkHeaderRecordSchema) })), 'The link’s headers'),
      ...errors(401, 404, 429),
    },
  });
  router.openapi(listHeaders, async (c) => {
    const headers = await listLinkHeaders(linkDeps(c), c.req.valid('param').linkId, accountId(c));
    return c.json({ success: true as const, data: { headers } }, 200);
  });

  const revoke = createRoute({
    method: 'delete',
    path: '/links/{linkId}',
    operationId: 'revokeShareLink',
    summary: 'Revoke a link: every path of its URL is 404 from now on',
    description: 'The record stays, with status `revoked`, so its counts remain visible. Revoking again is no error.',
    middleware: [requires({ scope: 'links:write' })] as const,
    request: { params: LinkIdParamSchema },
    responses: { 200: ok(successV2(LinkRecordSchema), 'The revoked link'), ...errors(401, 404, 429) },
  });
  router.openapi(revoke, async (c) => {
    const link = await revokeLink(linkDeps(c), c.req.valid('param').linkId, accountId(c));
    return c.json({ success: true as const, data: link }, 200);
  });
}

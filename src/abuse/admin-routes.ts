// The operator's abuse routes under /admin (ADMIN_TOKEN, added to the admin router by
// src/keys/admin-routes.ts): quarantine, release and remove a file, disable a link, and review
// reports (an account's suspension is with the account routes, src/keys/admin-accounts-routes.ts).
// Each answers 200 with the thing as it is after; an unknown id is 404. docs/abuse.md walks
// through them.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { jsonResponse } from '../http/openapi';
import { events, origins } from '../http/request-deps';
import { operatorFileRecord, operatorLinkRecord, reportRecord } from './records';
import { resolveReport, reviewReports } from './reports';
import {
  OperatorFileSchema,
  OperatorLinkSchema,
  OptionalStatementBodySchema,
  RemoveBodySchema,
  ReportSchema,
  ReportsQuerySchema,
  ResolveBodySchema,
  StatementBodySchema,
} from './schemas';
import { type AbuseDeps, disableLink, quarantineFile, releaseFile, removeFile } from './service';

/** What the actions work with: D1, R2, the accounts' and keys' objects, the owners' and operator's events. */
export const abuseDeps = (c: Context<AppEnv>): AbuseDeps => ({
  db: c.env.DB,
  bucket: c.env.FILES,
  accounts: c.env.ACCOUNT_STORAGE,
  limiter: c.env.KEY_LIMITER,
  events: events(c),
  operatorWebhook: c.get('config').OPERATOR_WEBHOOK_URL,
});

const ok = <T extends z.ZodType>(data: T, description: string) =>
  jsonResponse(z.object({ success: z.literal(true), data }), description);

const json = <T extends z.ZodType>(schema: T, required = true) => ({
  required,
  content: { 'application/json': { schema } },
});

const IdParam = z.object({ id: z.string() });
const LinkIdParam = z.object({ linkId: z.string() });

export function addAbuseRoutes(router: OpenAPIHono<AppEnv>) {
  const fileRoute = <B extends z.ZodType>(action: string, body: B, required: boolean, description: string) =>
    createRoute({
      method: 'post',
      path: `/files/{id}/${action}`,
      request: { params: IdParam, body: json(body, required) },
      responses: { 200: ok(OperatorFileSchema, description) },
    });

  const quarantine = fileRoute(
    'quarantine',
    StatementBodySchema,
    true,
    'The file, quarantined: served to no one, kept',
  );
  router.openapi(quarantine, async (c) => {
    const row = await quarantineFile(abuseDeps(c), c.req.valid('param').id, c.req.valid('json').statement);
    return c.json({ success: true as const, data: operatorFileRecord(row, origins(c)) }, 200);
  });

  // The statement is optional here: what the owner is told with the notice, if anything.
  const release = fileRoute('release', OptionalStatementBodySchema, false, 'The file, served again, bytes unchanged');
  router.openapi(release, async (c) => {
    const statement = c.req.valid('json')?.statement ?? null;
    const row = await releaseFile(abuseDeps(c), c.req.valid('param').id, statement, c.get('config'));
    return c.json({ success: true as const, data: operatorFileRecord(row, origins(c)) }, 200);
  });

  const remove = fileRoute('remove', RemoveBodySchema, true, 'The file’s tombstone: its bytes deleted for good');
  router.openapi(remove, async (c) => {
    const { statement, blockHash } = c.req.valid('json');
    const row = await removeFile(abuseDeps(c), c.req.valid('param').id, statement, blockHash === true);
    return c.json({ success: true as const, data: operatorFileRecord(row, origins(c)) }, 200);
  });

  const disable = createRoute({
    method: 'post',
    path: '/links/{linkId}/disable',
    request: { params: LinkIdParam, body: json(StatementBodySchema) },
    responses: { 200: ok(OperatorLinkSchema, 'The link, disabled: it answers 451') },
  });
  router.openapi(disable, async (c) => {
    const row = await disableLink(abuseDeps(c), c.req.valid('param').linkId, c.req.valid('json').statement);
    return c.json({ success: true as const, data: operatorLinkRecord(row, origins(c)) }, 200);
  });

  const reports = createRoute({
    method: 'get',
    path: '/reports',
    request: { query: ReportsQuerySchema },
    responses: {
      200: ok(
        z.object({ reports: z.array(ReportSchema), nextCursor: z.string().nullable() }),
        'Reports with this status, newest first',
      ),
    },
  });
  router.openapi(reports, async (c) => {
    const { status, limit, cursor } = c.req.valid('query');
    const page = await reviewReports(abuseDeps(c), status, limit, cursor);
    return c.json(
      { success: true as const, data: { reports: page.rows.map(reportRecord), nextCursor: page.nextCursor } },
      200,
    );
  });

  const resolve = createRoute({
    method: 'post',
    path: '/reports/{id}/resolve',
    request: { params: IdParam, body: json(ResolveBodySchema) },
    responses: {
      200: ok(
        z.object({ report: ReportSchema, resolved: z.array(z.string()) }),
        'The report, resolved, and the ids of every report of its target resolved with it',
      ),
    },
  });
  router.openapi(resolve, async (c) => {
    const { report, resolved } = await resolveReport(abuseDeps(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json({ success: true as const, data: { report: reportRecord(report), resolved } }, 200);
  });
}

// v2 only: /webhooks (an account's endpoints) and their recent deliveries. HTTP only; rules in service.ts.
import { createRoute, type OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';
import type { ErrorCode } from '../errors';
import type { EventsMessage } from '../events/types';
import { errorResponse, errors, ok } from '../http/openapi';
import { accountId } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { jsonBodyLimit } from '../http/validation';
import { successV2 } from '../schemas';
import { webhookRecord } from './records';
import {
  CreatedWebhookSchema,
  DeliveriesQuerySchema,
  DeliveryParamSchema,
  DeliveryRecordSchema,
  WebhookCreateSchema,
  WebhookIdParamSchema,
  WebhookRecordSchema,
  WebhookUpdateSchema,
} from './schemas';
import {
  changeWebhook,
  createWebhook,
  getWebhook,
  listAccountWebhooks,
  recentDeliveries,
  removeWebhook,
  resendDelivery,
} from './service';
import { targetRules } from './url';

const notFound = (...codes: ErrorCode[]) =>
  errorResponse(404, `${codes.join(' or ')}: unknown id, another account’s id, malformed id`, codes);

/** What every webhook route needs: a key with `webhooks:write` (route-needs.ts). */
const needs = requires({ scope: 'webhooks:write' });

/**
 * Every webhook route goes through here: its declaration (`needs`) is put first among its
 * middleware, before the route's own.
 */
const webhookRoute = <R extends RouteConfig & { middleware?: readonly MiddlewareHandler<AppEnv>[] }>(route: R) =>
  createRoute({ ...route, tags: ['Webhooks'], middleware: [needs, ...(route.middleware ?? [])] as const });

export function addWebhookRoutes(router: OpenAPIHono<AppEnv>) {
  const create = webhookRoute({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Add a webhook: a URL and the events it receives; the answer shows its secret once',
    description:
      'Deliveries are POSTs of `{"type", "timestamp", "data"}` (JSON) signed the Standard Webhooks way: ' +
      '`webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of ' +
      '"id.timestamp.body">` keyed with the base64-decoded bytes after `whsec_`. A receiver answers 2xx within ' +
      '10 s; anything else (a redirect included, never followed) is retried for about 38 hours, then failed. ' +
      'At most 20 webhooks per account.',
    middleware: [jsonBodyLimit()] as const,
    request: { body: { required: true, content: { 'application/json': { schema: WebhookCreateSchema } } } },
    responses: {
      201: ok(successV2(CreatedWebhookSchema), 'Created (the only answer with the secret)'),
      ...errors(400, 401, 429),
    },
  });
  router.openapi(create, async (c) => {
    const data = await createWebhook(c.env.DB, accountId(c), c.req.valid('json'), targetRules(c.get('config')));
    return c.json({ success: true as const, data }, 201);
  });

  const list = webhookRoute({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'The account’s webhooks, newest first (never their secrets)',
    responses: {
      200: ok(successV2(z.object({ webhooks: z.array(WebhookRecordSchema) })), 'The webhooks'),
      ...errors(401, 429),
    },
  });
  router.openapi(list, async (c) => {
    const webhooks = await listAccountWebhooks(c.env.DB, accountId(c));
    return c.json({ success: true as const, data: { webhooks } }, 200);
  });

  const get = webhookRoute({
    method: 'get',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'One webhook',
    request: { params: WebhookIdParamSchema },
    responses: {
      200: ok(successV2(WebhookRecordSchema), 'The webhook'),
      ...errors(401, 429),
      ...notFound('WEBHOOK_NOT_FOUND'),
    },
  });
  router.openapi(get, async (c) => {
    const row = await getWebhook(c.env.DB, accountId(c), c.req.valid('param').id);
    return c.json({ success: true as const, data: webhookRecord(row) }, 200);
  });

  const update = webhookRoute({
    method: 'patch',
    path: '/webhooks/{id}',
    operationId: 'updateWebhook',
    summary: 'Change a webhook’s URL or events (the secret stays)',
    middleware: [jsonBodyLimit()] as const,
    request: {
      params: WebhookIdParamSchema,
      body: { required: true, content: { 'application/json': { schema: WebhookUpdateSchema } } },
    },
    responses: {
      200: ok(successV2(WebhookRecordSchema), 'The webhook as it is now'),
      ...errors(400, 401, 429),
      ...notFound('WEBHOOK_NOT_FOUND'),
    },
  });
  router.openapi(update, async (c) => {
    const { id } = c.req.valid('param');
    const data = await changeWebhook(c.env.DB, accountId(c), id, c.req.valid('json'), targetRules(c.get('config')));
    return c.json({ success: true as const, data }, 200);
  });

  const remove = webhookRoute({
    method: 'delete',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook and its deliveries; nothing more is sent to it',
    request: { params: WebhookIdParamSchema },
    responses: {
      200: ok(successV2(z.object({ message: z.string() })), 'Deleted'),
      ...errors(401, 429),
      ...notFound('WEBHOOK_NOT_FOUND'),
    },
  });
  router.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await removeWebhook(c.env.DB, accountId(c), id);
    return c.json({ success: true as const, data: { message: `Webhook ${id} deleted` } }, 200);
  });

  const deliveries = webhookRoute({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'Recent deliveries of a webhook, newest first (kept 7 days)',
    request: { params: WebhookIdParamSchema, query: DeliveriesQuerySchema },
    responses: {
      200: ok(successV2(z.object({ deliveries: z.array(DeliveryRecordSchema) })), 'The deliveries'),
      ...errors(400, 401, 429),
      ...notFound('WEBHOOK_NOT_FOUND'),
    },
  });
  router.openapi(deliveries, async (c) => {
    const list = await recentDeliveries(c.env.DB, accountId(c), c.req.valid('param').id, c.req.valid('query').limit);
    return c.json(
      { success: true as const, data: { deliveries: list as z.infer<typeof DeliveryRecordSchema>[] } },
      200,
    );
  });

  const retry = webhookRoute({
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/retry',
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again (same webhook-id, new timestamp and signature)',
    request: { params: DeliveryParamSchema },
    responses: {
      202: ok(successV2(DeliveryRecordSchema), 'Queued: pending until the receiver answers'),
      ...errors(401, 429, 503),
      ...notFound('WEBHOOK_NOT_FOUND', 'DELIVERY_NOT_FOUND'),
    },
  });
  router.openapi(retry, async (c) => {
    const { id, deliveryId } = c.req.valid('param');
    const queue = c.env.EVENTS as Queue<EventsMessage> | undefined;
    const data = await resendDelivery({ db: c.env.DB, queue }, accountId(c), id, deliveryId);
    return c.json({ success: true as const, data: data as z.infer<typeof DeliveryRecordSchema> }, 202);
  });
}

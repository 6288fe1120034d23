// zod schemas of the webhook routes: validation and the v2 OpenAPI document alike.
import { z } from '@hono/zod-openapi';
import { EVENT_TYPES } from '../events/event-types.ts';
import { limitQueryParam } from '../schemas.ts';
import { checkWebhookUrl } from './url.ts';

/** A receiver URL, valid ones read as the parsed URL: that is what is stored and answered. */
const url = z
  .string()
  .openapi({
    format: 'uri',
    example: 'https://example.com/hooks/edgeshare',
    description:
      'Where deliveries are POSTed: https on its default port, never to a private, link-local, ' +
      'carrier-grade-NAT or cloud-metadata address, a local name (localhost, .local, .internal, a single label ' +
      'such as metadata) or a name that embeds such an address (10.0.0.1.nip.io); plain http, and any port, ' +
      'only for a loopback address (127.0.0.0/8, [::1]) where the service allows it (development: ' +
      'ALLOW_LOOPBACK_TARGETS). No credentials, control characters or whitespace. Stored and answered as ' +
      'parsed (`new URL(url).href`).',
  })
  .transform((value, ctx) => {
    // The shape of a receiver URL; whether loopback may be named is the service's (its configuration).
    const checked = checkWebhookUrl(value, { allowLoopback: true });
    if ('href' in checked) return checked.href;
    ctx.addIssue({ code: 'custom', message: checked.problem });
    return z.NEVER;
  });

const eventList = z
  .array(z.enum([...EVENT_TYPES, '*'], { message: `must be one of ${EVENT_TYPES.join(', ')}, or *` }))
  .min(1, 'must name at least one event type, or be ["*"]')
  .max(EVENT_TYPES.length, `must name at most ${EVENT_TYPES.length} event types`)
  .refine((types) => !types.includes('*') || types.length === 1, {
    message: 'must be ["*"] alone when it names "*" (every event)',
  })
  .openapi({
    description: 'The event types to receive, or ["*"] for all (including types added later)',
    example: ['file.uploaded'],
  });

export const WebhookCreateSchema = z.strictObject({ url, events: eventList }).openapi('WebhookCreate');

export const WebhookUpdateSchema = z
  .strictObject({ url: url.optional(), events: eventList.optional() })
  .refine((body) => body.url !== undefined || body.events !== undefined, {
    message: 'must name something to change: url or events',
  })
  .openapi('WebhookUpdate', { minProperties: 1 });

const time = z.string().openapi({ format: 'date-time', example: '2026-11-22T08:15:30.123Z' });

const webhookFields = {
  id: z.string().openapi({ example: 'wh_3q2-7wEAAAAAAAAAAAAAAA' }),
  url: z.string(),
  events: z.array(z.string()),
  createdAt: time,
  updatedAt: time,
};

export const WebhookRecordSchema = z.object(webhookFields).openapi('Webhook');

export const CreatedWebhookSchema = z
  .object({
    ...webhookFields,
    secret: z.string().openapi({
      description: 'whsec_ + base64 of 32 random bytes: verifies webhook-signature. Shown only in this answer.',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
  })
  .openapi('CreatedWebhook');

export const DeliveryRecordSchema = z
  .object({
    id: z.string().openapi({ description: 'Also the webhook-id header the receiver gets: the same on every retry' }),
    eventId: z.string(),
    type: z.enum(EVENT_TYPES),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int().min(0),
    lastStatusCode: z.number().int().nullable().openapi({ description: 'null: no answer (timeout, no connection)' }),
    lastError: z
      .string()
      .nullable()
      .openapi({
        description:
          'Why the last attempt failed: `HTTP <status>`, `redirect not followed`, `no response` (no connection, or ' +
          'none within 10 s: the two read alike), or `refused: …` when the URL breaks the address rule',
      }),
    createdAt: time,
    updatedAt: time,
    nextAttemptAt: time.nullable().openapi({ description: 'When the next retry is due; null when none is planned' }),
  })
  .openapi('WebhookDelivery');

export const WebhookIdParamSchema = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'wh_3q2-7wEAAAAAAAAAAAAAAA' }),
});

export const DeliveryParamSchema = WebhookIdParamSchema.extend({
  deliveryId: z.string().openapi({ param: { name: 'deliveryId', in: 'path' }, example: 'msg_2o4fQ3Z0YFhKpV8aG1M1bw' }),
});

export const DeliveriesQuerySchema = z.object({
  limit: limitQueryParam,
});

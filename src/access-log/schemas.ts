// zod schemas of the access log's routes: they validate the query and write the v2 OpenAPI document.
import { z } from '@hono/zod-openapi';
import { limitQueryParam, time } from '../schemas.ts';

export const AccessQuerySchema = z.object({
  limit: limitQueryParam,
  cursor: z
    .string()
    .max(512, 'cursor must be at most 512 characters')
    .optional()
    .openapi({
      description: 'Opaque: the `nextCursor` of the previous page',
      param: { name: 'cursor', in: 'query' },
    }),
});

export const AccessEventSchema = z
  .object({
    at: time,
    kind: z.enum(['page', 'download', 'archive', 'preview', 'password', 'upload']),
    outcome: z.enum([
      'served',
      'partial',
      'not-modified',
      'refused-password',
      'refused-exhausted',
      'refused-gone',
      'refused-moderated',
      'throttled',
    ]),
    status: z.number().int().openapi({ description: 'The HTTP status the visitor got' }),
    bytes: z
      .number()
      .int()
      .openapi({ description: 'Bytes of the shared content sent (downloads, previews, ZIPs) or received (uploads)' }),
    range: z.boolean().openapi({ description: 'The request asked for a byte range' }),
    country: z.string().nullable().openapi({ description: 'From the request’s `cf` object; null where none' }),
    asn: z.number().int().nullable(),
    asOrganization: z.string().nullable(),
    colo: z.string().nullable().openapi({ description: 'The Cloudflare data centre that answered' }),
    client: z.enum(['browser', 'curl', 'wget', 'python', 'node', 'other']).openapi({
      description: 'From the User-Agent (the header itself is not kept)',
    }),
    visitor: z.string().openapi({
      description:
        'Opaque: a keyed hash of the client’s address under a secret of the account that changes every 30 days. ' +
        'The same within a period, never the same across two; the address itself is never kept.',
    }),
    linkId: z.string().nullable().openapi({
      description: 'The made link the event came through; null: the file’s default link, or a file request',
    }),
  })
  .openapi('AccessEvent');

export const AccessPageSchema = z.object({
  events: z.array(AccessEventSchema).openapi({ description: 'Newest first' }),
  nextCursor: z.string().nullable().openapi({ description: 'The next page’s `cursor`; null at the end' }),
  droppedEvents: z.number().int().openapi({
    description: 'Events never recorded: dropped under load (recording never slows a visitor down)',
  }),
});

export type AccessEvent = z.infer<typeof AccessEventSchema>;
export type AccessLogPage = z.infer<typeof AccessPageSchema>;

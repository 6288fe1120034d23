// zod schemas of the operator's abuse routes (/admin: docs/abuse.md): the actions' bodies, the
// review's query, and what each answers with.
import { z } from '@hono/zod-openapi';
import { FileRecordV2 } from '../files/schemas';
import { limitQueryParam, time } from '../schemas';

/** The operator's reasoned decision: shown to visitors in the 451 and sent to the owner. */
export const StatementSchema = z
  .string()
  .trim()
  .min(1, 'statement must not be empty')
  .max(2000, 'statement must be at most 2000 characters')
  .openapi({
    description: 'The reasoned decision (1 … 2,000 characters): visitors see it on the 451, the owner gets it',
    example: 'Removed after a copyright notice (case 2026-118).',
  });

export const StatementBodySchema = z.object({ statement: StatementSchema });

/** A release or an unsuspension may say why, for the owner's notice; no body at all is fine. */
export const OptionalStatementBodySchema = z.object({ statement: StatementSchema.optional() });

export const RemoveBodySchema = StatementBodySchema.extend({
  blockHash: z.boolean().optional().openapi({ description: 'true: the file’s SHA-256 joins the blocklist' }),
});

export const REPORT_ACTIONS = ['dismiss', 'quarantine', 'remove', 'suspend'] as const;

export const ResolveBodySchema = StatementBodySchema.extend({
  action: z.enum(REPORT_ACTIONS, { message: 'must be dismiss, quarantine, remove or suspend' }).openapi({
    description:
      'dismiss: nothing is done; quarantine: the file quarantined (a link disabled, a collection’s links ' +
      'disabled); remove: the file (a file link’s file) removed; suspend: the target’s account suspended',
  }),
});

export const ReportsQuerySchema = z.object({
  status: z
    .enum(['open', 'resolved'], { message: 'must be open or resolved' })
    .default('open')
    .openapi({ param: { name: 'status', in: 'query' } }),
  limit: limitQueryParam,
  cursor: z
    .string()
    .max(512, 'cursor must be at most 512 characters')
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, description: 'The `nextCursor` of the page before' }),
});

/** A file as the operator sees it: the owner's v2 record, and whose it is. */
export const OperatorFileSchema = FileRecordV2.extend({ accountId: z.string() }).openapi('OperatorFile');

export const OperatorLinkSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    fileId: z.string().nullable(),
    collectionId: z.string().nullable(),
    url: z.string(),
    label: z.string().nullable(),
    createdAt: time,
    expiresAt: time.nullable(),
    revokedAt: time.nullable(),
    disabled: z
      .object({ statement: z.string(), at: time })
      .nullable()
      .openapi({ description: 'Disabled by the operator: the link answers 451 with this statement' }),
  })
  .openapi('OperatorLink');

export const ReportSchema = z
  .object({
    id: z.string(),
    status: z.enum(['open', 'resolved']),
    target: z
      .object({
        type: z.enum(['file', 'link', 'collection', 'request']),
        id: z.string(),
        accountId: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: 'What the reported URL named; null: nothing' }),
    reason: z.enum(['malware', 'phishing', 'csam', 'copyright', 'illegal', 'spam', 'other']),
    details: z.string().nullable(),
    contact: z.string().nullable(),
    linkWithKey: z
      .string()
      .nullable()
      .openapi({ description: 'An end-to-end link with its key, if the reporter gave it' }),
    reporters: z.number().int().openapi({ description: 'Distinct visitors who reported this target' }),
    createdAt: time,
    resolvedAt: time.nullable(),
    resolution: z
      .object({ action: z.enum(REPORT_ACTIONS), statement: z.string() })
      .nullable()
      .openapi({ description: 'How the operator decided; null while open' }),
  })
  .openapi('Report');

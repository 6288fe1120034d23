// zod schemas of the blocklist's admin routes (/admin/blocklist: docs/abuse.md).
import { z } from '@hono/zod-openapi';
import { limitQueryParam, time } from '../schemas';
import { PageCursorParam } from './schemas';

/** Why a hash is blocked: the operator's own note (1 … 500 characters). */
export const ReasonSchema = z
  .string()
  .trim()
  .min(1, 'reason must not be empty')
  .max(500, 'reason must be at most 500 characters')
  .openapi({ description: 'Why this hash is blocked (1 … 500 characters)', example: 'Known malware (MalwareBazaar).' });

export const BlockBodySchema = z.object({ reason: ReasonSchema });

export const HashParamSchema = z.object({
  sha256: z.string().openapi({ description: 'A SHA-256 in hex (64 digits, any case)' }),
});

export const BlocklistQuerySchema = z.object({
  limit: limitQueryParam,
  cursor: PageCursorParam,
});

export const ImportQuerySchema = z.object({
  reason: ReasonSchema.optional().openapi({
    param: { name: 'reason', in: 'query' },
    description: 'The reason every imported hash gets (none: null)',
  }),
});

export const BlockedSchema = z
  .object({
    sha256: z.string(),
    reason: z.string().nullable().openapi({ description: 'null for a hash imported without one' }),
    createdAt: time,
  })
  .openapi('BlockedHash');

export const ImportOutcomeSchema = z
  .object({
    received: z.number().int().openapi({ description: 'SHA-256 lines in the body (a repeated one counted each time)' }),
    added: z.number().int().openapi({ description: 'Hashes newly blocked' }),
    alreadyBlocked: z.number().int().openapi({ description: 'Hashes that were blocked already (their entries kept)' }),
  })
  .openapi('BlocklistImport');

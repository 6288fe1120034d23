// zod schemas of the end-to-end encryption routes: the account's identity (GET/PUT /e2e/identity).
import { z } from '@hono/zod-openapi';

const BACKUP_MAX_CHARS = 8 * 1024;
const time = z.string().nullable().openapi({ format: 'date-time', example: '2026-11-22T08:15:30.123Z' });

export const IdentitySchema = z
  .object({
    recipient: z.string().nullable().openapi({
      description: 'The account’s age recipient (`age1…`): what uploads encrypt to. null: none set yet',
      example: 'age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p',
    }),
    backup: z
      .string()
      .nullable()
      .openapi({
        description:
          'The secret identity encrypted with a passphrase the server never sees: an armored age file with one scrypt ' +
          'stanza (`age -d backup.age > key.txt` opens it too); null: none kept',
      }),
    createdAt: time,
    updatedAt: time,
  })
  .openapi('E2eIdentity');

export const IdentityPutSchema = z
  .strictObject({
    recipient: z.string().max(200).openapi({ description: 'An age X25519 recipient: age1… (bech32)' }),
    backup: z
      .string()
      .max(BACKUP_MAX_CHARS, `must be at most ${BACKUP_MAX_CHARS} characters`)
      .nullable()
      .optional()
      .openapi({
        description:
          'Armored age file (one scrypt stanza) holding the identity; absent keeps the stored one (same recipient), ' +
          'null removes it',
      }),
    replace: z
      .boolean()
      .optional()
      .openapi({
        description:
          'true: replace another recipient already set (else 409 E2E_IDENTITY_EXISTS). Files keep their headers: ' +
          'the old identity still opens them',
      }),
  })
  .openapi('E2eIdentityPut');

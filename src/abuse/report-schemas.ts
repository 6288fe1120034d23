// zod schemas of POST /api/v2/reports (docs/abuse.md): the report as JSON or as the form posts it,
// and the answer. One schema for both bodies: the form's empty optional fields are absent.
import { z } from '@hono/zod-openapi';
import { successV2, time } from '../schemas';
import type { ReportInput } from './intake';
import { MAX_TURNSTILE_TOKEN } from './turnstile';

export const REPORT_REASONS = ['malware', 'phishing', 'csam', 'copyright', 'illegal', 'spam', 'other'] as const;

/** The largest report body: a report is a few fields of text. */
export const MAX_REPORT_BODY = 8 * 1024;

/** An optional text: trimmed, empty is absent. */
const optionalText = (name: string, max: number, description: string) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z
      .string()
      .trim()
      .max(max, `${name} must be at most ${max} characters`)
      .optional()
      .openapi({ description, maxLength: max }),
  );

export const ReportBodySchema = z
  .object({
    url: z
      .string({ message: 'url is required' })
      .trim()
      .min(1, 'url is required')
      .max(2000, 'url must be at most 2000 characters')
      .openapi({
        description:
          'A share link, collection link, member, ZIP or file-request URL of this service (any path form), or its ' +
          'token. Answered alike whether or not it names anything',
        example: 'https://files.example.com/share/8GkcM6Qk2i3rVJ3Bq1zvRbYw5c0TxaLn',
      }),
    reason: z.enum(REPORT_REASONS, { message: `reason must be one of ${REPORT_REASONS.join(', ')}` }),
    details: optionalText('details', 2000, 'What is wrong with it, for the operator (at most 2,000 characters)'),
    contact: optionalText(
      'contact',
      200,
      'How the operator may reach the reporter, if at all (at most 200 characters)',
    ),
    linkWithKey: optionalText(
      'linkWithKey',
      2000,
      'An end-to-end encrypted link with its key (#k=…), so the operator can see the content; shown to the operator only',
    ),
    turnstileToken: z
      .string()
      .max(MAX_TURNSTILE_TOKEN, `turnstileToken must be at most ${MAX_TURNSTILE_TOKEN} characters`)
      .optional()
      .openapi({ description: 'The Turnstile widget’s token: required when this service has Turnstile on' }),
  })
  .openapi('ReportBody');

/** The parsed body as the intake takes it. */
export const reportInput = (body: z.output<typeof ReportBodySchema>): ReportInput => ({
  url: body.url,
  reason: body.reason,
  details: body.details ?? null,
  contact: body.contact ?? null,
  linkWithKey: body.linkWithKey ?? null,
  turnstileToken: body.turnstileToken,
});

export const ReportReceivedSchema = successV2(
  z.object({
    id: z.string().openapi({ description: 'The report’s id (rpt_…), fresh for every report' }),
    receivedAt: time,
  }),
).openapi('ReportReceived');

// POST /api/v2/reports: anyone reports a link of this service to its operator, with no key (the
// form at /report posts here). Mounted before authentication (app.ts), CORS like every /api path.
// A browser that posted the form gets a page (received, or why not); a script gets JSON.
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError, validationError, zodValidationError } from '../errors';
import { addFallbacks } from '../http/fallbacks';
import { errorResponse, serveDocumented } from '../http/openapi';
import { events } from '../http/request-deps';
import { publicRoute } from '../http/route-needs';
import { versionRouter } from '../http/validation';
import { concat } from '../lib/bytes';
import { clientAddress } from '../limiter/auth-guard-client';
import { pageHeaders } from '../pages/layout';
import { REPORT_ANSWER_CSP, reportHref, reportReceivedPage, reportRefusedPage } from '../pages/report-page';
import { type IntakeDeps, receiveReport } from './intake';
import { MAX_REPORT_BODY, ReportBodySchema, ReportReceivedSchema, reportInput } from './report-schemas';

const tooLarge = () => validationError('body', `must be at most ${MAX_REPORT_BODY} bytes`);

/** The body as text, refused past MAX_REPORT_BODY before more of it is read. */
async function readBody(request: Request): Promise<string> {
  if (Number(request.headers.get('content-length') ?? 0) > MAX_REPORT_BODY) throw tooLarge();
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_REPORT_BODY) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(concat(chunks));
}

/** The fields of a JSON or urlencoded body (Turnstile's own field name taken too), or 400. */
function fieldsOf(contentType: string, text: string): Record<string, unknown> {
  const type = contentType.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const form = Object.fromEntries(new URLSearchParams(text));
    const token = form.turnstileToken ?? form['cf-turnstile-response'];
    return token === undefined ? form : { ...form, turnstileToken: token };
  }
  if (type !== 'application/json') {
    throw validationError('body', 'must be JSON or application/x-www-form-urlencoded');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw validationError('body', 'is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw validationError('body', 'must be an object');
  return body as Record<string, unknown>;
}

const intakeDeps = (c: Context<AppEnv>): IntakeDeps => {
  const config = c.get('config');
  const { TURNSTILE_SITE_KEY: siteKey, TURNSTILE_SECRET_KEY: secret } = config;
  return {
    db: c.env.DB,
    bucket: c.env.FILES,
    accounts: c.env.ACCOUNT_STORAGE,
    limiter: c.env.KEY_LIMITER,
    events: events(c),
    operatorWebhook: config.OPERATOR_WEBHOOK_URL,
    guard: c.env.AUTH_GUARD,
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    config,
    turnstile: siteKey && secret ? { siteKey, secret, verifyUrl: config.TURNSTILE_VERIFY_URL } : undefined,
  };
};

/** A browser (the form): it asks for HTML. Scripts (curl, fetch) get JSON. */
const wantsHtml = (c: Context<AppEnv>) => (c.req.header('accept') ?? '').includes('text/html');

async function report(c: Context<AppEnv>): Promise<Response> {
  const html = wantsHtml(c);
  let url = '';
  try {
    const fields = fieldsOf(c.req.header('content-type') ?? '', await readBody(c.req.raw));
    if (typeof fields.url === 'string') url = fields.url.slice(0, 2000);
    const parsed = ReportBodySchema.safeParse(fields);
    if (!parsed.success) throw zodValidationError(parsed.error.issues);
    const received = await receiveReport(intakeDeps(c), reportInput(parsed.data), clientAddress(c.req.raw.headers));
    if (!html) return c.json({ success: true as const, data: received }, 202);
    const config = c.get('config');
    const page = reportReceivedPage({
      id: received.id,
      threshold: config.REPORT_QUARANTINE_THRESHOLD !== undefined,
      contact: config.ABUSE_CONTACT,
    });
    return c.html(page, 202, pageHeaders(REPORT_ANSWER_CSP));
  } catch (error) {
    if (!html || !(error instanceof ApiError)) throw error;
    const page = reportRefusedPage({ message: error.message, status: error.status, back: reportHref(url) });
    return c.html(page, error.status, { ...pageHeaders(REPORT_ANSWER_CSP), ...error.headers });
  }
}

const reportRoute = createRoute({
  method: 'post',
  path: '/reports',
  operationId: 'reportAbuse',
  summary: 'Report a link of this service to its operator (no key)',
  description:
    'A share link, collection link, member, ZIP or file-request URL, or its token, and why. Every well-formed ' +
    'report is answered 202 whether or not the URL names anything; what it names is looked up after the ' +
    'answer. The reporter’s address is never stored (the access log’s visitor id stands for it). A browser ' +
    '(Accept: text/html) gets a page instead of JSON. Throttled per address (REPORTS_PER_ADDRESS per ' +
    'REPORT_WINDOW_SECONDS); reports of one target past 50 a day are counted, not stored again.',
  security: [],
  tags: ['Reports (public, no key)'],
  request: {
    body: {
      required: true,
      content: {
        'application/json': { schema: ReportBodySchema },
        'application/x-www-form-urlencoded': { schema: ReportBodySchema },
      },
    },
  },
  responses: {
    202: {
      description: 'Received (whether or not the URL names anything)',
      content: {
        'application/json': { schema: ReportReceivedSchema },
        'text/html': { schema: { type: 'string' as const } },
      },
    },
    ...errorResponse(
      400,
      'VALIDATION_ERROR: a field is missing or too long, the reason unknown, the body not JSON or a form, or over 8 KiB',
      ['VALIDATION_ERROR'],
    ),
    ...errorResponse(403, 'CAPTCHA_FAILED: Turnstile is on and the token is missing or did not pass', [
      'CAPTCHA_FAILED',
    ]),
    ...errorResponse(429, 'RATE_LIMITED: too many reports from this address; Retry-After says when to try again', [
      'RATE_LIMITED',
    ]),
    ...errorResponse(503, 'SERVICE_UNAVAILABLE: Turnstile’s siteverify could not be reached; try again', [
      'SERVICE_UNAVAILABLE',
    ]),
  },
});

/** /api/v2/reports, served and documented from its definition (app.ts adds it to v2's document). */
export function createReportRouter() {
  const router = versionRouter();
  serveDocumented(router, reportRoute, publicRoute, report);
  addFallbacks(router, { also: ['OPTIONS'] });
  return router;
}

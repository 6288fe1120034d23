// The page a visitor gets instead of something this service will not serve (src/moderation/
// standing.ts): 451 Unavailable For Legal Reasons (RFC 7725) with the operator's statement, where
// to turn (ABUSE_CONTACT, also in the `Link: rel="blocked-by"` header), and a way to report the
// page; or, while a file's scan runs (SCAN_MODE=gate), a 409 asking to come back later.
import type { Context } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../env';
import { type ApiError, SCAN_HELD_MESSAGE } from '../errors';
import { blockedByLink } from '../http/errors';
import { layout, pageCsp, pageHeaders } from './layout';

const UNAVAILABLE_CSP = pageCsp();

/** The report form, with the page's own URL filled in. */
const reportHref = (pageUrl: string) => `/report?url=${encodeURIComponent(pageUrl)}`;

export function unavailablePage(input: { statement: string; contact?: string; pageUrl: string }) {
  return layout({
    title: 'Unavailable for legal reasons · edgeshare',
    head: html`<meta name="robots" content="noindex">`,
    body: html`<div class="not-found">
<p class="code" aria-hidden="true">451</p>
<h1>This is no longer available</h1>
<p class="muted">The operator of this service took it down. Their statement:</p>
<blockquote class="statement">${input.statement}</blockquote>
${
  input.contact
    ? html`<p>Questions, or an objection to this decision: <a href="${input.contact}" rel="blocked-by">${input.contact.replace(/^mailto:/, '')}</a>.</p>`
    : ''
}
<p class="muted"><a href="${reportHref(input.pageUrl)}">Report this page</a></p>
</div>`,
  });
}

export function scanPendingPage(input: { held: boolean }) {
  return layout({
    title: 'Being checked · edgeshare',
    head: html`<meta name="robots" content="noindex">`,
    body: html`<div class="not-found">
<p class="code" aria-hidden="true">409</p>
<h1>${input.held ? 'This file is held for review' : 'This file is being checked'}</h1>
<p class="muted">${
      input.held
        ? 'It could not be scanned for malware, so it is held until the operator of this service reviews it.'
        : 'It is being scanned for malware. Try again in a minute.'
    }</p>
</div>`,
  });
}

/**
 * The HTML answer to a refusal of src/moderation/standing.ts (451 UNAVAILABLE_FOR_LEGAL_REASONS or
 * 409 SCAN_PENDING), for a browser: the refusal's status and headers (Retry-After), the page's own,
 * and `Link: <ABUSE_CONTACT>; rel="blocked-by"` on a 451 when the operator set one.
 */
export function unavailableResponse(c: Context<AppEnv>, error: ApiError): Response | Promise<Response> {
  const config = c.get('config');
  const headers: Record<string, string> = { ...pageHeaders(UNAVAILABLE_CSP), ...error.headers };
  const blockedBy = blockedByLink(config, error.status);
  if (blockedBy) headers.Link = blockedBy;
  if (error.code === 'SCAN_PENDING') {
    return c.html(scanPendingPage({ held: error.message === SCAN_HELD_MESSAGE }), 409, headers);
  }
  const page = unavailablePage({
    statement: error.statement ?? '',
    contact: config.ABUSE_CONTACT,
    pageUrl: new URL(c.req.url).href,
  });
  return c.html(page, 451, headers);
}

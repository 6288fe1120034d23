// The report form (GET /report?url=…), what posting it answers a browser (POST /api/v2/reports
// negotiates: a browser gets these pages, a script JSON), and the footer of every share,
// collection and file-request page: "Report this link" with the page's own URL, and
// ABUSE_CONTACT. The form is plain HTML (it works without JavaScript); with Turnstile on it
// carries Cloudflare's widget, the one script from another origin, on this page only.
import { html } from 'hono/html';
import { layout, pageCsp } from './layout';

const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';
const TURNSTILE_SCRIPT = `${TURNSTILE_ORIGIN}/turnstile/v0/api.js`;

/** The form posts to this origin's API; with Turnstile, its script and frame come from Cloudflare. */
export const reportPageCsp = (turnstile: boolean) =>
  turnstile
    ? pageCsp({ script: `'self' ${TURNSTILE_ORIGIN}`, frame: TURNSTILE_ORIGIN, form: "'self'" })
    : pageCsp({ form: "'self'" });

/** What the answers to a posted form allow: nothing but this origin's stylesheet and icons. */
export const REPORT_ANSWER_CSP = pageCsp();

/** The report form with a page's own URL filled in. */
export const reportHref = (pageUrl: string) => `/report?url=${encodeURIComponent(pageUrl)}`;

/** The footer of a share, collection or file-request page: "Report this link" and the abuse contact. */
export const reportFooter = (pageUrl: string, contact: string | undefined) =>
  html`<a href="${reportHref(pageUrl)}">Report this link</a>${
    contact
      ? html`<span class="footer-contact">Abuse: <a href="${contact}">${contact.replace(/^mailto:/, '')}</a></span>`
      : ''
  }`;

const REASONS = [
  ['malware', 'Malware: a virus, ransomware, a harmful program'],
  ['phishing', 'Phishing: a fake login page, a scam'],
  ['csam', 'Child sexual abuse material'],
  ['copyright', 'Copyright infringement'],
  ['illegal', 'Other illegal content'],
  ['spam', 'Spam'],
  ['other', 'Something else'],
] as const;

export type ReportPageInput = {
  /** The reported page's URL, from `?url=` (empty: the reporter types it). */
  url: string;
  /** Turnstile's site key, when Turnstile is on. */
  siteKey?: string;
  contact?: string;
};

export function reportPage(input: ReportPageInput) {
  return layout({
    title: 'Report a link · edgeshare',
    head: html`<meta name="robots" content="noindex">${
      input.siteKey ? html`\n<script src="${TURNSTILE_SCRIPT}" async defer></script>` : ''
    }`,
    body: html`<h1>Report a link</h1>
<p>Tell the operator of this service about a share link, collection or upload link that carries something illegal or harmful. No account is needed.</p>
<form class="report-form panel" method="post" action="/api/v2/reports">
<div class="field"><label for="report-url">The link</label>
<input id="report-url" name="url" required maxlength="2000" value="${input.url}" inputmode="url" spellcheck="false" autocomplete="off" aria-describedby="report-url-hint">
<span id="report-url-hint" class="hint">The share, collection or upload link, or its token.</span></div>
<div class="field"><label for="report-reason">What is wrong with it</label>
<select id="report-reason" name="reason" required>
<option value="">Choose one…</option>
${REASONS.map(([value, label]) => html`<option value="${value}">${label}</option>`)}
</select></div>
<div class="field"><label for="report-details">Details (optional)</label>
<textarea id="report-details" name="details" maxlength="2000" rows="4" aria-describedby="report-details-hint"></textarea>
<span id="report-details-hint" class="hint">What you saw, and anything that helps the operator decide (at most 2,000 characters).</span></div>
<div class="field"><label for="report-contact">Your contact (optional)</label>
<input id="report-contact" name="contact" maxlength="200" autocomplete="email" aria-describedby="report-contact-hint">
<span id="report-contact-hint" class="hint">An email address, if the operator may reach you. Leave it empty to stay anonymous.</span></div>
<div class="field"><label for="report-key-link">The link with its key (optional)</label>
<input id="report-key-link" name="linkWithKey" maxlength="2000" inputmode="url" spellcheck="false" autocomplete="off" aria-describedby="report-key-link-hint">
<span id="report-key-link-hint" class="hint">For an end-to-end encrypted file, the whole link with its key (the part after #), so the operator can see what you saw. Only the operator sees it.</span></div>
${input.siteKey ? html`<div class="cf-turnstile" data-sitekey="${input.siteKey}" data-response-field-name="turnstileToken"></div>` : ''}
<button type="submit">Send the report</button>
</form>
<p class="hint">This service does not store your address with the report, only an opaque number that changes every 30 days.${
      input.contact
        ? html` You can also write to <a href="${input.contact}">${input.contact.replace(/^mailto:/, '')}</a>.`
        : ''
    }</p>`,
  });
}

/** What a browser gets once its report is stored: received, and what happens next. */
export function reportReceivedPage(input: { id: string; threshold: boolean; contact?: string }) {
  return layout({
    title: 'Report received · edgeshare',
    head: html`<meta name="robots" content="noindex">`,
    body: html`<h1>Report received</h1>
<p>Thank you. The operator of this service reviews every report. If the link breaks the law or this service’s rules, they take it down: it then answers “Unavailable for legal reasons” with their statement, and its owner is told why.</p>
${input.threshold ? html`<p>When several people report the same link, it is held until the operator decides.</p>` : ''}
<p>You hear back only if you left a contact and the operator needs to reach you${
      input.contact
        ? html`; you can write to them at <a href="${input.contact}">${input.contact.replace(/^mailto:/, '')}</a>`
        : ''
    }.</p>
<p class="muted">Reference: <code>${input.id}</code></p>`,
  });
}

/** What a browser gets when its report is refused (a field, the challenge, too many reports). */
export function reportRefusedPage(input: { message: string; status: number; back: string }) {
  return layout({
    title: 'Report not sent · edgeshare',
    head: html`<meta name="robots" content="noindex">`,
    body: html`<div class="not-found">
<p class="code" aria-hidden="true">${input.status}</p>
<h1>The report was not sent</h1>
<p role="alert">${input.message}</p>
<p><a href="${input.back}">Back to the form</a></p>
</div>`,
  });
}

// The frame every server-rendered page shares: language, icons, the one stylesheet, a skip link.
// Values go through hono/html's `html` tag, which escapes everything interpolated.
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export type PageParts = {
  title: string;
  /** Extra <head> content: meta tags, page-specific stylesheets. */
  head?: Html | string;
  body: Html;
  /** Script paths under this origin, loaded with `defer` (no inline script anywhere). */
  scripts?: string[];
  /** A class on <main>: `wide` for tables. */
  mainClass?: string;
  /**
   * Content after <main>, outside the page's own styles: a widget that brings its own stylesheet
   * and its own <main> (Swagger UI). The page's part is then a <div>, so there is one <main>.
   */
  after?: Html;
  /** The page's footer (a share page's "Report this link" and the abuse contact). */
  footer?: Html;
};

export function layout(parts: PageParts) {
  const classAttr = parts.mainClass ? html` class="${parts.mainClass}"` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${parts.title}</title>
<link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="apple-touch-icon" href="/assets/icon-192.png">
<link rel="stylesheet" href="/assets/style.css">
${parts.head ?? ''}
${(parts.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><span class="brand"><img src="/assets/favicon.svg" alt="" width="24" height="24">edgeshare</span></header>
${parts.after ? html`<div id="main"${classAttr}>` : html`<main id="main"${classAttr}>`}
${parts.body}
${parts.after ? html`</div>\n${parts.after}` : html`</main>`}
${parts.footer ? html`<footer class="site-footer">${parts.footer}</footer>\n` : ''}</body>
</html>`;
}

/**
 * A Content-Security-Policy for a page: nothing by default, then only this origin for what the
 * page names. No 'unsafe-inline' anywhere: pages carry no inline script or style.
 */
export function pageCsp(
  allow: Partial<Record<'script' | 'img' | 'media' | 'frame' | 'connect' | 'font' | 'form' | 'worker', string>> = {},
) {
  const directives = [
    "default-src 'none'",
    `script-src ${allow.script ?? "'self'"}`,
    "style-src 'self'",
    `img-src ${allow.img ?? "'self'"}`,
    ...(allow.media ? [`media-src ${allow.media}`] : []),
    ...(allow.frame ? [`frame-src ${allow.frame}`] : []),
    ...(allow.connect ? [`connect-src ${allow.connect}`] : []),
    ...(allow.font ? [`font-src ${allow.font}`] : []),
    ...(allow.worker ? [`worker-src ${allow.worker}`] : []),
    "base-uri 'none'",
    `form-action ${allow.form ?? "'none'"}`,
    "frame-ancestors 'none'",
  ];
  return directives.join('; ');
}

/** Headers of every server-rendered page. */
export const pageHeaders = (csp: string): Record<string, string> => ({
  'Content-Security-Policy': csp,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'private, no-store',
});

// Checks every server-rendered page must pass, and small readers for the HTML they send.
import { env } from 'cloudflare:test';
import { expect } from 'vitest';

/** The content of `<meta property|name="name" content="…">`, entities as sent. */
export function meta(page: string, name: string): string | undefined {
  const tag = new RegExp(`<meta (?:property|name)="${name.replace(/[:.]/g, '\\$&')}" content="([^"]*)">`).exec(page);
  return tag?.[1];
}

/** Every local path the page loads or links: scripts, stylesheets, icons, images. */
export function localReferences(page: string): string[] {
  return [...page.matchAll(/<(?:script|link|img)\b[^>]*?\b(?:src|href)="(\/[^"]*)"/g)].map((match) => match[1] ?? '');
}

/**
 * The page has a language, a viewport, the shared stylesheet and icons, no inline script or
 * style, and a strict CSP without 'unsafe-inline'; every static file it names exists in public/.
 */
export async function expectWellFormedPage(response: Response, page: string): Promise<void> {
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
  expect(page).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
  expect(page).toContain('<link rel="stylesheet" href="/assets/style.css">');
  expect(page).toContain('<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">');
  expect(page).toContain('<link rel="icon" href="/favicon.ico" sizes="32x32">');
  // Every <script> has a src; no <style> element, no style="" or on…="" attribute.
  expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  expect(page).not.toMatch(/<style\b/);
  expect(page).not.toMatch(/\sstyle="/);
  expect(page).not.toMatch(/\son[a-z]+="/);

  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("base-uri 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');

  for (const path of localReferences(page)) {
    const asset = await env.ASSETS.fetch(`http://assets.local${path}`);
    expect(asset.status, `${path} is in public/`).toBe(200);
    await asset.arrayBuffer();
  }
}

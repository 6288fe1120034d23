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

/** An element of a page as the server wrote it: its tag name, id, where it opens, and what it holds. */
export type Element = { name: string; id?: string; line: number; children: Element[] };

// Elements with no end tag, and those whose content is text up to their own end tag.
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);
const TAG = /<!--[\s\S]*?-->|<!doctype[^>]*>|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/i;

/**
 * The page's elements as written, with every end tag required (our pages omit none), or the
 * first place where an end tag closes another element than the one open, or an element is never
 * closed. A browser would silently repair either, drawing content somewhere else than written.
 */
export function parseElements(page: string): { root: Element; problem?: string } {
  const lineAt = (index: number) => page.slice(0, index).split('\n').length;
  const root: Element = { name: '#document', line: 1, children: [] };
  const open: Element[] = [root];
  const tags = new RegExp(TAG.source, 'gi');
  for (let match = tags.exec(page); match; match = tags.exec(page)) {
    const [, closing, rawName, attributes = ''] = match;
    if (!rawName) continue;
    const name = rawName.toLowerCase();
    const current = open.at(-1) ?? root;
    if (closing) {
      if (current.name !== name) {
        const opened = current === root ? 'nothing open' : `<${current.name}> of line ${current.line}`;
        return { root, problem: `</${name}> on line ${lineAt(match.index)} closes ${opened}` };
      }
      open.pop();
      continue;
    }
    const element: Element = {
      name,
      id: /\bid="([^"]*)"/.exec(attributes)?.[1],
      line: lineAt(match.index),
      children: [],
    };
    current.children.push(element);
    if (VOID.has(name)) continue;
    open.push(element);
    if (RAW_TEXT.has(name)) {
      const end = page.toLowerCase().indexOf(`</${name}`, tags.lastIndex);
      if (end >= 0) tags.lastIndex = end;
    }
  }
  const unclosed = open.slice(1).map((element) => `<${element.name}> of line ${element.line}`);
  return { root, problem: unclosed.length > 0 ? `never closed: ${unclosed.join(', ')}` : undefined };
}

/** Every element under `element` (itself included) that passes `test`, with its ancestors. */
export function findElements(
  element: Element,
  test: (element: Element) => boolean,
  ancestors: Element[] = [],
): { element: Element; ancestors: Element[] }[] {
  const here = test(element) ? [{ element, ancestors }] : [];
  return [...here, ...element.children.flatMap((child) => findElements(child, test, [...ancestors, element]))];
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
  // Every element closes where it opens: a browser would otherwise move what follows elsewhere.
  expect(parseElements(page).problem).toBeUndefined();

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

/// <reference lib="dom" />
// (DOM types: tablesInPlace's callback runs in the browser.)
// Real headless Chromium for the page tests: Debian's `chromium-headless-shell` (or `chromium`)
// driven by playwright-core (which downloads no browser of its own). Where no Chromium is
// installed the tests are skipped, never silently: the skip prints a banner saying so and how to
// install one. In CI they fail instead, so that a run without them never passes green.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH, INSTALL_CHROMIUM } from '../../scripts/chromium.ts';
import { ROOT } from '../../scripts/wrangler.ts';
import { adminKey } from './dev-server.ts';

/** The Chromium binary, or undefined when none is installed (scripts/chromium.ts). */
export { CHROMIUM_PATH };

/** A CI run: CI set to anything but empty, `false` or `0` (GitHub Actions and .ci/run set CI=true). */
export const isCI = (env: NodeJS.ProcessEnv = process.env) =>
  !['', 'false', '0'].includes((env.CI ?? '').trim().toLowerCase());

/** Whether `what` (browser tests) can run here; see chromiumOrSkip. */
export const warnIfNoChromium = (what: string): boolean => chromiumOrSkip(what, CHROMIUM_PATH, process.env);

/**
 * True with a Chromium; without one, false after a banner saying `what` is skipped, or, in CI, an
 * error, which fails the file (and the run).
 */
export function chromiumOrSkip(what: string, chromium: string | undefined, env: NodeJS.ProcessEnv): boolean {
  if (chromium) return true;
  const install = `${INSTALL_CHROMIUM} .ci/run installs it where apt-get exists.`;
  if (isCI(env)) {
    throw new Error(
      `${what} cannot run, since no Chromium is installed, and CI must not pass without them. ${install}`,
    );
  }
  const line = '!'.repeat(78);
  console.warn(
    `\n${line}\n!! SKIPPED: ${what}, since no Chromium is installed.\n` +
      `!! ${INSTALL_CHROMIUM}\n` +
      `!! .ci/run installs it where apt-get exists. A CI run (CI=true) fails instead.\n${line}\n`,
  );
  return false;
}

export function launchBrowser(): Promise<Browser> {
  // playwright-core gives every launch a fresh, throwaway profile (--user-data-dir).
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * The wrangler dev the browser project's global setup started (test/helpers/browser-global-setup.ts);
 * test/helpers/browser-setup.ts waits until it answers, before each file.
 */
export const server = () => {
  const { origin, adminToken } = inject('browserServer');
  return { origin, adminToken };
};

/** A page that records console errors and Content-Security-Policy violations. */
export async function newPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    // A 404 page's own status is reported as a failed resource; that is the page working.
    if (message.type() === 'error' && !text.includes('status of 404')) problems.push(text);
    else if (/Content[- ]Security[- ]Policy/i.test(text)) problems.push(text);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, problems };
}

/**
 * Screenshots go to .tmp/screenshots/ (git-ignored) on every run, and to docs/screenshots/ (linked
 * from the README) when UPDATE_SCREENSHOTS=1, as `npm run screenshots` sets it.
 */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots') : join(ROOT, '.tmp/screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage });
}

/** An API call from Node with a key; the parsed JSON and the status. */
export async function api<T = unknown>(
  origin: string,
  key: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${origin}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** A fresh API key through the admin API (the shared server gives every key room for many pages). */
export function createKey(name: string): Promise<string> {
  const { origin, adminToken } = server();
  return adminKey(origin, adminToken, name);
}

/** The web app's tables (by their body's id) and the sections (by their heading's id) that hold them. */
export const WEB_APP_TABLES = {
  'files-body': 'files-heading',
  'requests-body': 'requests-heading',
  'webhook-deliveries-body': 'webhooks-heading',
};

/**
 * Where the browser put the page's tables and sections, as drawn (after any repair of the
 * markup): each table's body id, the heading of the section holding it, and its rows' widths
 * against its header's; no section inside another section or a table.
 */
export async function expectTablesInPlace(page: Page, expected: Record<string, string>): Promise<void> {
  const drawn = await page.evaluate(() => ({
    tables: Array.from(document.querySelectorAll('table')).map((table) => ({
      body: table.tBodies[0]?.id ?? '',
      heading: table.closest('section')?.querySelector('h2')?.id ?? '',
      columns: table.tHead?.rows[0]?.cells.length ?? 0,
      widths: Array.from(table.tBodies)
        .flatMap((body) => Array.from(body.rows))
        .map((row) => Array.from(row.cells).reduce((sum, cell) => sum + cell.colSpan, 0)),
    })),
    nested: Array.from(document.querySelectorAll('section'))
      .filter((section) => section.parentElement?.closest('section, table'))
      .map((section) => section.querySelector('h2')?.textContent ?? section.outerHTML.slice(0, 80)),
  }));
  expect(drawn.nested).toEqual([]);
  expect(Object.fromEntries(drawn.tables.map((table) => [table.body, table.heading]))).toEqual(expected);
  for (const table of drawn.tables) {
    expect(
      table.widths.every((width) => width === table.columns),
      `${table.body}: ${table.widths} of ${table.columns}`,
    ).toBe(true);
  }
}

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\\.?';
/** Dates written some other way: 12/3/2026, 3.12.2026, Dec 3, 2026, 3 Dec 2026, 2:05 PM. */
const OTHER_DATES = new RegExp(
  [
    '\\b\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}\\b',
    `\\b${MONTH} \\d{1,2},? \\d{4}\\b`,
    `\\b\\d{1,2}\\.? ${MONTH},? \\d{4}\\b`,
    '\\b\\d{1,2}:\\d\\d(?::\\d\\d)? ?[AP]M\\b',
  ].join('|'),
  'i',
);

/**
 * Every date the page shows is written one way, `2026-12-03 14:05 UTC` (src/lib/format.ts), and
 * none another way; returns those it found, so a test can say how many it expects.
 */
export async function expectDatesOneWay(page: Page): Promise<string[]> {
  const text = (await page.locator('body').textContent()) ?? '';
  expect(OTHER_DATES.exec(text)?.[0]).toBeUndefined();
  const dates = [...text.matchAll(/\d{4}-\d\d-\d\d[^\n]{0,10}/g)].map((match) => match[0]);
  for (const date of dates) expect(date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  return dates;
}

/**
 * What scrolls sideways on the page as drawn now: the document itself when it is wider than the
 * window, and any visible part of it (a table's wrapper, a dialog) whose content is wider than
 * its box. Empty when everything fits.
 */
export function sidewaysScroll(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const { scrollWidth } = document.documentElement;
    if (scrollWidth > window.innerWidth) found.push(`the page: ${scrollWidth} px in ${window.innerWidth}`);
    for (const element of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      const { overflowX } = getComputedStyle(element);
      if (overflowX !== 'auto' && overflowX !== 'scroll') continue;
      if (element.scrollWidth > element.clientWidth + 1 && element.checkVisibility()) {
        const name = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${element.className}`;
        found.push(`${name}: ${element.scrollWidth} px in ${element.clientWidth}`);
      }
    }
    return found;
  });
}

/**
 * The words (runs of letters and digits) in these elements' text that a line break cuts in two:
 * those whose text lies on more than one line.
 */
export function splitWords(cells: Locator): Promise<string[]> {
  return cells.evaluateAll((elements) =>
    elements.flatMap((element) => {
      const split: string[] = [];
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of (node.textContent ?? '').matchAll(/[\p{L}\p{N}]+/gu)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.bottom)));
          if (lines.size > 1) split.push(match[0]);
        }
      }
      return split;
    }),
  );
}

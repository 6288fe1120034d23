// The operator's abuse actions as a test calls them (the admin API, with the tests' ADMIN_TOKEN),
// and what a refusal of src/moderation/standing.ts looks like from outside: a 451 with the
// operator's statement, `Link: <ABUSE_CONTACT>; rel="blocked-by"` when one is set.
import { expect } from 'vitest';
import { sha256Hex } from './digests';
import { call } from './worker';

export const ADMIN = { Authorization: 'Bearer test-admin-token-0123456789abcdefghij' };

/** The contact a test sets (per call, through the env overrides of `call`). */
export const CONTACT = 'mailto:abuse@edgeshare.test';
export const WITH_CONTACT = { ABUSE_CONTACT: CONTACT };
export const BLOCKED_BY = `<${CONTACT}>; rel="blocked-by"`;

/** POST /admin<path> with a JSON body (none when undefined). */
export function adminPost(path: string, body?: unknown) {
  const headers: Record<string, string> = { ...ADMIN };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return call(`/admin${path}`, {
    method: 'POST',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** An admin action that must succeed: its `data`. */
export async function act<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T> {
  const response = await adminPost(path, body);
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { data: T }).data;
}

export const quarantine = (fileId: string, statement: string) => act(`/files/${fileId}/quarantine`, { statement });
export const release = (fileId: string) => act(`/files/${fileId}/release`);
export const removeFile = (fileId: string, statement: string, blockHash?: boolean) =>
  act(`/files/${fileId}/remove`, { statement, ...(blockHash === undefined ? {} : { blockHash }) });
export const disableLink = (linkId: string, statement: string) => act(`/links/${linkId}/disable`, { statement });
export const suspend = (accountId: string, statement: string) => act(`/accounts/${accountId}/suspend`, { statement });
export const unsuspend = (accountId: string) => act(`/accounts/${accountId}/unsuspend`);

/**
 * Checks a 451 as the API answers it: the envelope with the statement (JSON), or the page with
 * the statement and the contact (HTML; `html`), and the Link header exactly when `contact`.
 */
export async function expect451(
  response: Response,
  statement: string,
  options: { contact?: boolean; html?: boolean; head?: boolean; what?: string } = {},
) {
  const what = options.what ?? response.url;
  const text = await response.text();
  expect(response.status, `${what}: ${text.slice(0, 200)}`).toBe(451);
  expect(response.headers.get('link'), what).toBe(options.contact ? BLOCKED_BY : null);
  if (options.head) {
    expect(text, what).toBe('');
    return;
  }
  if (options.html) {
    expect(response.headers.get('content-type'), what).toMatch(/^text\/html/);
    expect(text, what).toContain(escapeHtml(statement));
    if (options.contact) expect(text, what).toContain(`href="${CONTACT}"`);
    expect(text, what).toContain('/report?url=');
    return;
  }
  expect(JSON.parse(text), what).toMatchObject({ code: 'UNAVAILABLE_FOR_LEGAL_REASONS', statement });
}

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** The SHA-256 (hex) of a response's body: what a restored download must still be. */
export const bodySha256 = async (response: Response) => sha256Hex(await response.arrayBuffer());

// Helpers for the access log tests: visits as a client makes them (the answer read to its end,
// then the request's waitUntil work, where recording runs, awaited as the runtime finishes it),
// and the owner's reading of the logs.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import type { AccessEvent, AccessLogPage } from '../../src/access-log/schemas';
import worker from '../../src/index';
import { call, ORIGIN, someAddress, type TestEnv } from '../helpers/worker';

export type { AccessEvent, AccessLogPage };

export type VisitInit = RequestInit & { cf?: Record<string, unknown> };

/**
 * One visit through the Worker's fetch: the body is read to its end before the request's
 * waitUntil work is awaited (a download's event is recorded when its last byte is taken).
 */
export async function visit(path: string, init: VisitInit = {}, overrides: Partial<Record<string, unknown>> = {}) {
  const request = new Request(path.startsWith('http') ? path : `${ORIGIN}${path}`, init as RequestInit);
  if (!request.headers.has('cf-connecting-ip')) request.headers.set('cf-connecting-ip', someAddress());
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ...overrides } as TestEnv, ctx);
  const body = new Uint8Array(await response.arrayBuffer());
  await waitOnExecutionContext(ctx);
  return { response, body };
}

/** One page of an access log read by its owner (`path`: `/links/<id>`, `/files/<id>`, `/requests/<id>`). */
export async function accessLog(auth: Record<string, string>, path: string, query = ''): Promise<AccessLogPage> {
  const response = await call(`/api/v2${path}/access${query}`, { headers: auth });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { data: AccessLogPage }).data;
}

/** Every event of a log, newest first, through its pages. */
export async function wholeLog(auth: Record<string, string>, path: string, limit = 100): Promise<AccessEvent[]> {
  const events: AccessEvent[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page: AccessLogPage = await accessLog(auth, path, query);
    events.push(...page.events);
    cursor = page.nextCursor;
  } while (cursor);
  return events;
}

/** What an event says, without the fields that vary (time, visitor, place). */
export const gist = ({ kind, outcome, status, bytes, range }: AccessEvent) => ({ kind, outcome, status, bytes, range });

/** An address of the documentation range (RFC 5737), different for each call. */
export const addressHeader = (address = someAddress()) => ({ 'CF-Connecting-IP': address });

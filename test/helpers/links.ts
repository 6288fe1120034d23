import { env, runDurableObjectAlarm } from 'cloudflare:test';
import { expect } from 'vitest';
import { FLUSH_DELAY_MS } from '../../src/links/link-counter-object';
import type { LinkRecord } from '../../src/links/records';
import { upload } from './upload';
import { call, createKey, pollPause } from './worker';

export type { LinkRecord };

export const LINK_FIELDS = [
  // Since collections (issue 31): a link shares a file (collectionId null) or a collection (fileId null).
  'collectionId',
  'createdAt',
  'downloadCount',
  'droppedEvents',
  'expiresAt',
  'fileId',
  'hasPassword',
  'id',
  'label',
  'lastAccessAt',
  'lastDownloadedAt',
  'maxDownloads',
  // Fifth round: what a capped link's byte budget still allows (null uncapped).
  'remainingBytes',
  'status',
  'url',
  'visitors',
];

/** A fresh key (== account) with one uploaded file. */
export async function owner(file: { filename?: string; type?: string; content?: string } = {}, isPublic = 'true') {
  const key = await createKey('links');
  const { response, body } = await upload('v2', key.auth, file, { fields: { isPublic } });
  expect(response.status).toBe(201);
  return { ...key, fileId: body.data.id as string, shareUrl: body.data.shareUrl as string };
}

export const json = (body: unknown, auth: Record<string, string>, method = 'POST'): RequestInit => ({
  method,
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

export async function makeLink(auth: Record<string, string>, fileId: string, body: Record<string, unknown> = {}) {
  const response = await call(`/api/v2/files/${fileId}/links`, json(body, auth));
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: LinkRecord }).data;
}

export async function readLink(auth: Record<string, string>, linkId: string) {
  const response = await call(`/api/v2/links/${linkId}`, { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: LinkRecord }).data;
}

/** Moves a link's own expiry into the past. */
export async function expireLink(linkId: string) {
  await env.DB.prepare('UPDATE share_links SET expires_at = ?2 WHERE id = ?1')
    .bind(linkId, new Date(Date.now() - 1000).toISOString())
    .run();
}

/** The path of a link's URL: `/share/<token>`. */
export const pathOf = (link: { url: string }) => new URL(link.url).pathname;

export const basic = (password: string) => ({ Authorization: `Basic ${btoa(`:${password}`)}` });

/** Runs the link's counter alarm now: its count goes to D1. */
export async function flush(linkId: string) {
  await runDurableObjectAlarm(env.LINK_COUNTERS.getByName(linkId));
}

/** Reads at least `bytes` of an answer's body, then breaks off: the pieces read and their total. */
export async function readThenBreakOff(response: Response, bytes: number) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const received: Uint8Array[] = [];
  let got = 0;
  while (got < bytes) {
    const { done, value } = await reader.read();
    if (done) break;
    received.push(value);
    got += value.byteLength;
  }
  await reader.cancel();
  return { received, got };
}

/** The link's status once a broken-off answer's give-back (after the answer) had time to land. */
export async function statusAfterGiveBack(auth: Record<string, string>, linkId: string): Promise<string> {
  let status = 'exhausted';
  // Polled to a deadline, not a count of tries: on a loaded machine the give-back lands late.
  for (let attempt = 0, deadline = Date.now() + 30_000; status === 'exhausted' && Date.now() < deadline; attempt++) {
    await pollPause(attempt);
    status = (await readLink(auth, linkId)).status;
  }
  return status;
}

/**
 * What D1 holds of a link counter's downloads before the test runs its alarm: nothing, unless its
 * flush came due by itself (FLUSH_DELAY_MS after the first download, at `since`) on a loaded
 * machine, and then at most the `counted` downloads.
 */
export function expectUnflushed(stored: number | undefined, since: number, counted: number): void {
  if (Date.now() - since < FLUSH_DELAY_MS) expect(stored).toBe(0);
  else expect(stored).toBeLessThanOrEqual(counted);
}

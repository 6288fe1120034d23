// POST /api/v2/reports through the Worker: the same 202 whether or not the URL names anything,
// every URL form a visitor holds, malformed reports refused, the per-address throttle and the
// per-target daily bound, REPORT_QUARANTINE_THRESHOLD (distinct visitors, a hold lifted or kept by
// the operator's decision), Turnstile checked at a stub siteverify, and report.received signed to
// the operator's receiver. What a report names is found after the answer; `call` waits for that.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPORT_HOLD_STATEMENT } from '../../src/abuse/report-holds';
import { json, makeCollection } from '../collections/collection-helpers';
import { makeLink, pathOf } from '../helpers/links';
import { act, expect451 } from '../helpers/moderation';
import { makeRequest } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { uploadOk } from '../helpers/upload';
import { callsTo, interceptReceivers, payloadOf, receiver, verifyDelivery, waitFor } from '../helpers/webhooks';
import { awayFromWindowEdge, call, createKey, someAddress } from '../helpers/worker';

type Received = { success: true; data: { id: string; receivedAt: string }; _perf: number };
type Row = {
  id: string;
  target_type: string | null;
  target_id: string | null;
  target_account_id: string | null;
  reason: string;
  details: string | null;
  contact: string | null;
  visitor: string | null;
  link_with_key: string | null;
  status: string;
};

/** Reports `url` from `address` (a fresh one unless given), as a script does: JSON in, JSON out. */
function report(
  url: string,
  fields: Record<string, unknown> = {},
  options: { address?: string; env?: Record<string, unknown> } = {},
) {
  return call(
    '/api/v2/reports',
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': options.address ?? someAddress() },
      body: JSON.stringify({ url, reason: 'phishing', ...fields }),
    },
    options.env,
  );
}

async function received(response: Response): Promise<Received> {
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return JSON.parse(text) as Received;
}

const rowOf = (id: string) => env.DB.prepare('SELECT * FROM reports WHERE id = ?1').bind(id).first<Row>();

/** Reports `url` and reads back what was stored (null: not stored). */
async function stored(url: string, fields: Record<string, unknown> = {}, options = {}) {
  const { data } = await received(await report(url, fields, options));
  return { id: data.id, row: await rowOf(data.id) };
}

const targetOf = (row: Row | null) =>
  row && { type: row.target_type, id: row.target_id, account: row.target_account_id };

let owner: Awaited<ReturnType<typeof createKey>>;
let file: { id: string; shareUrl: string };

beforeAll(async () => {
  interceptReceivers();
  owner = await createKey('reported');
  file = await uploadOk('v2', owner.auth, { filename: 'reported.txt', content: 'something reported' });
});

describe('POST /api/v2/reports', () => {
  it('answers a live token, a dead one and garbage alike: 202, the same headers and fields, a fresh id each', async () => {
    const gone = await uploadOk('v2', owner.auth, { filename: 'gone.txt', content: 'deleted before the report' });
    expect((await call(`/api/v2/files/${gone.id}`, { method: 'DELETE', headers: owner.auth })).status).toBe(200);
    const urls = [file.shareUrl, gone.shareUrl, 'https://example.com/not/ours', 'not a link at all'];
    const answers = await Promise.all(urls.map((url) => report(url)));
    const shapes = await Promise.all(
      answers.map(async (response) => {
        const body = await received(response.clone());
        expect(body.data.id).toMatch(/^rpt_[A-Za-z0-9_-]{22}$/);
        expect(new Date(body.data.receivedAt).toISOString()).toBe(body.data.receivedAt);
        const headers = [...response.headers.keys()].filter((name) => name !== 'x-request-id').sort();
        return { headers, keys: Object.keys(body).sort(), data: Object.keys(body.data).sort() };
      }),
    );
    for (const shape of shapes.slice(1)) expect(shape).toEqual(shapes[0]);
    const ids = await Promise.all(answers.map(async (response) => ((await response.json()) as Received).data.id));
    expect(new Set(ids).size).toBe(urls.length);

    // Only after the answer: the live one names its file and its reporter; the others nothing, and no one.
    const rows = await Promise.all(ids.map(rowOf));
    expect(targetOf(rows[0] ?? null)).toEqual({ type: 'file', id: file.id, account: owner.id });
    expect(rows[0]?.visitor).toMatch(/^[A-Za-z0-9_-]{16}$/);
    for (const row of rows.slice(1)) expect(row).toMatchObject({ target_type: null, target_id: null, visitor: null });
  });

  it('finds what every URL form names: a file, a link, a collection or its member, a file request', async () => {
    const other = await uploadOk('v2', owner.auth, { filename: 'member.txt', content: 'a member' });
    const link = await makeLink(owner.auth, file.id);
    const collection = await makeCollection(owner.auth, { name: 'Reported set', fileIds: [other.id] });
    const made = await call(`/api/v2/collections/${collection.id}/links`, json({}, owner.auth));
    const collectionUrl = ((await made.json()) as { data: { url: string } }).data.url;
    const request = await makeRequest(owner.auth);
    const token = (url: string) => url.split('/').at(-1) ?? '';
    const forms: [string, { type: string; id: string }][] = [
      [file.shareUrl, { type: 'file', id: file.id }],
      [`${file.shareUrl}/download`, { type: 'file', id: file.id }],
      [`${new URL(file.shareUrl).pathname}/view`, { type: 'file', id: file.id }],
      [token(file.shareUrl), { type: 'file', id: file.id }],
      [link.url, { type: 'link', id: link.id }],
      [`${link.url}/download#k=AGE-SECRET-KEY-1NOTAREALKEY`, { type: 'link', id: link.id }],
      [collectionUrl, { type: 'collection', id: collection.id }],
      [`${collectionUrl}/archive.zip?v=abc`, { type: 'collection', id: collection.id }],
      [`${collectionUrl}/files/${other.id}`, { type: 'file', id: other.id }],
      [`${collectionUrl}/files/${file.id}`, { type: 'collection', id: collection.id }],
      [token(collectionUrl), { type: 'collection', id: collection.id }],
      [request.url, { type: 'request', id: request.id }],
      [request.uploadUrl, { type: 'request', id: request.id }],
      [token(request.url), { type: 'request', id: request.id }],
      [`${request.url.replace('/r/', '/share/')}`, { type: 'none', id: '' }],
    ];
    for (const [url, expected] of forms) {
      const { row } = await stored(url);
      const found = row?.target_type ? { type: row.target_type, id: row.target_id } : { type: 'none', id: '' };
      expect(found, url).toEqual(expected);
      if (row?.target_type) expect(row.target_account_id, url).toBe(owner.id);
    }
  });

  it('stores what the reporter wrote, the link with its key included, and takes a form as JSON answers it', async () => {
    const { row } = await stored(file.shareUrl, {
      reason: 'malware',
      details: '  It downloads an .exe  ',
      contact: 'me@example.org',
      linkWithKey: `${file.shareUrl}#k=AGE-SECRET-KEY-1EXAMPLE`,
    });
    expect(row).toMatchObject({
      reason: 'malware',
      details: 'It downloads an .exe',
      contact: 'me@example.org',
      link_with_key: `${file.shareUrl}#k=AGE-SECRET-KEY-1EXAMPLE`,
      status: 'open',
    });
    const form = new URLSearchParams({ url: file.shareUrl, reason: 'spam', details: '', contact: '' });
    const response = await call('/api/v2/reports', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const { data } = await received(response);
    expect(await rowOf(data.id)).toMatchObject({ reason: 'spam', details: null, contact: null, link_with_key: null });
  });

  it('refuses a malformed report with 400 VALIDATION_ERROR naming the field, and stores nothing', async () => {
    const before = await env.DB.prepare('SELECT COUNT(*) AS n FROM reports').first<{ n: number }>();
    const refuse = async (response: Response, field: string) => {
      const body = await expectError(response, 400, 'VALIDATION_ERROR', 'v2');
      expect(body.details?.map((detail) => (detail as { field: string }).field)).toContain(field);
    };
    await refuse(await report(file.shareUrl, { reason: 'boring' }), 'reason');
    await refuse(await report('', {}), 'url');
    await refuse(await report(file.shareUrl, { details: 'x'.repeat(2001) }), 'details');
    await refuse(await report(file.shareUrl, { contact: 'x'.repeat(201) }), 'contact');
    await refuse(await report(file.shareUrl, { linkWithKey: 'x'.repeat(2001) }), 'linkWithKey');
    const send = (body: BodyInit, type: string) =>
      call('/api/v2/reports', { method: 'POST', headers: { 'Content-Type': type }, body });
    await refuse(await send('{"url": ', 'application/json'), 'body');
    await refuse(await send('url=x&reason=spam', 'text/plain'), 'body');
    // Over 8 KiB, declared or not.
    const big = JSON.stringify({ url: file.shareUrl, reason: 'spam', details: 'x'.repeat(9000) });
    await refuse(await send(big, 'application/json'), 'body');
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    await refuse(
      await call('/api/v2/reports', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: chunked,
        // @ts-expect-error: workerd's RequestInit takes duplex for a streamed body
        duplex: 'half',
      }),
      'body',
    );
    expect(await env.DB.prepare('SELECT COUNT(*) AS n FROM reports').first<{ n: number }>()).toEqual(before);
  });

  it('throttles an address past 10 reports an hour: 429 with Retry-After, whatever it reports', async () => {
    await awayFromWindowEdge(3600);
    const address = someAddress();
    for (let i = 0; i < 10; i++) await received(await report(`garbage ${i}`, {}, { address }));
    const refused = await report(file.shareUrl, {}, { address });
    await expectError(refused, 429, 'RATE_LIMITED', 'v2');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not held back.
    await received(await report(file.shareUrl));
  });

  it('counts a target’s reports past 50 a day without storing them; without a threshold nothing changes serving', async () => {
    const flooded = await uploadOk('v2', owner.auth, { filename: 'flooded.txt', content: 'reported a lot' });
    const answers = [];
    for (let i = 0; i < 51; i++) answers.push(await received(await report(flooded.shareUrl)));
    const rows = await env.DB.prepare('SELECT id FROM reports WHERE target_id = ?1').bind(flooded.id).all();
    expect(rows.results).toHaveLength(50);
    expect(await rowOf(answers[50]?.data.id ?? '')).toBeNull();
    const tally = await env.DB.prepare('SELECT received FROM report_tallies WHERE target_id = ?1')
      .bind(flooded.id)
      .first<{ received: number }>();
    expect(tally?.received).toBe(51);
    expect((await call(`${new URL(flooded.shareUrl).pathname}/download`)).status).toBe(200);
  });
});

describe('REPORT_QUARANTINE_THRESHOLD', () => {
  const THRESHOLD = { REPORT_QUARANTINE_THRESHOLD: '3' };

  it('holds a file once N distinct visitors reported it within 24 hours; the same visitor twice counts once', async () => {
    const held = await uploadOk('v2', owner.auth, { filename: 'held.txt', content: 'held by reports' });
    const path = `${new URL(held.shareUrl).pathname}/download`;
    const [a, b, c] = [someAddress(), someAddress(), someAddress()];
    for (const address of [a, a, b, b]) await received(await report(held.shareUrl, {}, { address, env: THRESHOLD }));
    expect((await call(path)).status).toBe(200);
    const third = await received(await report(held.shareUrl, {}, { address: c, env: THRESHOLD }));
    await expect451(await call(path), REPORT_HOLD_STATEMENT);

    // The operator dismisses the reports: the hold is lifted, every report of the file resolved.
    const resolved = await act<{ resolved: string[] }>(`/reports/${third.data.id}/resolve`, {
      action: 'dismiss',
      statement: 'Checked: a harmless text file.',
    });
    expect(resolved.resolved).toHaveLength(5);
    expect((await call(path)).status).toBe(200);
    // Counting starts again from the reports still open.
    await received(await report(held.shareUrl, {}, { address: a, env: THRESHOLD }));
    expect((await call(path)).status).toBe(200);
  });

  it('holds a made link (only that link) and a collection’s links; the operator’s quarantine keeps the hold under their statement', async () => {
    const shared = await uploadOk('v2', owner.auth, { filename: 'linked.txt', content: 'shared by a link' });
    const link = await makeLink(owner.auth, shared.id);
    const two = { REPORT_QUARANTINE_THRESHOLD: '2' };
    await received(await report(link.url, {}, { env: two }));
    const second = await received(await report(link.url, {}, { env: two }));
    await expect451(await call(`${pathOf(link)}/download`), REPORT_HOLD_STATEMENT);
    expect((await call(`${new URL(shared.shareUrl).pathname}/download`)).status).toBe(200);
    await act(`/reports/${second.data.id}/resolve`, { action: 'quarantine', statement: 'Disabled: phishing.' });
    await expect451(await call(`${pathOf(link)}/download`), 'Disabled: phishing.');

    const collection = await makeCollection(owner.auth, { name: 'Held set', fileIds: [shared.id] });
    const made = await call(`/api/v2/collections/${collection.id}/links`, json({}, owner.auth));
    const url = ((await made.json()) as { data: { url: string } }).data.url;
    await received(await report(url, {}, { env: two }));
    await received(await report(`${url}/archive.zip`, {}, { env: two }));
    await expect451(await call(`${new URL(url).pathname}/archive.zip`), REPORT_HOLD_STATEMENT);
  });

  it('never holds a file request, nor a target of reports that named nothing', async () => {
    const request = await makeRequest(owner.auth);
    const two = { REPORT_QUARANTINE_THRESHOLD: '2' };
    for (let i = 0; i < 3; i++) await received(await report(request.url, {}, { env: two }));
    expect((await call(new URL(request.url).pathname)).status).toBe(200);
  });
});

describe('the operator’s webhook', () => {
  it('gets report.received for each stored report, signed as Standard Webhooks, without the link’s key', async () => {
    const { id } = await stored(file.shareUrl, {
      reason: 'copyright',
      details: 'My photo',
      linkWithKey: `${file.shareUrl}#k=AGE-SECRET-KEY-1SECRET`,
    });
    const delivery = await waitFor(
      () =>
        callsTo('operator.hooks.test').find((call) => (payloadOf(call).data as { reportId?: string }).reportId === id),
      'report.received',
    );
    const verified = verifyDelivery(env.OPERATOR_WEBHOOK_SECRET ?? '', delivery);
    expect(verified.type).toBe('report.received');
    expect(verified.data).toMatchObject({
      reportId: id,
      target: { type: 'file', id: file.id, accountId: owner.id },
      reason: 'copyright',
      details: 'My photo',
      reporters: expect.any(Number),
      held: false,
    });
    expect(delivery.body).not.toContain('AGE-SECRET-KEY');
  });
});

describe('Turnstile', () => {
  const PASSES = '1x0000000000000000000000000000000AA';
  const FAILS = '2x0000000000000000000000000000000AA';
  /** A siteverify that answers as Cloudflare's documented test secrets do (it reads the `secret` field sent). */
  const siteverify = receiver(async (request) => {
    const form = await request.formData();
    const passes = form.get('secret') === PASSES && typeof form.get('response') === 'string';
    return Response.json(passes ? { success: true } : { success: false, 'error-codes': ['invalid-input-secret'] });
  });
  const turnstile = (secret: string) => ({
    TURNSTILE_SITE_KEY: '1x00000000000000000000AA',
    TURNSTILE_SECRET_KEY: secret,
    TURNSTILE_VERIFY_URL: siteverify.url,
  });

  it('takes a report whose token passes siteverify, refuses one that fails or has none with 403 CAPTCHA_FAILED', async () => {
    const before = siteverify.calls().length;
    await received(await report(file.shareUrl, { turnstileToken: 'XXXX.DUMMY.TOKEN' }, { env: turnstile(PASSES) }));
    const sent = siteverify.calls().slice(before);
    expect(sent).toHaveLength(1);
    const form = new URLSearchParams(sent[0]?.body);
    expect(Object.fromEntries(form)).toEqual({ secret: PASSES, response: 'XXXX.DUMMY.TOKEN' });

    const failed = await report(file.shareUrl, { turnstileToken: 'XXXX.DUMMY.TOKEN' }, { env: turnstile(FAILS) });
    await expectError(failed, 403, 'CAPTCHA_FAILED', 'v2');
    const missing = await report(file.shareUrl, {}, { env: turnstile(PASSES) });
    await expectError(missing, 403, 'CAPTCHA_FAILED', 'v2');
    // The form's widget names its field turnstileToken; Turnstile's own name is taken too.
    const form2 = new URLSearchParams({ url: file.shareUrl, reason: 'spam', 'cf-turnstile-response': 'XXXX' });
    const posted = await call(
      '/api/v2/reports',
      { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form2 },
      turnstile(PASSES),
    );
    await received(posted);
    expect(siteverify.calls().length).toBe(before + 3);
  });

  it('answers 503 when siteverify cannot be reached, and takes nothing', async () => {
    const down = receiver(() => new Response('upstream down', { status: 502 }));
    const response = await report(
      file.shareUrl,
      { turnstileToken: 'XXXX' },
      {
        env: { ...turnstile(PASSES), TURNSTILE_VERIFY_URL: down.url },
      },
    );
    await expectError(response, 503, 'SERVICE_UNAVAILABLE', 'v2');
  });

  it('is off unless both keys are set', async () => {
    const half = { TURNSTILE_SITE_KEY: '1x00000000000000000000AA', TURNSTILE_VERIFY_URL: siteverify.url };
    const before = siteverify.calls().length;
    await received(await report(file.shareUrl, {}, { env: half }));
    expect(siteverify.calls().length).toBe(before);
  });
});

describe('CORS', () => {
  it('lets a browser on another origin report: the preflight needs no key', async () => {
    const preflight = await call('/api/v2/reports', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://elsewhere.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const response = await call('/api/v2/reports', {
      method: 'POST',
      headers: { Origin: 'https://elsewhere.example', 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: file.shareUrl, reason: 'spam' }),
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    await received(response);
  });
});

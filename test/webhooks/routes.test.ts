// /api/v2/webhooks: create (secret once), list, get, change, delete; URL and event rules; other
// accounts' ids answered as unknown ones.
import { describe, expect, it } from 'vitest';
import type { Success } from '../helpers/records';
import { expectError, readJson } from '../helpers/responses';
import { createWebhook, type WebhookCreated } from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';

type Webhook = Omit<WebhookCreated, 'secret'>;
const json = { 'content-type': 'application/json' };
const post = (auth: Record<string, string>, body: unknown) =>
  call('/api/v2/webhooks', { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify(body) });

describe('POST /api/v2/webhooks', () => {
  it('creates a webhook and shows its whsec_ secret (≥ 24 random bytes) once, never again', async () => {
    const key = await createKey('webhooks create');
    const created = await createWebhook(key.auth, 'https://example.com/hooks', ['file.uploaded', 'file.deleted']);
    expect(created).toMatchObject({ url: 'https://example.com/hooks', events: ['file.uploaded', 'file.deleted'] });
    expect(created.id).toMatch(/^wh_[A-Za-z0-9_-]{22}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(atob(created.secret.slice('whsec_'.length)).length).toBeGreaterThanOrEqual(24);
    const again = await createWebhook(key.auth, 'https://example.com/hooks', ['*']);
    expect(again.secret).not.toBe(created.secret);

    const list = await call('/api/v2/webhooks', { headers: key.auth });
    expect(list.status).toBe(200);
    const text = await list.clone().text();
    expect(text).not.toContain(created.secret.slice(6));
    const { data } = await readJson<Success<{ webhooks: Webhook[] }>>('v2', list);
    expect(data.webhooks.map((w) => w.id)).toEqual([again.id, created.id]);
    expect(Object.keys(data.webhooks[0] ?? {}).sort()).toEqual(['createdAt', 'events', 'id', 'updatedAt', 'url']);

    const one = await call(`/api/v2/webhooks/${created.id}`, { headers: key.auth });
    const record = (await readJson<Success<Webhook>>('v2', one)).data;
    expect(record).not.toHaveProperty('secret');
    expect(record.events).toEqual(['file.uploaded', 'file.deleted']);
  });

  it('takes http only for loopback addresses, and refuses other schemes and hosts with 400', async () => {
    const key = await createKey('webhooks urls');
    for (const url of ['http://127.0.0.1:8080/hook', 'http://127.1.2.3/x', 'http://[::1]:9000/h']) {
      expect((await post(key.auth, { url, events: ['*'] })).status, url).toBe(201);
    }
    for (const url of [
      'http://example.com/hook',
      'http://10.0.0.1/hook',
      'http://128.0.0.1/hook',
      'http://localhost.example.com/',
      'http://localhost:3000/',
      'ftp://example.com/',
      'https://user:pass@example.com/',
      'not a url',
    ]) {
      const body = await expectError(await post(key.auth, { url, events: ['*'] }), 400, 'VALIDATION_ERROR', 'v2');
      expect(
        body.details?.map((d) => d.field),
        url,
      ).toEqual(['url']);
    }
  });

  it('refuses unknown event types, an empty list, "*" with others, unknown fields and a missing url', async () => {
    const key = await createKey('webhooks events');
    for (const body of [
      { url: 'https://example.com/', events: ['file.created'] },
      { url: 'https://example.com/', events: [] },
      { url: 'https://example.com/', events: ['*', 'file.uploaded'] },
      { url: 'https://example.com/', events: ['*'], secret: 'mine' },
      { events: ['*'] },
      { url: 'https://example.com/' },
    ]) {
      await expectError(await post(key.auth, body), 400, 'VALIDATION_ERROR', 'v2');
    }
    const types = [
      'file.uploaded',
      'file.deleted',
      'file.expired',
      'file.downloaded',
      'link.exhausted',
      'request.received',
      'request.full',
    ];
    expect((await createWebhook(key.auth, 'https://example.com/', types)).events).toEqual(types);
  });
});

describe('/api/v2/webhooks/{id}', () => {
  it('changes url and events (the secret stays), and deletes', async () => {
    const key = await createKey('webhooks change');
    const created = await createWebhook(key.auth, 'https://example.com/a', ['file.uploaded']);
    const patch = (body: unknown) =>
      call(`/api/v2/webhooks/${created.id}`, {
        method: 'PATCH',
        headers: { ...key.auth, ...json },
        body: JSON.stringify(body),
      });
    const changed = await patch({ url: 'https://example.com/b', events: ['*'] });
    expect(changed.status).toBe(200);
    expect((await readJson<Success<Webhook>>('v2', changed)).data).toMatchObject({
      url: 'https://example.com/b',
      events: ['*'],
    });
    await expectError(await patch({}), 400, 'VALIDATION_ERROR', 'v2');
    await expectError(await patch({ url: 'http://example.com/' }), 400, 'VALIDATION_ERROR', 'v2');
    await expectError(await patch({ secret: 'x' }), 400, 'VALIDATION_ERROR', 'v2');

    const removed = await call(`/api/v2/webhooks/${created.id}`, { method: 'DELETE', headers: key.auth });
    expect(removed.status).toBe(200);
    await expectError(
      await call(`/api/v2/webhooks/${created.id}`, { headers: key.auth }),
      404,
      'WEBHOOK_NOT_FOUND',
      'v2',
    );
    await expectError(
      await call(`/api/v2/webhooks/${created.id}`, { method: 'DELETE', headers: key.auth }),
      404,
      'WEBHOOK_NOT_FOUND',
      'v2',
    );
  });

  it('answers another account’s webhook exactly like an unknown one: 404 on every route', async () => {
    const owner = await createKey('webhooks owner');
    const stranger = await createKey('webhooks stranger');
    const created = await createWebhook(owner.auth, 'https://example.com/mine', ['*']);
    const unknown = `wh_${'A'.repeat(22)}`;
    for (const id of [created.id, unknown, 'malformed']) {
      const base = `/api/v2/webhooks/${id}`;
      const requests: [string, RequestInit][] = [
        [base, {}],
        [base, { method: 'PATCH', headers: json, body: JSON.stringify({ events: ['*'] }) }],
        [base, { method: 'DELETE' }],
        [`${base}/deliveries`, {}],
      ];
      for (const [path, init] of requests) {
        const headers = { ...stranger.auth, ...(init.headers as Record<string, string> | undefined) };
        await expectError(await call(path, { ...init, headers }), 404, 'WEBHOOK_NOT_FOUND', 'v2');
      }
    }
    const list = await call('/api/v2/webhooks', { headers: stranger.auth });
    expect((await readJson<Success<{ webhooks: Webhook[] }>>('v2', list)).data.webhooks).toEqual([]);
    // Still the owner's, unchanged.
    const mine = await call(`/api/v2/webhooks/${created.id}`, { headers: owner.auth });
    expect(mine.status).toBe(200);
  });

  it('answers 405 with Allow for another method, 401 without a key, and 400 for a bad deliveries limit', async () => {
    const key = await createKey('webhooks methods');
    const put = await call('/api/v2/webhooks', { method: 'PUT', headers: key.auth });
    await expectError(put, 405, 'METHOD_NOT_ALLOWED', 'v2');
    expect(put.headers.get('allow')).toBe('GET, POST');
    await expectError(await call('/api/v2/webhooks'), 401, 'UNAUTHORIZED', 'v2');
    const created = await createWebhook(key.auth, 'https://example.com/', ['*']);
    for (const limit of ['0', '101', 'x']) {
      await expectError(
        await call(`/api/v2/webhooks/${created.id}/deliveries?limit=${limit}`, { headers: key.auth }),
        400,
        'VALIDATION_ERROR',
        'v2',
      );
    }
  });
});

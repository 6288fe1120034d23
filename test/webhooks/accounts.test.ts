// Webhooks belong to the account, not to the key that made them: they survive a key rotation,
// and only keys with webhooks:write may manage them.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/responses';
import { uploadOk } from '../helpers/upload';
import {
  createWebhook,
  deliveriesOf,
  interceptReceivers,
  payloadOf,
  receiver,
  settle,
  type WebhookCreated,
  waitFor,
} from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';

beforeAll(() => interceptReceivers());

type Auth = Record<string, string>;

async function makeKey(auth: Auth, body: Record<string, unknown>) {
  const response = await call('/api/v2/keys', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { data: { id: string; key: string } };
  expect(response.status, JSON.stringify(answer)).toBe(201);
  return { id: answer.data.id, auth: { Authorization: `Bearer ${answer.data.key}` } };
}

const revoke = (auth: Auth, id: string) => call(`/api/v2/keys/${id}`, { method: 'DELETE', headers: auth });

describe('key rotation', () => {
  it('leaves the account’s webhooks in place, receiving its events: a new key, then the old one revoked', async () => {
    const old = await createKey('webhook owner');
    const hook = receiver();
    const webhook = await createWebhook(old.auth, hook.url, ['file.uploaded', 'file.downloaded']);
    const before = await uploadOk('v2', old.auth, { filename: 'before.txt', content: 'before' });
    await waitFor(() => hook.calls().length >= 1, 'the first delivery');

    const fresh = await makeKey(old.auth, { name: 'rotated' });
    expect((await revoke(fresh.auth, old.id)).status).toBe(200);
    expect((await call('/api/v2/webhooks', { headers: old.auth })).status).toBe(401);

    // The new key sees and manages the same webhook and its deliveries.
    const listed = await call('/api/v2/webhooks', { headers: fresh.auth });
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as { data: { webhooks: WebhookCreated[] } };
    expect(data.webhooks.map((w) => w.id)).toEqual([webhook.id]);
    expect((await deliveriesOf(fresh.auth, webhook.id)).map((d) => d.type)).toEqual(['file.uploaded']);

    // The account's events keep arriving: an upload by the new key, a public download of a file
    // the revoked key uploaded.
    const after = await uploadOk('v2', fresh.auth, { filename: 'after.txt', content: 'after' });
    const shared = await call(`${new URL(before.shareUrl).pathname}/download`);
    expect(shared.status).toBe(200);
    await shared.arrayBuffer();
    await waitFor(() => hook.calls().length >= 3, 'the deliveries after the rotation');
    await settle();
    const bodies = hook.calls().map(payloadOf);
    const seen = bodies.map((b) => [b.type, b.data.file?.id, b.data.via]);
    expect(seen[0]).toEqual(['file.uploaded', before.id, undefined]);
    // The two after the rotation in either order: the queue's consumer handles a batch's messages
    // at once, so two events queued close together may be delivered in either order.
    expect(seen).toHaveLength(3);
    expect(seen.slice(1)).toEqual(
      expect.arrayContaining([
        ['file.uploaded', after.id, undefined],
        ['file.downloaded', before.id, 'share'],
      ]),
    );
    // Each delivery is marked delivered once its receiver has answered (a D1 write just after).
    const deliveries = await waitFor(async () => {
      const listed = await deliveriesOf(fresh.auth, webhook.id);
      return listed.every((d) => d.status === 'delivered') ? listed : undefined;
    }, 'every delivery marked delivered');
    expect(deliveries).toHaveLength(3);
  });
});

describe('the webhooks:write scope', () => {
  it('is needed by every webhook route: a key without it is refused (403) before any effect', async () => {
    const owner = await createKey('webhook scopes');
    const hook = receiver();
    const webhook = await createWebhook(owner.auth, hook.url);
    const reader = await makeKey(owner.auth, { name: 'reader', scopes: ['files:read', 'files:write'] });
    const json = { ...reader.auth, 'Content-Type': 'application/json' };
    const attempts: [string, string, string?][] = [
      ['POST', '/api/v2/webhooks', JSON.stringify({ url: receiver().url, events: ['*'] })],
      ['GET', '/api/v2/webhooks'],
      ['GET', `/api/v2/webhooks/${webhook.id}`],
      ['PATCH', `/api/v2/webhooks/${webhook.id}`, JSON.stringify({ events: ['file.deleted'] })],
      ['DELETE', `/api/v2/webhooks/${webhook.id}`],
      ['GET', `/api/v2/webhooks/${webhook.id}/deliveries`],
      ['POST', `/api/v2/webhooks/${webhook.id}/deliveries/msg_${'A'.repeat(22)}/retry`],
    ];
    for (const [method, path, body] of attempts) {
      const response = await call(path, { method, headers: json, body });
      const answer: { details?: unknown } = await expectError(response, 403, 'FORBIDDEN');
      expect(answer.details, `${method} ${path}`).toEqual([{ scope: 'webhooks:write' }]);
    }
    // Nothing changed: the webhook is still there, with all its events, and the only one.
    const listed = await call('/api/v2/webhooks', { headers: owner.auth });
    const { data } = (await listed.json()) as { data: { webhooks: WebhookCreated[] } };
    expect(data.webhooks).toHaveLength(1);
    expect(data.webhooks[0]).toMatchObject({ id: webhook.id, events: ['*'] });
  });
});

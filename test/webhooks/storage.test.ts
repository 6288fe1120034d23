// Migration 0009 on a database that already holds files, and the bounded retention of deliveries.
import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Success } from '../helpers/records';
import { api, readJson } from '../helpers/responses';
import { runCron } from '../helpers/storage';
import { uploadOk } from '../helpers/upload';
import { createWebhook, settle } from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';

describe('migration 0009_webhooks', () => {
  it('applies to a database made by the schema before it, and every stored file stays listed and downloadable', async () => {
    const key = await createKey('before webhooks');
    const files = await Promise.all(
      ['a.txt', 'b.txt', 'c.txt'].map((filename) =>
        uploadOk('v1', key.auth, { filename, content: `bytes of ${filename}` }),
      ),
    );
    // The uploads' events are fanned out first (the consumer reads the webhook tables)…
    await settle();
    // …then back to the schema of 0008 and earlier: no webhook tables, 0009 not applied.
    await env.DB.batch([
      env.DB.prepare('DROP TABLE webhook_deliveries'),
      env.DB.prepare('DROP TABLE webhook_events'),
      env.DB.prepare('DROP TABLE webhooks'),
      env.DB.prepare("DELETE FROM d1_migrations WHERE name = '0009_webhooks.sql'"),
    ]);
    await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

    const listed = await call(api('v2', '/files?limit=100'), { headers: key.auth });
    const { data } = await readJson<Success<{ files: { id: string }[] }>>('v2', listed);
    expect(data.files.map((file) => file.id).sort()).toEqual(files.map((file) => file.id).sort());
    for (const file of files) {
      const download = await call(api('v1', `/files/${file.id}/download`), { headers: key.auth });
      expect(download.status).toBe(200);
      expect(await download.text()).toMatch(/^bytes of [abc]\.txt$/);
    }
    // And the new tables work.
    await createWebhook(key.auth, 'https://example.com/after', ['*']);
  });
});

describe('retention of deliveries', () => {
  it('removes deliveries older than 7 days with their events, and fails ones stuck pending for 3 days', async () => {
    const key = await createKey('retention');
    const webhook = await createWebhook(key.auth, 'https://example.com/kept', ['*']);
    const day = 24 * 60 * 60 * 1000;
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    const rows = [
      { id: 'old', created: at(8 * day), status: 'delivered' },
      { id: 'stuck', created: at(4 * day), status: 'pending' },
      { id: 'recent', created: at(1 * day), status: 'pending' },
    ];
    await env.DB.batch(
      rows.flatMap((row) => [
        env.DB.prepare(
          "INSERT INTO webhook_events (id, account_id, type, payload, created_at) VALUES (?1, ?2, 'file.uploaded', '{}', ?3)",
        ).bind(`evt_${row.id}`, key.id, row.created),
        env.DB.prepare(
          `INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, status, attempts, created_at, updated_at)
           VALUES (?1, ?2, ?3, 'file.uploaded', ?4, 1, ?5, ?5)`,
        ).bind(`msg_${row.id}`, webhook.id, `evt_${row.id}`, row.status, row.created),
      ]),
    );
    await runCron();
    const { results } = await env.DB.prepare(
      'SELECT id, status FROM webhook_deliveries WHERE webhook_id = ?1 ORDER BY id',
    )
      .bind(webhook.id)
      .all<{ id: string; status: string }>();
    expect(results).toEqual([
      { id: 'msg_recent', status: 'pending' },
      { id: 'msg_stuck', status: 'failed' },
    ]);
    const events = await env.DB.prepare(
      "SELECT id FROM webhook_events WHERE id LIKE 'evt_%' AND account_id = ?1 ORDER BY id",
    )
      .bind(key.id)
      .all<{ id: string }>();
    expect(events.results.map((row) => row.id)).toEqual(['evt_recent', 'evt_stuck']);
  });
});

// Webhook receiver URLs on create and on change: the address rule (no private, link-local, CGNAT,
// metadata or other non-public address, in any form the URL parser reads, nor a local name or a
// name embedding such an address; loopback over http only in development, ALLOW_LOOPBACK_TARGETS),
// https on its default port, no control characters or credentials, and stored as the parsed URL.
import { describe, expect, it } from 'vitest';
import type { Success } from '../helpers/records';
import { expectError, readJson } from '../helpers/responses';
import { createWebhook, type WebhookCreated } from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';

type Webhook = Omit<WebhookCreated, 'secret'>;
const json = { 'content-type': 'application/json' };
type Vars = Record<string, string>;
const post = (auth: Record<string, string>, url: string, vars: Vars = {}) =>
  call(
    '/api/v2/webhooks',
    { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify({ url, events: ['*'] }) },
    vars,
  );
const patch = (auth: Record<string, string>, id: string, url: string, vars: Vars = {}) =>
  call(
    `/api/v2/webhooks/${id}`,
    { method: 'PATCH', headers: { ...auth, ...json }, body: JSON.stringify({ url }) },
    vars,
  );
/** A deployment: no loopback targets (the tests' own configuration allows them, as `npm run dev`). */
const DEPLOYED = { ALLOW_LOOPBACK_TARGETS: 'false' };

/** 400 VALIDATION_ERROR whose details name the field `url`, and nothing else. */
async function refusesUrl(response: Response, url: string) {
  const body = await expectError(response, 400, 'VALIDATION_ERROR', 'v2');
  expect(
    body.details?.map((d) => d.field),
    JSON.stringify(url),
  ).toEqual(['url']);
  return body;
}

const NON_PUBLIC = [
  'https://10.0.0.1/hook',
  'https://10.0.0.1:22/',
  'https://172.16.5.4/',
  'https://192.168.0.1:8443/hook',
  'https://100.64.0.1/',
  'https://169.254.169.254/latest/meta-data/',
  'https://169.254.169.254:80/',
  'https://[fd00:ec2::254]/latest/meta-data/',
  'https://[fd00::1]/',
  'https://[fe80::1]/',
  'https://[::ffff:10.0.0.1]/',
  'https://[::ffff:169.254.169.254]/',
  'https://[::]/',
  'https://0.0.0.0/',
  'https://2852039166/', // 169.254.169.254 as one number
  'https://0x0a.0.0.1/',
  'https://10.1/',
  'https://012.0.0.1/',
  'https://224.0.0.1/',
  'https://255.255.255.255/',
  'http://10.0.0.1/', // not https either: the address is the reason
  // Names a local network resolves, and wildcard DNS names of non-public addresses.
  'https://localhost/',
  'http://localhost:3000/',
  'https://api.localhost/',
  'https://printer.local/',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://metadata/',
  'https://intranet./',
  'https://10.0.0.1.nip.io/',
  'https://app.10.0.0.1.nip.io/',
  'https://10-0-0-1.sslip.io/',
  'https://0a000001.nip.io/',
  'https://169-254-169-254.sslip.io/',
  'https://127.0.0.1.nip.io/',
  'https://app.localtest.me/',
];

const LOOPBACK = [
  'http://127.0.0.1:8787/hook',
  'http://2130706433:9000/', // 127.0.0.1 as one number
  'http://127.1/',
  'http://0x7f.1:8080/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]:9/',
  'https://127.0.0.1:8443/',
];

describe('the address rule on create and on change', () => {
  it('refuses private, link-local, CGNAT, metadata and v4-mapped hosts, in any form and on any port, on create', async () => {
    const key = await createKey('webhook targets create');
    for (const url of NON_PUBLIC) {
      const body = await refusesUrl(await post(key.auth, url), url);
      expect(body.details?.[0]?.message, url).toMatch(/non-public address/);
    }
    const list = await call('/api/v2/webhooks', { headers: key.auth });
    expect((await readJson<Success<{ webhooks: Webhook[] }>>('v2', list)).data.webhooks).toEqual([]);
  });

  it('refuses them on change, and the webhook keeps its URL', async () => {
    const key = await createKey('webhook targets change');
    const created = await createWebhook(key.auth, 'https://example.com/hook', ['*']);
    for (const url of NON_PUBLIC) await refusesUrl(await patch(key.auth, created.id, url), url);
    const after = await call(`/api/v2/webhooks/${created.id}`, { headers: key.auth });
    expect((await readJson<Success<Webhook>>('v2', after)).data.url).toBe('https://example.com/hook');
  });

  it('takes a loopback address, in its every form, over plain http and on any port, where loopback targets are allowed', async () => {
    const key = await createKey('webhook targets loopback');
    for (const url of [
      ...LOOPBACK,
      'https://8.8.8.8/hook',
      'https://[2606:4700:4700::1111]/',
      'https://a.b.example/',
    ]) {
      expect((await post(key.auth, url)).status, url).toBe(201);
    }
  });

  it('refuses a loopback address on create and on change where ALLOW_LOOPBACK_TARGETS is off (a deployment)', async () => {
    const key = await createKey('webhook targets deployed');
    const created = await createWebhook(key.auth, 'https://example.com/hook', ['*']);
    for (const url of LOOPBACK) {
      const body = await refusesUrl(await post(key.auth, url, DEPLOYED), url);
      expect(body.details?.[0]?.message, url).toMatch(/loopback address .*ALLOW_LOOPBACK_TARGETS=true/);
      await refusesUrl(await patch(key.auth, created.id, url, DEPLOYED), url);
    }
    expect((await post(key.auth, 'https://example.com/ok', DEPLOYED)).status).toBe(201);
    const list = await call('/api/v2/webhooks', { headers: key.auth });
    const urls = (await readJson<Success<{ webhooks: Webhook[] }>>('v2', list)).data.webhooks.map((w) => w.url);
    expect(urls.sort()).toEqual(['https://example.com/hook', 'https://example.com/ok']);
  });

  it('refuses a port other than https’s own (443) for any host but loopback, on create and on change', async () => {
    const key = await createKey('webhook targets ports');
    const created = await createWebhook(key.auth, 'https://example.com/hook', ['*']);
    for (const url of [
      'https://hooks.example.com:8443/',
      'https://example.com:80/',
      'https://example.com:22/',
      'https://8.8.8.8:6379/',
      'https://[2606:4700:4700::1111]:8080/',
    ]) {
      const body = await refusesUrl(await post(key.auth, url), url);
      expect(body.details?.[0]?.message, url).toMatch(/default port/);
      await refusesUrl(await patch(key.auth, created.id, url), url);
    }
    expect((await post(key.auth, 'https://example.com:443/hook')).status).toBe(201);
  });
});

describe('control characters and credentials', () => {
  it('refuses control characters, DEL, C1, bidi controls and whitespace anywhere, though the URL parser would drop some', async () => {
    const key = await createKey('webhook targets controls');
    const created = await createWebhook(key.auth, 'https://example.com/hook', ['*']);
    for (const url of [
      'https://example.com/a\r\nX-Injected: 1',
      'https://exa\nmple.com/',
      'https://example.com/\thook',
      '\thttps://example.com/',
      'https://example.com/ ',
      ' https://example.com/',
      'https://example.com/a b',
      'https://example.com/\u0000',
      'https://example.com/\u001f',
      'https://example.com/\u007f',
      'https://example.com/\u0085',
      'https://example.com/\u00a0',
      'https://example.com/\u2028',
      'https://example.com/\u202egnp.exe',
      'https://example.com/\u2066x',
    ]) {
      const body = await refusesUrl(await post(key.auth, url), url);
      expect(body.details?.[0]?.message, JSON.stringify(url)).toMatch(/control characters/);
      await refusesUrl(await patch(key.auth, created.id, url), url);
    }
  });

  it('refuses a user name, a password or both, on create and on change', async () => {
    const key = await createKey('webhook targets credentials');
    const created = await createWebhook(key.auth, 'https://example.com/hook', ['*']);
    for (const url of [
      'https://user:pass@example.com/',
      'https://user@example.com/',
      'https://:pass@example.com/',
      'http://user:pass@localhost/',
    ]) {
      await refusesUrl(await post(key.auth, url), url);
      await refusesUrl(await patch(key.auth, created.id, url), url);
    }
  });
});

describe('what is stored', () => {
  it('stores and answers the parsed URL, on create and on change', async () => {
    const key = await createKey('webhook targets stored');
    const cases: [string, string][] = [
      ['HTTPS://Example.COM:443/a/../hooks?x=1#frag', 'https://example.com/hooks?x=1#frag'],
      ['https://example.com', 'https://example.com/'],
      ['https://bücher.example/é', 'https://xn--bcher-kva.example/%C3%A9'],
      ['https://@example.com/empty-credentials', 'https://example.com/empty-credentials'],
      ['http://0x7f.1:8080/h', 'http://127.0.0.1:8080/h'],
      ['http://[0:0::1]/', 'http://[::1]/'],
    ];
    for (const [sent, stored] of cases) {
      const created = await createWebhook(key.auth, sent, ['*']);
      expect(created.url, sent).toBe(stored);
      const read = await call(`/api/v2/webhooks/${created.id}`, { headers: key.auth });
      expect((await readJson<Success<Webhook>>('v2', read)).data.url, sent).toBe(stored);
    }
    const other = await createWebhook(key.auth, 'https://example.com/other', ['*']);
    for (const [sent, stored] of cases) {
      const changed = await patch(key.auth, other.id, sent);
      expect(changed.status, sent).toBe(200);
      expect((await readJson<Success<Webhook>>('v2', changed)).data.url, sent).toBe(stored);
    }
  });

  it('refuses a URL whose parsed form is longer than 2,048 characters', async () => {
    const key = await createKey('webhook targets length');
    // 700 characters sent, 4,220 once percent-encoded.
    const url = `https://example.com/${'é'.repeat(700)}`;
    await refusesUrl(await post(key.auth, url), url);
  });
});

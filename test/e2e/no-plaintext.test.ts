// No plaintext and no key on the server: encrypted files go in through every upload path (multipart,
// bulk, raw PUT, tus in several PATCHes, tus concatenation, a file request's form, raw PUT and tus),
// get keyed links (a file's and a collection's) that are visited and downloaded, with a webhook
// listening; then every place the server keeps or says anything is searched (every R2 object, every
// D1 table, every Durable Object's storage, the log lines, the access logs, the webhook payloads and
// the answers to the owner) for any 64-byte window of the plaintexts, the files' real names, the
// link keys, the owner's identity and the file keys: none is found.
import { env, listDurableObjectIds, runInDurableObject } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accessLog, visit } from '../access-log/access-helpers';
import { type AgeFile, ageFile, type Identity, linkHeader, newIdentity } from '../helpers/age-files';
import { json, makeLink, pathOf } from '../helpers/links';
import { makeRequest } from '../helpers/requests';
import { createUpload, metadata, patch, TUS, uploadAll } from '../helpers/tus';
import { filesForm, form } from '../helpers/upload';
import { createWebhook, interceptReceivers, receiver, settle } from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';

// biome-ignore lint/suspicious/noExplicitAny: records are read field by field
type Json = any;

afterEach(() => {
  vi.restoreAllMocks();
});

const latin1 = (bytes: Uint8Array) => {
  let text = '';
  for (let at = 0; at < bytes.length; at += 8192) text += String.fromCharCode(...bytes.subarray(at, at + 8192));
  return text;
};
const utf8 = (text: string) => new TextEncoder().encode(text);

/** Text plaintext (words from a seed), so that a leak through any text channel reads as it is. */
function plaintextOf(seed: number, size: number): Uint8Array {
  const words = ['quarterly', 'ledger', 'harbour', 'violet', 'seventeen', 'tundra', 'mosaic', 'quill', 'ember'];
  let x = seed;
  let text = '';
  while (text.length < size) {
    x = (x * 1103515245 + 12345) >>> 0;
    text += `${words[x % words.length]}${x % 1000} `;
  }
  return utf8(text.slice(0, size));
}

/**
 * What must not be found, as latin1 strings: every 32-byte block of each plaintext at a multiple
 * of 32 (any 64-byte window of it holds one whole such block, so finding none means no window),
 * each real name, each key, each file key (raw, hex and base64).
 */
function needlesOf(files: AgeFile[], keys: string[]): Map<string, string> {
  const needles = new Map<string, string>();
  for (const file of files) {
    for (let at = 0; at + 32 <= file.plaintext.length; at += 32) {
      needles.set(latin1(file.plaintext.subarray(at, at + 32)), `${file.name}'s plaintext at ${at}`);
    }
    // As text (D1, JSON, logs) and as its UTF-8 bytes (R2, bodies read as bytes).
    needles.set(file.name, `the name ${file.name}`);
    needles.set(latin1(utf8(file.name)), `the name ${file.name} (UTF-8)`);
    needles.set(latin1(file.fileKey), `${file.name}'s file key`);
    needles.set(
      [...file.fileKey].map((b) => b.toString(16).padStart(2, '0')).join(''),
      `${file.name}'s file key (hex)`,
    );
    needles.set(btoa(latin1(file.fileKey)).replace(/=+$/, ''), `${file.name}'s file key (base64)`);
  }
  for (const key of keys) needles.set(key, `the key ${key.slice(0, 20)}…`);
  return needles;
}

function expectNoneIn(haystack: string, where: string, needles: Map<string, string>) {
  const found = [...needles].filter(([needle]) => haystack.includes(needle)).map(([, what]) => what);
  expect(found, `found in ${where}`).toEqual([]);
}

/** Every value of a row as text (bytes as latin1). */
const rowText = (row: Record<string, unknown>) =>
  Object.values(row)
    .map((value) =>
      value instanceof ArrayBuffer
        ? latin1(new Uint8Array(value))
        : ArrayBuffer.isView(value)
          ? latin1(new Uint8Array(value.buffer, value.byteOffset, value.byteLength))
          : typeof value === 'string'
            ? value
            : JSON.stringify(value),
    )
    .join('\u0000');

async function everyR2Object(): Promise<[string, string][]> {
  const out: [string, string][] = [];
  let cursor: string | undefined;
  do {
    const page = await env.FILES.list({ cursor, include: ['customMetadata', 'httpMetadata'] });
    for (const object of page.objects) {
      const body = await env.FILES.get(object.key);
      const bytes = body ? new Uint8Array(await body.arrayBuffer()) : new Uint8Array();
      out.push([
        object.key,
        `${object.key}\u0000${JSON.stringify(object.customMetadata)}\u0000${JSON.stringify(object.httpMetadata)}\u0000${latin1(bytes)}`,
      ]);
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

async function everyD1Table(): Promise<[string, string][]> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'",
  ).all<{ name: string }>();
  const out: [string, string][] = [];
  for (const { name } of results) {
    const rows = await env.DB.prepare(`SELECT * FROM "${name}"`).all<Record<string, unknown>>();
    out.push([name, rows.results.map(rowText).join('\n')]);
  }
  return out;
}

/** Every Durable Object binding of wrangler.toml. */
const DURABLE_OBJECTS = [
  'KEY_LIMITER',
  'ACCOUNT_STORAGE',
  'TUS_UPLOADS',
  'AUTH_GUARD',
  'IDEMPOTENCY',
  'FILE_REQUESTS',
  'LINK_COUNTERS',
] as const;

/** Every object of every Durable Object namespace: its key-value storage and its SQL tables. */
async function everyDurableObject(): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const binding of DURABLE_OBJECTS) {
    const namespace = env[binding] as unknown as DurableObjectNamespace;
    for (const id of await listDurableObjectIds(namespace)) {
      const text = await runInDurableObject(namespace.get(id), async (_, state) => {
        const parts: string[] = [];
        for (const [name, stored] of await state.storage.list()) parts.push(name, rowText({ stored }));
        try {
          const tables = state.storage.sql
            .exec<{ name: string }>(
              "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
            )
            .toArray();
          for (const { name } of tables) {
            for (const row of state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray()) parts.push(rowText(row));
          }
        } catch {
          // A key-value object: no SQL.
        }
        return parts.join('\u0000');
      });
      out.push([`${binding} ${id.toString().slice(0, 12)}`, text]);
    }
  }
  return out;
}

describe('no plaintext and no key on the server', () => {
  it('every path in, links made and visited: none of the plaintexts, names or keys is stored, logged or sent', async () => {
    interceptReceivers();
    const lines: string[] = [];
    for (const method of ['log', 'error', 'warn', 'info', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        lines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
      });
    }
    const answers: string[] = [];
    const keep = async (response: Response) => {
      answers.push(JSON.stringify([...response.headers]), await response.clone().text());
      return response;
    };

    const key = await createKey('no plaintext', { rateLimitRequests: 100_000 });
    const hook = receiver();
    await createWebhook(key.auth, hook.url);
    const owner: Identity = await newIdentity();
    const identity = await call('/api/v2/e2e/identity', json({ recipient: owner.recipient }, key.auth, 'PUT'));
    expect(identity.status).toBeLessThan(300);
    let seed = 100;
    const next = async (size = 3000) => {
      seed += 1;
      return ageFile(owner, size, seed, `Board minutes ${seed} — confidential.pdf`, plaintextOf(seed, size));
    };
    const neutral = () => `${crypto.randomUUID().slice(0, 12)}.age`;
    const files: AgeFile[] = [];
    const ids: string[] = [];
    const uploaded = async (response: Response) => {
      const body: Json = await (await keep(response)).json();
      expect(response.status, JSON.stringify(body)).toBe(201);
      return body.data;
    };

    // Multipart, raw PUT, bulk.
    const multipart = await next();
    files.push(multipart);
    const body = form([{ filename: neutral(), content: multipart.bytes }], { encryption: 'age', meta: multipart.meta });
    ids.push((await uploaded(await call('/api/v2/upload', { method: 'POST', headers: key.auth, body }))).id);
    const raw = await next();
    files.push(raw);
    const put = { method: 'PUT', headers: { ...key.auth, 'Edgeshare-Meta': raw.meta }, body: raw.bytes };
    ids.push((await uploaded(await call(`/api/v2/upload/${neutral()}?encryption=age`, put))).id);
    const [bulkA, bulkB] = [await next(), await next()] as [AgeFile, AgeFile];
    files.push(bulkA, bulkB);
    const bulk = filesForm(
      [
        { filename: neutral(), content: bulkA.bytes },
        { filename: neutral(), content: bulkB.bytes },
      ],
      { encryption: 'age' },
    );
    bulk.append('meta', bulkA.meta);
    bulk.append('meta', bulkB.meta);
    const bulkResult = await uploaded(
      await call('/api/v2/upload/bulk', { method: 'POST', headers: key.auth, body: bulk }),
    );
    ids.push(...bulkResult.results.map((entry: Json) => entry.data.id));

    // tus in several PATCHes (past one chunk), and tus concatenation.
    const tus = await next(70_000);
    files.push(tus);
    const created = await createUpload(key.auth, tus.bytes.length, {
      filename: neutral(),
      encryption: 'age',
      meta: tus.meta,
    });
    await uploadAll(key.auth, created.path, tus.bytes, 20_000);
    ids.push(created.id);
    const concat = await next(5000);
    files.push(concat);
    const partials: string[] = [];
    for (const part of [concat.bytes.slice(0, 100), concat.bytes.slice(100, 3000), concat.bytes.slice(3000)]) {
      const partial = await createUpload(key.auth, part.length, {}, { headers: { 'Upload-Concat': 'partial' } });
      expect((await patch(key.auth, partial.path, 0, part)).status).toBe(204);
      partials.push(partial.path);
    }
    const final = await call('/api/v2/uploads', {
      method: 'POST',
      headers: {
        ...TUS,
        ...key.auth,
        'Upload-Concat': `final;${partials.join(' ')}`,
        'Upload-Metadata': metadata({ filename: neutral(), encryption: 'age', meta: concat.meta }),
      },
    });
    expect((await keep(final)).status).toBe(201);
    ids.push(final.headers.get('x-file-id') ?? '');

    // A file request that takes only age files: its form, its raw PUT, its tus.
    const request = await makeRequest(key.auth, { e2e: true, maxFiles: 10 });
    const stranger = await newIdentity();
    const strangerFile = async () => {
      seed += 1;
      const file = await ageFile(stranger, 3000, seed, `Whistleblower ${seed}.docx`, plaintextOf(seed, 3000));
      files.push(file);
      return file;
    };
    const viaForm = await strangerFile();
    const requestForm = form([{ filename: neutral(), content: viaForm.bytes }], {
      encryption: 'age',
      meta: viaForm.meta,
    });
    expect((await keep(await call(request.uploadUrl, { method: 'POST', body: requestForm }))).status).toBe(201);
    const viaPut = await strangerFile();
    const requestPut = { method: 'PUT', headers: { 'Edgeshare-Meta': viaPut.meta }, body: viaPut.bytes };
    expect((await keep(await call(`${request.uploadUrl}/${neutral()}?encryption=age`, requestPut))).status).toBe(201);
    const viaTus = await strangerFile();
    const tusCreated = await call(request.tusUrl, {
      method: 'POST',
      headers: {
        ...TUS,
        'Upload-Length': String(viaTus.bytes.length),
        'Upload-Metadata': metadata({ filename: neutral(), encryption: 'age', meta: viaTus.meta }),
      },
    });
    expect(tusCreated.status).toBe(201);
    const location = new URL(tusCreated.headers.get('location') ?? '').pathname;
    const octets = { ...TUS, 'Content-Type': 'application/offset+octet-stream' };
    for (const [from, to] of [
      [0, 50],
      [50, viaTus.bytes.length],
    ] as const) {
      const patched = await call(location, {
        method: 'PATCH',
        headers: { ...octets, 'Upload-Offset': String(from) },
        body: viaTus.bytes.slice(from, to),
      });
      expect(patched.status).toBe(204);
    }

    // Keyed links, visited: a file's link per key-made file, and a collection's for two of them.
    const linkKeys: string[] = [owner.identity, stranger.identity];
    const visits: string[] = [];
    for (const [i, id] of ids.entries()) {
      const keyed = await linkHeader(files[i] as AgeFile);
      linkKeys.push(keyed.identity);
      const link = await makeLink(key.auth, id, { e2eHeader: keyed.header, label: 'for a friend' });
      visits.push(pathOf(link), `${pathOf(link)}/download`);
    }
    const collection = await call('/api/v2/collections', json({ name: 'Minutes', fileIds: ids.slice(0, 2) }, key.auth));
    const collectionId = ((await (await keep(collection)).json()) as Json).data.id;
    const headers: Record<string, string> = {};
    for (const [i, id] of ids.slice(0, 2).entries()) {
      const keyed = await linkHeader(files[i] as AgeFile);
      linkKeys.push(keyed.identity);
      headers[id] = keyed.header;
    }
    const collectionLink = await call(
      `/api/v2/collections/${collectionId}/links`,
      json({ e2eHeaders: headers }, key.auth),
    );
    const shared: Json = await (await keep(collectionLink)).json();
    expect(collectionLink.status, JSON.stringify(shared)).toBe(201);
    const collectionPath = pathOf(shared.data);
    visits.push(collectionPath, `${collectionPath}/download`, `${collectionPath}/files/${ids[0]}`);
    for (const path of visits) {
      const { response, body: got } = await visit(path, { headers: { Accept: 'text/html' } });
      expect(response.status, path).toBe(200);
      answers.push(JSON.stringify([...response.headers]));
      if ((response.headers.get('content-type') ?? '').startsWith('text/html')) answers.push(latin1(got));
    }
    // What the owner reads back: records, lists, access logs.
    for (const path of ['/api/v2/files?limit=100', `/api/v2/collections/${collectionId}`, '/api/v2/e2e/identity']) {
      await keep(await call(path, { headers: key.auth }));
    }
    const logs: string[] = [];
    for (const id of ids) logs.push(JSON.stringify(await accessLog(key.auth, `/files/${id}`, '?limit=100')));
    await settle();
    vi.restoreAllMocks();

    const needles = needlesOf(files, linkKeys);
    expect(needles.size).toBeGreaterThan(500);
    const r2 = await everyR2Object();
    expect(r2.length).toBeGreaterThanOrEqual(files.length);
    // The search finds what is there: each payload is in R2 as it was sent, so a plaintext would be found too.
    const stored = r2.map(([, text]) => text).join('\n');
    for (const file of files) expect(stored.includes(latin1(file.payload.subarray(100, 164)))).toBe(true);
    for (const [where, text] of r2) expectNoneIn(text, `the R2 object ${where}`, needles);
    const d1 = await everyD1Table();
    expect(d1.map(([name]) => name)).toEqual(expect.arrayContaining(['files', 'link_headers', 'share_links']));
    for (const [where, text] of d1) expectNoneIn(text, `the D1 table ${where}`, needles);
    const objects = await everyDurableObject();
    expect(objects.length).toBeGreaterThan(5);
    for (const [where, text] of objects) expectNoneIn(text, `the Durable Object ${where}`, needles);
    expect(lines.length).toBeGreaterThan(0);
    expectNoneIn(lines.join('\n'), 'the log lines', needles);
    expect(logs.join('').length).toBeGreaterThan(ids.length * 20);
    expectNoneIn(logs.join('\n'), 'the access logs', needles);
    const payloads = hook.calls().map((delivery) => delivery.body);
    expect(payloads.length).toBeGreaterThan(ids.length);
    expectNoneIn(payloads.join('\n'), 'the webhook payloads', needles);
    expectNoneIn(answers.join('\n'), 'the answers', needles);
  });
});

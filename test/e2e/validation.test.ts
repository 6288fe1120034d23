// What the server refuses of an age upload, on every upload path (multipart, bulk, raw PUT with and
// without a length, tus, tus concatenation, a file request's form, raw PUT and tus): a header that
// breaks the format (each rule) or a payload length no age file has (each way) is 422 E2E_INVALID
// naming the rule, and nothing is kept (no R2 object, no row, the quota as before); an age upload
// where E2E_ALLOWED is off is 422 POLICY_VIOLATION; a `meta` that is not base64url is 400.
import { beforeAll, describe, expect, it } from 'vitest';
import { concat } from '../../src/lib/bytes';
import { seededBytes } from '../helpers/age';
import { ageFile, newIdentity } from '../helpers/age-files';
import { makeRequest } from '../helpers/requests';
import { expectAccountSettled, expectNothingStored } from '../helpers/storage';
import { createUpload, metadata, patch, TUS, terminate } from '../helpers/tus';
import { filesForm, form } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const ascii = (text: string) => new TextEncoder().encode(text);
type Key = Awaited<ReturnType<typeof createKey>>;

/** A header that breaks one rule, or a valid header with a payload of a length no age file has. */
type Bad = { rule: string; bytes: Uint8Array };
let header = '';
let BAD: Bad[] = [];
const FULL_CHUNK = 65536 + 16;

beforeAll(async () => {
  header = (await ageFile(await newIdentity(), 10, 1)).header;
  const [line1, line2, body] = header.split('\n') as [string, string, string];
  const payload = seededBytes(7, 200);
  const withPayload = (text: string, bytes = payload) => concat([ascii(text), bytes]);
  BAD = [
    { rule: 'version', bytes: withPayload(header.replace('age-encryption.org/v1', 'age-encryption.org/v2')) },
    { rule: 'stanza', bytes: withPayload(header.replace('-> X25519', '-X X25519')) },
    { rule: 'column_width', bytes: withPayload(header.replace(body, 'A'.repeat(65))) },
    { rule: 'no_mac_line', bytes: ascii(`${line1}\n${line2}\n${body}\n`) },
    { rule: 'too_large', bytes: ascii(`${line1}\n-> X25519 a\n${`${'A'.repeat(64)}\n`.repeat(300)}`) },
    // Shorter than a nonce and one tag.
    { rule: 'payload_length', bytes: withPayload(header, seededBytes(8, 20)) },
    // A last chunk of 5 bytes after a full one: a tag with less than nothing in front of it.
    { rule: 'payload_length', bytes: withPayload(header, seededBytes(9, 16 + FULL_CHUNK + 5)) },
    // An empty last chunk after a full one: only an empty file has an empty chunk.
    { rule: 'payload_length', bytes: withPayload(header, seededBytes(10, 16 + FULL_CHUNK + 16)) },
  ];
});

// biome-ignore lint/suspicious/noExplicitAny: error bodies are read field by field
type Json = any;
type Answer = { status: number; body: Json };
const answer = async (response: Response): Promise<Answer> => ({
  status: response.status,
  body: response.status === 204 ? undefined : await response.json(),
});

/** Each way in with a key, sending `bytes` as an age file (and `meta`), env overrides allowed. */
const keyPaths: Record<string, (key: Key, bytes: Uint8Array, env?: Record<string, unknown>) => Promise<Answer>> = {
  multipart: async (key, bytes, env) =>
    answer(
      await call(
        '/api/v2/upload',
        {
          method: 'POST',
          headers: key.auth,
          body: form([{ filename: 'f.age', content: bytes }], { encryption: 'age' }),
        },
        env,
      ),
    ),
  'raw PUT': async (key, bytes, env) =>
    answer(await call('/api/v2/upload/f.age?encryption=age', { method: 'PUT', headers: key.auth, body: bytes }, env)),
  'raw PUT, chunked': async (key, bytes, env) => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 1000) controller.enqueue(bytes.slice(at, at + 1000));
        controller.close();
      },
    });
    // @ts-expect-error workerd's fetch takes a streamed body
    const init: RequestInit = { method: 'PUT', headers: key.auth, body, duplex: 'half' };
    return answer(await call('/api/v2/upload/f.age?encryption=age', init, env));
  },
  tus: async (key, bytes, env) => {
    const created = await createUpload(key.auth, bytes.length, { filename: 'f.age', encryption: 'age' }, { env });
    if (created.response.status !== 201) return answer(created.response);
    // Two PATCHes: the rule may be broken in either.
    const first = await patch(key.auth, created.path, 0, bytes.slice(0, 30), {}, env ?? {});
    if (first.status !== 204) return answer(first);
    return answer(await patch(key.auth, created.path, 30, bytes.slice(30), {}, env ?? {}));
  },
  'tus concatenation': async (key, bytes, env) => {
    const urls: string[] = [];
    for (const part of [bytes.slice(0, 40), bytes.slice(40)]) {
      const { path } = await createUpload(key.auth, part.length, {}, { headers: { 'Upload-Concat': 'partial' } });
      expect((await patch(key.auth, path, 0, part)).status).toBe(204);
      urls.push(path);
    }
    const headers = {
      ...TUS,
      ...key.auth,
      'Upload-Concat': `final;${urls.join(' ')}`,
      'Upload-Metadata': metadata({ filename: 'f.age', encryption: 'age' }),
    };
    const refused = await answer(await call('/api/v2/uploads', { method: 'POST', headers }, env));
    // A refused final gives its partials back as they were (the client may use them again): ended
    // here, so the account is settled.
    for (const url of urls) expect((await terminate(key.auth, url)).status).toBe(204);
    return refused;
  },
};

async function expectRefused(
  key: Key,
  send: (bytes: Uint8Array) => Promise<Answer>,
  refused: (answer: Answer, bad: Bad) => void,
) {
  for (const bad of BAD) {
    refused(await send(bad.bytes), bad);
    await expectNothingStored(key.id);
    await expectAccountSettled(key.id, 0);
  }
}

const invalid = ({ status, body }: Answer, bad: Bad) => {
  expect(status, `${bad.rule}: ${JSON.stringify(body)}`).toBe(422);
  expect(body.code).toBe('E2E_INVALID');
  expect(body.details).toEqual([{ field: 'file', rule: bad.rule, message: expect.any(String) }]);
};

describe('an age upload that breaks the format is 422 E2E_INVALID naming the rule, and nothing is kept', () => {
  it.each(['version', 'stanza', 'column_width', 'no_mac_line', 'too_large'])(
    'a header breaking %s, raw PUT',
    async (rule) => {
      const key = await createKey(`bad ${rule}`, { rateLimitRequests: 100_000 });
      const bad = BAD.find((entry) => entry.rule === rule) as Bad;
      invalid((await keyPaths['raw PUT']?.(key, bad.bytes)) as Answer, bad);
      await expectNothingStored(key.id);
    },
  );

  it.each([
    ['shorter than a nonce and a tag', 5],
    ['a last chunk of 1 to 16 bytes', 6],
    ['an empty last chunk after full ones', 7],
  ])('a payload of an impossible length: %s, raw PUT', async (_what, index) => {
    const key = await createKey('bad length', { rateLimitRequests: 100_000 });
    const bad = BAD[index] as Bad;
    invalid((await keyPaths['raw PUT']?.(key, bad.bytes)) as Answer, bad);
    await expectNothingStored(key.id);
  });

  for (const [name, send] of Object.entries(keyPaths)) {
    it(`every rule, ${name}`, async () => {
      const key = await createKey(`bad ${name}`, { rateLimitRequests: 100_000 });
      await expectRefused(key, (bytes) => send(key, bytes), invalid);
    });
  }

  it('every rule, bulk: each file fails alone with E2E_INVALID, the good one is kept', async () => {
    const key = await createKey('bad bulk', { rateLimitRequests: 100_000 });
    const good = await ageFile(await newIdentity(), 50, 3);
    const files = [
      ...BAD.map((bad, i) => ({ filename: `${i}.age`, content: bad.bytes })),
      { filename: 'ok.age', content: good.bytes },
    ];
    const response = await call(
      '/api/v2/upload/bulk',
      {
        method: 'POST',
        headers: key.auth,
        body: filesForm(files, { encryption: 'age' }),
        // MAX_BULK_FILES covers the nine files.
      },
      { MAX_BULK_FILES: '20' },
    );
    const body: Json = await response.json();
    expect(response.status).toBe(201);
    expect(body.data.results.map((result: Json) => result.code ?? 'ok')).toEqual([
      ...BAD.map(() => 'E2E_INVALID'),
      'ok',
    ]);
    await expectAccountSettled(key.id, good.payload.length);
  });

  it('every rule, through a file request: its form, its raw PUT and its tus', async () => {
    const owner = await createKey('request owner', { rateLimitRequests: 100_000 });
    const request = await makeRequest(owner.auth, { e2e: true, maxFiles: 100 });
    const sends: ((bytes: Uint8Array) => Promise<Answer>)[] = [
      async (bytes) => {
        const body = form([{ filename: 'f.age', content: bytes }], { encryption: 'age' });
        return answer(await call(request.uploadUrl, { method: 'POST', body }));
      },
      async (bytes) => answer(await call(`${request.uploadUrl}/f.age?encryption=age`, { method: 'PUT', body: bytes })),
      async (bytes) => {
        const headers = {
          ...TUS,
          'Upload-Length': String(bytes.length),
          'Upload-Metadata': metadata({ encryption: 'age' }),
        };
        const created = await call(request.tusUrl, { method: 'POST', headers });
        expect(created.status).toBe(201);
        const location = new URL(created.headers.get('location') ?? '').pathname;
        const patched = { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' };
        return answer(await call(location, { method: 'PATCH', headers: patched, body: bytes }));
      },
    ];
    for (const send of sends) await expectRefused(owner, send, invalid);
  });
});

describe('where age uploads are not taken, and a bad meta', () => {
  const OFF = { E2E_ALLOWED: 'false' };
  const policy = ({ status, body }: Answer) => {
    expect(status, JSON.stringify(body)).toBe(422);
    expect(body.code).toBe('POLICY_VIOLATION');
    expect(body.details).toEqual([{ field: 'encryption', rule: 'e2eAllowed', limit: false }]);
  };

  it('E2E_ALLOWED=false: an age upload is 422 POLICY_VIOLATION on every path with a key, nothing kept', async () => {
    const key = await createKey('e2e off', { rateLimitRequests: 100_000 });
    const good = await ageFile(await newIdentity(), 50, 4);
    for (const [name, send] of Object.entries(keyPaths)) {
      if (name === 'tus concatenation') continue;
      policy(await send(key, good.bytes, OFF));
      await expectNothingStored(key.id);
    }
    // A final upload is judged when it is made (its partials are plain bytes).
    policy((await keyPaths['tus concatenation']?.(key, good.bytes, OFF)) as Answer);
    await expectNothingStored(key.id);
    // A plain upload still goes in.
    const plain = await call('/api/v2/upload/a.txt', { method: 'PUT', headers: key.auth, body: 'plain' }, OFF);
    expect(plain.status).toBe(201);
  });

  it('E2E_ALLOWED=false: an e2e file request is refused, and an age upload to a plain request too', async () => {
    const owner = await createKey('e2e off owner', { rateLimitRequests: 100_000 });
    const refused = await call(
      '/api/v2/requests',
      { method: 'POST', headers: { ...owner.auth, 'Content-Type': 'application/json' }, body: '{"e2e":true}' },
      OFF,
    );
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as Json).details).toEqual([{ field: 'e2e', rule: 'e2eAllowed', limit: false }]);
    const request = await makeRequest(owner.auth);
    const good = await ageFile(await newIdentity(), 50, 5);
    policy(
      await answer(await call(`${request.uploadUrl}/f.age?encryption=age`, { method: 'PUT', body: good.bytes }, OFF)),
    );
    await expectNothingStored(owner.id);
  });

  it('a meta that is not base64url, or longer than 4 KiB, or without encryption, is 400 naming it; nothing kept', async () => {
    const key = await createKey('bad meta', { rateLimitRequests: 100_000 });
    const good = await ageFile(await newIdentity(), 50, 6);
    for (const meta of ['not base64url!', 'A'.repeat(4097)]) {
      const raw = await call('/api/v2/upload/f.age?encryption=age', {
        method: 'PUT',
        headers: { ...key.auth, 'Edgeshare-Meta': meta },
        body: good.bytes,
      });
      expect(raw.status).toBe(400);
      expect(((await raw.json()) as Json).details[0].field).toBe('Edgeshare-Meta');
      const body = form([{ filename: 'f.age', content: good.bytes }], { encryption: 'age', meta });
      const multipart = await call('/api/v2/upload', { method: 'POST', headers: key.auth, body });
      expect(multipart.status).toBe(400);
      expect(((await multipart.json()) as Json).details[0].field).toBe('meta');
    }
    const body = form([{ filename: 'f.txt', content: 'plain' }], { meta: good.meta });
    const plain = await call('/api/v2/upload', { method: 'POST', headers: key.auth, body });
    expect(plain.status).toBe(400);
    const late = form([{ filename: 'f.age', content: good.bytes }]);
    late.append('encryption', 'age');
    const after = await call('/api/v2/upload', { method: 'POST', headers: key.auth, body: late });
    expect(after.status).toBe(400);
    expect(((await after.json()) as Json).details[0]).toMatchObject({ field: 'encryption' });
    await expectNothingStored(key.id);
  });
});

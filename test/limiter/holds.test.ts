// No refusal leaves storage held: every upload route's early refusals (malformed headers
// included), before or after the body is read, give back what admission held for them.
import { describe, expect, it } from 'vitest';
import { holdsOf, makeRequest } from '../helpers/requests';
import { base64, OCTETS, TUS } from '../helpers/tus';
import { filePartHeaders, rawMultipart } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

type Auth = Record<string, string>;
type Refusal = { name: string; path: string; init: (auth: Auth) => RequestInit; status: number };

const BOUNDARY = 'holds-boundary';
const MULTIPART = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` };
const EXE = new Uint8Array([0x4d, 0x5a, 0x90, 0x00, ...new Array(600).fill(0)]);
const TEXT = 'x'.repeat(6_000);

const formWith = (filename: string, content: string | Uint8Array, fields: Record<string, string> = {}) =>
  rawMultipart(
    [
      ...Object.entries(fields).map(([name, value]) => ({
        headers: [`Content-Disposition: form-data; name="${name}"`],
        content: value,
      })),
      { headers: filePartHeaders(filename, 'text/plain'), content },
    ],
    { boundary: BOUNDARY },
  );

/** What a real client sends: the body's Content-Length (which admission holds storage for). */
const lengthOf = (body: string | Uint8Array) =>
  String(typeof body === 'string' ? new TextEncoder().encode(body).length : body.length);
const post =
  (body: string | Uint8Array, headers: Record<string, string> = MULTIPART) =>
  (auth: Auth) => ({
    method: 'POST',
    headers: { ...auth, 'Content-Length': lengthOf(body), ...headers },
    body,
  });
const put =
  (body: string | Uint8Array, headers: Record<string, string> = {}) =>
  (auth: Auth) => ({
    method: 'PUT',
    headers: { ...auth, 'Content-Type': 'text/plain', 'Content-Length': lengthOf(body), ...headers },
    body,
  });
const BAD_IDEMPOTENCY = { 'Idempotency-Key': 'has spaces in it' };
const WRONG_DIGEST = { 'Repr-Digest': `sha-256=:${btoa('x'.repeat(32))}:` };

/** Refusals of the keyed upload routes (each answered before or after reading the body). */
const KEYED: Refusal[] = [
  ...(['v1', 'v2'] as const).flatMap((version) => [
    {
      name: `${version} form: not multipart`,
      path: `/api/${version}/upload`,
      init: post(TEXT, { 'Content-Type': 'text/plain' }),
      status: 400,
    },
    {
      name: `${version} form: no file part`,
      path: `/api/${version}/upload`,
      init: post(
        rawMultipart([{ headers: ['Content-Disposition: form-data; name="other"'], content: TEXT }], {
          boundary: BOUNDARY,
        }),
      ),
      status: 400,
    },
    {
      name: `${version} form: expiresIn out of range`,
      path: `/api/${version}/upload`,
      init: post(formWith('a.txt', TEXT, { expiresIn: '5' })),
      status: 400,
    },
    {
      name: `${version} form: a program`,
      path: `/api/${version}/upload`,
      init: post(formWith('setup.exe', EXE)),
      status: 415,
    },
  ]),
  {
    name: 'v2 form: malformed Idempotency-Key',
    path: '/api/v2/upload',
    init: post(formWith('a.txt', TEXT), { ...MULTIPART, ...BAD_IDEMPOTENCY }),
    status: 400,
  },
  {
    name: 'v2 form: isPublic not a boolean',
    path: '/api/v2/upload',
    init: post(formWith('a.txt', TEXT, { isPublic: 'maybe' })),
    status: 400,
  },
  {
    name: 'v2 form: sha256 mismatch',
    path: '/api/v2/upload',
    init: post(formWith('a.txt', TEXT, { sha256: '0'.repeat(64) })),
    status: 400,
  },
  {
    name: 'bulk: not multipart',
    path: '/api/v2/upload/bulk',
    init: post(TEXT, { 'Content-Type': 'text/plain' }),
    status: 400,
  },
  {
    name: 'bulk: no files',
    path: '/api/v2/upload/bulk',
    init: post(rawMultipart([], { boundary: BOUNDARY })),
    status: 400,
  },
  {
    name: 'bulk: malformed Idempotency-Key',
    path: '/api/v2/upload/bulk',
    init: post(formWith('a.txt', TEXT), { ...MULTIPART, ...BAD_IDEMPOTENCY }),
    status: 400,
  },
  {
    name: 'raw PUT: malformed Idempotency-Key',
    path: '/api/v2/upload/a.txt',
    init: put(TEXT, BAD_IDEMPOTENCY),
    status: 400,
  },
  {
    name: 'raw PUT: isPublic twice',
    path: '/api/v2/upload/a.txt?isPublic=true&isPublic=false',
    init: put(TEXT),
    status: 400,
  },
  { name: 'raw PUT: expiresIn out of range', path: '/api/v2/upload/a.txt?expiresIn=1', init: put(TEXT), status: 400 },
  {
    name: 'raw PUT: malformed Repr-Digest',
    path: '/api/v2/upload/a.txt',
    init: put(TEXT, { 'Repr-Digest': 'sha-256=nope' }),
    status: 400,
  },
  { name: 'raw PUT: digest mismatch', path: '/api/v2/upload/a.txt', init: put(TEXT, WRONG_DIGEST), status: 400 },
  {
    name: 'raw PUT: a program',
    path: '/api/v2/upload/setup.exe',
    init: put(EXE, { 'Content-Type': 'application/octet-stream' }),
    status: 415,
  },
  {
    name: 'raw PUT: declared type contradicted',
    path: '/api/v2/upload/a.png',
    init: put(TEXT, { 'Content-Type': 'image/png' }),
    status: 415,
  },
  {
    name: 'tus: malformed Idempotency-Key',
    path: '/api/v2/uploads',
    init: post(TEXT, {
      ...TUS,
      ...OCTETS,
      ...BAD_IDEMPOTENCY,
      'Upload-Length': String(TEXT.length),
      'Upload-Metadata': `filename ${base64('a.txt')}`,
    }),
    status: 400,
  },
  {
    name: 'tus: malformed Upload-Metadata',
    path: '/api/v2/uploads',
    init: post(TEXT, { ...TUS, ...OCTETS, 'Upload-Length': String(TEXT.length), 'Upload-Metadata': 'filename !!!' }),
    status: 400,
  },
  {
    name: 'tus: a program',
    path: '/api/v2/uploads',
    init: post(EXE, {
      ...TUS,
      ...OCTETS,
      'Upload-Length': String(EXE.length),
      'Upload-Metadata': `filename ${base64('setup.exe')}`,
    }),
    status: 415,
  },
];

/** What the account holds for uploads in flight, as GET /api/v2/usage reports it. */
async function reservedBytes(auth: Auth): Promise<number> {
  const response = await call('/api/v2/usage', { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { reservedBytes: number } }).data.reservedBytes;
}

describe('storage held for an upload that is refused', () => {
  it.each(KEYED)('is given back: $name', async ({ path, init, status }) => {
    const { auth } = await createKey('holds', { rateLimitRequests: 1_000 });
    const response = await call(path, init(auth));
    const text = await response.text();
    expect(response.status, text).toBe(status);
    expect(await reservedBytes(auth)).toBe(0);
  });

  it('is given back when an Idempotency-Key is replayed, refused as another request, or reused by another key', async () => {
    const { auth } = await createKey('holds-idem', { rateLimitRequests: 1_000 });
    const headers = { ...MULTIPART, 'Idempotency-Key': 'held-once' };
    expect((await call('/api/v2/upload', post(formWith('a.txt', TEXT), headers)(auth))).status).toBe(201);
    expect((await call('/api/v2/upload', post(formWith('a.txt', TEXT), headers)(auth))).status).toBe(201);
    expect((await call('/api/v2/upload', post(formWith('b.txt', 'y'.repeat(6_000)), headers)(auth))).status).toBe(422);
    expect(await reservedBytes(auth)).toBe(0);
  });

  it('through a file request: refusals keep no hold in the request or the account', async () => {
    const { auth } = await createKey('holds-request', { rateLimitRequests: 1_000 });
    const request = await makeRequest(auth, { maxFileSize: 10_000 });
    const cases: [string, RequestInit, number][] = [
      ['form: not multipart', post(TEXT, { 'Content-Type': 'text/plain' })({}), 400],
      ['form: a program', post(formWith('setup.exe', EXE))({}), 415],
      ['raw PUT: a program', put(EXE, { 'Content-Type': 'application/octet-stream' })({}), 415],
      ['raw PUT: digest mismatch', put(TEXT, WRONG_DIGEST)({}), 400],
      ['raw PUT: over the request’s maxFileSize', put('z'.repeat(10_001))({}), 413],
    ];
    for (const [name, init, status] of cases) {
      const path =
        init.method === 'PUT'
          ? `${request.uploadUrl}/${name.includes('program') ? 'setup.exe' : 'a.txt'}`
          : request.uploadUrl;
      const response = await call(path, init);
      await response.text();
      expect(response.status, name).toBe(status);
      expect(await holdsOf(request.id), name).toEqual([]);
    }
    const tus = await call(request.tusUrl, {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': '20000', 'Upload-Metadata': `filename ${base64('big.txt')}` },
    });
    expect(tus.status).toBe(413);
    expect(await holdsOf(request.id)).toEqual([]);
    expect(await reservedBytes(auth)).toBe(0);
  });
});

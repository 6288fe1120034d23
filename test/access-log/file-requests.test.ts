// Every visit of a file request's URLs is an event in its access log: the page, the description,
// each upload (a form, a raw PUT, each tus request, with the bytes received), password attempts,
// a closed request's refusals and the throttle's.
import { describe, expect, it } from 'vitest';
import { basic, makeRequest, newOwner, patchRequest, type RequestRecord, tokenOf } from '../helpers/requests';
import { base64, OCTETS, TUS } from '../helpers/tus';
import { call, inOneHourWindow } from '../helpers/worker';
import { accessLog, addressHeader, gist, visit } from './access-helpers';

function form(content: string, name = 'notes.txt'): FormData {
  const data = new FormData();
  data.append('file', new File([content], name, { type: 'text/plain' }));
  return data;
}

const upload = (request: RequestRecord, content: string, headers: Record<string, string> = {}, env = {}) =>
  visit(request.uploadUrl, { method: 'POST', body: form(content), headers }, env);

describe('a file request’s access log', () => {
  it('records the page, the description and each kind of upload with the bytes received', async () => {
    const { auth } = await newOwner();
    const request = await makeRequest(auth, { maxFiles: 5 });
    expect((await visit(`/r/${tokenOf(request)}`)).response.status).toBe(200);
    expect((await visit(request.uploadUrl.replace(/\/upload$/, ''))).response.status).toBe(200);
    expect((await upload(request, 'twelve bytes')).response.status).toBe(201);
    const raw = await visit(`${request.uploadUrl}/raw.txt`, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/plain' },
      body: 'seven b',
    });
    expect(raw.response.status).toBe(201);
    const created = await visit(request.tusUrl, {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': '10', 'Upload-Metadata': `filename ${base64('t.txt')}` },
    });
    expect(created.response.status).toBe(201);
    const location = created.response.headers.get('location') ?? '';
    const patched = await visit(location, {
      method: 'PATCH',
      headers: { ...TUS, ...OCTETS, 'Upload-Offset': '0' },
      body: 'ten bytes!',
    });
    expect(patched.response.status).toBe(204);

    const log = await accessLog(auth, `/requests/${request.id}`);
    expect(log.events.map(gist)).toEqual([
      { kind: 'upload', outcome: 'served', status: 204, bytes: 10, range: false },
      { kind: 'upload', outcome: 'served', status: 201, bytes: 0, range: false },
      { kind: 'upload', outcome: 'served', status: 201, bytes: 7, range: false },
      { kind: 'upload', outcome: 'served', status: 201, bytes: 12, range: false },
      { kind: 'page', outcome: 'served', status: 200, bytes: 0, range: false },
      { kind: 'page', outcome: 'served', status: 200, bytes: 0, range: false },
    ]);
    expect(log.events.every((event) => event.linkId === null)).toBe(true);
  });

  it('records a missing or wrong password, and a closed request’s refusals as gone', async () => {
    const { auth } = await newOwner();
    const request = await makeRequest(auth, { password: 'open sesame' });
    expect((await upload(request, 'x')).response.status).toBe(401);
    expect((await upload(request, 'x', basic('wrong'))).response.status).toBe(401);
    expect((await upload(request, 'x', basic('open sesame'))).response.status).toBe(201);
    expect((await patchRequest(auth, request.id, { closed: true })).status).toBe(200);
    expect((await upload(request, 'x', basic('open sesame'))).response.status).toBe(410);
    expect((await visit(`/r/${tokenOf(request)}`)).response.status).toBe(410);

    const { events } = await accessLog(auth, `/requests/${request.id}`);
    expect(events.map(gist)).toEqual([
      { kind: 'page', outcome: 'refused-gone', status: 410, bytes: 0, range: false },
      { kind: 'upload', outcome: 'refused-gone', status: 410, bytes: 0, range: false },
      { kind: 'upload', outcome: 'served', status: 201, bytes: 1, range: false },
      { kind: 'upload', outcome: 'refused-password', status: 401, bytes: 0, range: false },
      { kind: 'upload', outcome: 'refused-password', status: 401, bytes: 0, range: false },
    ]);
  });

  it('records uploads past the per-address throttle as throttled', async () => {
    const { auth } = await newOwner();
    const request = await makeRequest(auth);
    const from = addressHeader();
    // Both uploads count in one window.
    const tight = await inOneHourWindow('REQUEST_UPLOAD_WINDOW_SECONDS', { REQUEST_UPLOADS_PER_ADDRESS: '1' });
    expect((await upload(request, 'one', from, tight)).response.status).toBe(201);
    expect((await upload(request, 'two', from, tight)).response.status).toBe(429);
    const { events } = await accessLog(auth, `/requests/${request.id}`);
    expect(events.map(gist)).toEqual([
      { kind: 'upload', outcome: 'throttled', status: 429, bytes: 0, range: false },
      { kind: 'upload', outcome: 'served', status: 201, bytes: 3, range: false },
    ]);
  });

  it('is read with files:read, and only by the request’s account', async () => {
    const { auth } = await newOwner();
    const request = await makeRequest(auth);
    const other = await newOwner();
    const foreign = await call(`/api/v2/requests/${request.id}/access`, { headers: other.auth });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { code: string }).code).toBe('REQUEST_NOT_FOUND');
  });
});

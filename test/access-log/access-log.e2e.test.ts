// The access log against the real service under `wrangler dev --persist-to`: the typed client
// and the CLI read it, and after visits of every kind from one address (share page, downloads,
// wrong passwords, a file-request upload, a bad API key) that address appears nowhere in the
// local state directory nor in what wrangler printed.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { EdgeshareClient } from '../../src/client/edgeshare.ts';
import { type DevServer, startDevServer } from '../helpers/dev-server.ts';

// Documentation addresses (RFC 5737, RFC 3849): nothing else in the state could contain them.
const ADDRESS = '198.51.100.231';
const IPV6 = '2001:db8:77:88::1';
const NEEDLES = [ADDRESS, '2001:db8:77:88'];

const CLI = join(ROOT, 'scripts/cli.ts');
let server: DevServer;
let client: EdgeshareClient;
let apiKey: string;

beforeAll(async () => {
  server = await startDevServer();
  // Room for polling the log (every 100 ms, to a 30 s deadline) beside the file's own requests.
  apiKey = await server.createKey('access', ['--rate-limit', '100000']);
  client = new EdgeshareClient({ baseUrl: server.origin, apiKey });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const basic = (password: string) => ({ Authorization: `Basic ${Buffer.from(`:${password}`).toString('base64')}` });

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, EDGESHARE_URL: server.origin, EDGESHARE_KEY: apiKey };
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Waits until the log has `count` events (recording runs after each answer). */
async function logOf(of: Parameters<EdgeshareClient['accessLog']>[0], count: number) {
  // Polled to a deadline, not a count of tries: a loaded machine records late.
  for (const deadline = Date.now() + 30_000; ; ) {
    const page = await client.accessLog(of, { limit: 100 });
    if (page.events.length >= count || Date.now() > deadline) return page;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the access log under wrangler dev', () => {
  it('keeps no trace of the client address in the local state, while the log names its visitor', async () => {
    const file = await client.upload(new Blob(['state grep'], { type: 'text/plain' }), {
      filename: 'access-e2e-marker.txt',
    });
    const link = await client.createLink(file.id, { password: 'pw-e2e' });
    const request = await client.createRequest({ label: 'e2e' });
    for (const address of [ADDRESS, IPV6]) {
      const from = { 'CF-Connecting-IP': address };
      const visits: [string, RequestInit][] = [
        [file.shareUrl, { headers: from }],
        [`${file.shareUrl}/download`, { headers: from }],
        [link.url, { headers: { ...from, Accept: 'text/html' } }],
        [`${link.url}/download`, { headers: { ...from, ...basic('wrong') } }],
        [`${link.url}/download`, { headers: { ...from, ...basic('pw-e2e') } }],
        [`${server.origin}/api/v2/files`, { headers: { ...from, Authorization: 'Bearer esk_not_a_key' } }],
      ];
      for (const [url, init] of visits) await (await fetch(url, init)).arrayBuffer();
      const form = new FormData();
      form.append('file', new Blob(['sent'], { type: 'text/plain' }), 'sent.txt');
      expect((await fetch(request.uploadUrl, { method: 'POST', body: form, headers: from })).status).toBe(201);
    }

    const linkLog = await logOf({ linkId: link.id }, 6);
    expect(linkLog.events.map((event) => event.outcome)).toContain('refused-password');
    const fileLog = await logOf({ fileId: file.id }, 10);
    expect(fileLog.events.length).toBeGreaterThanOrEqual(10);
    const requestLog = await logOf({ requestId: request.id }, 2);
    expect(requestLog.events.map((event) => event.kind)).toEqual(['upload', 'upload']);
    // Two addresses, two visitors, on every log.
    expect(new Set(fileLog.events.map((event) => event.visitor)).size).toBe(2);

    // The state as the run left it: every file, WAL and all. The file's name is there (the grep
    // sees the databases); the addresses are not.
    const files = filesUnder(server.persistTo);
    const state = files.map((path) => readFileSync(path).toString('latin1'));
    expect(state.some((text) => text.includes('access-e2e-marker.txt'))).toBe(true);
    for (const needle of NEEDLES) {
      const holding = files.filter((_, index) => state[index]?.includes(needle));
      expect(holding, `${needle} found in the local state`).toEqual([]);
      expect(server.output().includes(needle), `${needle} in wrangler's output`).toBe(false);
    }
  });

  it('is printed by the CLI: npm run cli -- access <linkId|fileId>', async () => {
    const file = await client.upload(new Blob(['cli access'], { type: 'text/plain' }), { filename: 'c.txt' });
    const link = await client.createLink(file.id);
    await (await fetch(`${link.url}/download`, { headers: { 'User-Agent': 'curl/8.5.0' } })).arrayBuffer();
    await logOf({ linkId: link.id }, 1);
    const byLink = await cli(['access', link.id]);
    expect(byLink.code, byLink.stderr).toBe(0);
    expect(byLink.stdout).toMatch(/download\s+served\s+200\s+.*curl/);
    const byFile = await cli(['access', file.id, '--json', '--limit', '5']);
    expect(byFile.code, byFile.stderr).toBe(0);
    const page = JSON.parse(byFile.stdout) as { events: { linkId: string | null }[]; nextCursor: string | null };
    expect(page.events.map((event) => event.linkId)).toEqual([link.id]);
    expect(page.nextCursor).toBeNull();
  });

  it('reads a collection’s links together: client.accessLog({ collectionId }) and cli access col_…', async () => {
    const file = await client.upload(new Blob(['in a collection'], { type: 'text/plain' }), { filename: 'm.txt' });
    const collection = await client.createCollection({ name: 'logged', fileIds: [file.id] });
    const first = await client.createCollectionLink(collection.id);
    const second = await client.createCollectionLink(collection.id, { label: 'second' });
    await (await fetch(`${first.url}/archive.zip`)).arrayBuffer();
    await (await fetch(`${second.url}/files/${file.id}`)).arrayBuffer();
    const log = await logOf({ collectionId: collection.id }, 2);
    expect(log.events.map((event) => [event.kind, event.linkId])).toEqual([
      ['download', second.id],
      ['archive', first.id],
    ]);
    const byCollection = await cli(['access', collection.id, '--json']);
    expect(byCollection.code, byCollection.stderr).toBe(0);
    const page = JSON.parse(byCollection.stdout) as { events: { kind: string }[] };
    expect(page.events.map((event) => event.kind)).toEqual(['download', 'archive']);
  });
});

// The typed client as the README ships it to Node: built to JavaScript (npm run build:client) and
// loaded by plain Node, 20 and newer, with no TypeScript support. uploadAuto of a large Blob goes
// through tus with progress; every refusal is an EdgeshareError, the tus ones included.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient } from '../../scripts/build-client.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

let server: SharedDevServer;
let key: string;
let bundle: string;
const work = mkdtempSync(join(tmpdir(), 'edgeshare-client-node-'));

beforeAll(async () => {
  bundle = buildClient();
  server = await sharedDevServer('e2eServer');
  key = await server.createKey('client on node');
}, 180_000);

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
});

// Plain JavaScript, as a user's script would be.
const SCRIPT = `
const [bundle, origin, key] = process.argv.slice(2);
const { EdgeshareClient, EdgeshareError, RESUMABLE_THRESHOLD } = await import(bundle);
const client = new EdgeshareClient({ baseUrl: origin, apiKey: key });
const size = RESUMABLE_THRESHOLD + 1;
const bytes = new Uint8Array(size);
for (let i = 0; i < size; i += 4096) bytes[i] = (i / 4096) % 251;
const progress = [];
const record = await client.uploadAuto(new Blob([bytes], { type: 'application/octet-stream' }), {
  filename: 'large.bin',
  chunkSize: 32 * 1024 * 1024,
  onProgress: (sent, total) => progress.push([sent, total]),
});
const downloaded = new Uint8Array(await (await client.download(record.id)).arrayBuffer());
const same = downloaded.length === size && downloaded.every((byte, i) => byte === bytes[i]);
const refusals = [];
for (const attempt of [
  () => client.get('AAAAAAAAAAAAAAAAAAAAAA'),
  () => client.uploadAuto(new Blob([bytes]), { filename: 'setup.exe' }),
  () => new EdgeshareClient({ baseUrl: origin, apiKey: 'esk_wrong' }).uploadResumable(new Blob(['x']), { filename: 'a.txt' }),
]) {
  const error = await attempt().then(() => undefined, (error) => error);
  refusals.push({ isEdgeshareError: error instanceof EdgeshareError, status: error?.status, code: error?.code });
}
await client.delete(record.id);
console.log(JSON.stringify({ node: process.version, size: record.size, same, progress: progress.at(-1), steps: progress.length, refusals }));
`;

/** Every distinct Node on PATH (Node 20 where the system has it), and the one running the tests. */
function nodes(): string[] {
  const found = new Map<string, string>();
  const candidates = [process.execPath, ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node'))];
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (!found.has(version)) found.set(version, candidate);
  }
  return [...found.values()];
}

describe('the built client on plain Node', () => {
  it('uploads a large Blob through tus with progress, and refuses with EdgeshareError only', () => {
    const script = join(work, 'use-client.mjs');
    writeFileSync(script, SCRIPT);
    for (const node of nodes()) {
      const out = execFileSync(node, [script, pathToFileURL(bundle).href, server.origin, key], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      const result = JSON.parse(out.trim().split('\n').at(-1) ?? '{}');
      const size = 64 * 1024 * 1024 + 1;
      expect(result, result.node).toMatchObject({ size, same: true, progress: [size, size] });
      expect(result.steps, result.node).toBeGreaterThan(2);
      expect(result.refusals, result.node).toEqual([
        { isEdgeshareError: true, status: 404, code: 'FILE_NOT_FOUND' },
        { isEdgeshareError: true, status: 415, code: 'INVALID_FILE_TYPE' },
        { isEdgeshareError: true, status: 401, code: 'UNAUTHORIZED' },
      ]);
    }
  }, 300_000);
});

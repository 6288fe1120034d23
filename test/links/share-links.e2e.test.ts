// Share links from the typed client and the CLI against the real service under `wrangler dev`,
// and a script's download with HTTP Basic (`curl -u :PASSWORD …/download`).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { EdgeshareClient, EdgeshareError } from '../../src/client/edgeshare.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

const CLI = join(ROOT, 'scripts/cli.ts');
let server: SharedDevServer;
let client: EdgeshareClient;
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  const apiKey = await server.createKey('links');
  client = new EdgeshareClient({ baseUrl: server.origin, apiKey });
  work = mkdtempSync(join(tmpdir(), 'edgeshare-links-'));
  env = { ...process.env, EDGESHARE_URL: server.origin, EDGESHARE_KEY: apiKey, EDGESHARE_STATE: join(work, 'u.json') };
}, 120_000);

afterAll(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function cli(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { cwd: work, env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    // A command that exits before reading its input (`ls`) closes the pipe: EPIPE, not a failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(stdin ?? '');
  });
}

const basic = (password: string) => ({ Authorization: `Basic ${Buffer.from(`:${password}`).toString('base64')}` });

describe('share links through the typed client', () => {
  it('makes, lists, reads, changes and revokes links; errors are EdgeshareError', async () => {
    const file = await client.upload(new Blob(['client link'], { type: 'text/plain' }), {
      filename: 'c.txt',
      isPublic: false,
    });
    const link = await client.createLink(file.id, { label: 'c', password: 'pw-c', maxDownloads: 2, expiresIn: 600 });
    expect(link).toMatchObject({ fileId: file.id, hasPassword: true, maxDownloads: 2, status: 'active' });
    expect((await client.listLinks(file.id)).map((item) => item.id)).toEqual([link.id]);

    expect((await fetch(`${link.url}/download`)).status).toBe(401);
    const download = await fetch(`${link.url}/download`, { headers: basic('pw-c') });
    expect(await download.text()).toBe('client link');
    expect((await client.getLink(link.id)).downloadCount).toBe(1);

    expect((await client.updateLink(link.id, { maxDownloads: 1 })).status).toBe('exhausted');
    expect((await fetch(`${link.url}/download`, { headers: basic('pw-c') })).status).toBe(404);
    expect((await client.revokeLink(link.id)).status).toBe('revoked');
    const refused = await client.createLink(file.id, { maxDownloads: 0 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EdgeshareError);
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });
});

describe('share links through the CLI', () => {
  it('share --password --max-downloads --expires makes a link; links lists it; revoke ends it', async () => {
    const file = await client.upload(new Blob(['cli link'], { type: 'text/plain' }), { filename: 'l.txt' });
    const made = await cli(
      ['share', file.id, '--password', '-', '--max-downloads', '3', '--expires', '3600', '--json'],
      'pw-cli\n',
    );
    expect(made.code, made.stderr).toBe(0);
    const link = JSON.parse(made.stdout) as { id: string; url: string; hasPassword: boolean; maxDownloads: number };
    expect(link).toMatchObject({ hasPassword: true, maxDownloads: 3 });
    expect(made.stdout).not.toContain('pw-cli');
    expect(await (await fetch(`${link.url}/download`, { headers: basic('pw-cli') })).text()).toBe('cli link');

    const plain = await cli(['share', file.id, '--label', 'plain']);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toMatch(/\/share\/[A-Za-z0-9_-]{43}$/);

    const listed = await cli(['links', file.id]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(link.id);
    expect(listed.stdout).toContain('1/3');

    const revoked = await cli(['revoke', link.id]);
    expect(revoked.code).toBe(0);
    expect((await fetch(`${link.url}/download`, { headers: basic('pw-cli') })).status).toBe(404);

    // Without options, share still prints the default link.
    const shared = await cli(['share', file.id]);
    expect(shared.stdout.trim()).toBe(file.shareUrl);
  });
});

// The policy from the typed client and `npm run cli -- policy`, against the shared `wrangler dev`,
// with a key of an account whose own bounds (set through the admin API, as an operator overrides
// the configuration per account: docs/policy.md) are the policy: the bounds as GET /api/v2/policy
// answers them, and a refusal as an EdgeshareError with code POLICY_VIOLATION and its details.
import { execFile } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { EdgeshareClient, EdgeshareError } from '../../src/client/edgeshare.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

const POLICY = { linkRequirePassword: true, linkMaxDownloads: 5, fileMaxExpirySeconds: 86400 };

let server: SharedDevServer;
let key: string;
let client: EdgeshareClient;

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  // A new account with POLICY as its own bounds, and its first key (POST /admin/accounts).
  const response = await fetch(`${server.origin}/admin/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'policy', policy: POLICY }),
  });
  const body = (await response.json()) as { data?: { key?: { key?: string } } };
  expect(response.status, JSON.stringify(body)).toBe(201);
  key = body.data?.key?.key ?? '';
  client = new EdgeshareClient({ baseUrl: server.origin, apiKey: key });
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [`${ROOT}/scripts/cli.ts`, ...args],
      { env: { ...process.env, EDGESHARE_URL: server.origin, EDGESHARE_KEY: key } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the policy from the client and the CLI', () => {
  it('client.policy() answers the account’s bounds, and a refusal is an EdgeshareError POLICY_VIOLATION', async () => {
    expect(await client.policy()).toEqual({
      linkMaxExpirySeconds: null,
      linkRequireExpiry: null,
      linkRequirePassword: true,
      linkMaxDownloads: 5,
      passwordMinLength: null,
      fileMaxExpirySeconds: 86400,
      fileRequireExpiry: null,
      requestMaxExpirySeconds: null,
      requestMaxBytes: null,
      e2eAllowed: true,
    });
    const file = await client.upload(new Blob(['bounded'], { type: 'text/plain' }), {
      filename: 'bounded.txt',
      expiresIn: 3600,
    });
    const refused = await client.createLink(file.id, { maxDownloads: 9 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EdgeshareError);
    expect(refused).toMatchObject({ status: 422, code: 'POLICY_VIOLATION' });
    expect((refused as EdgeshareError).details).toEqual([
      { field: 'password', rule: 'linkRequirePassword', limit: true },
      { field: 'maxDownloads', rule: 'linkMaxDownloads', limit: 5 },
    ]);
    const link = await client.createLink(file.id, { password: 'a good password', maxDownloads: 5 });
    expect(link).toMatchObject({ hasPassword: true, maxDownloads: 5 });
    const tooLong = await client
      .upload(new Blob(['x'], { type: 'text/plain' }), { filename: 'x.txt', expiresIn: 2 * 86400 })
      .catch((error: unknown) => error);
    expect(tooLong).toMatchObject({ status: 422, code: 'POLICY_VIOLATION' });
  });

  it('npm run cli -- policy prints each bound (none where unset), and --json the data', async () => {
    const text = await cli(['policy']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^linkMaxDownloads\s+5$/m);
    expect(text.stdout).toMatch(/^linkRequirePassword\s+true$/m);
    expect(text.stdout).toMatch(/^requestMaxBytes\s+none$/m);
    const json = await cli(['policy', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ linkMaxDownloads: 5, fileMaxExpirySeconds: 86400 });
  });
});

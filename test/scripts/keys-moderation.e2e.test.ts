// `npm run keys` abuse tools against the real service under `wrangler dev`: they go through its
// admin API (ADMIN_TOKEN from the environment, never a flag), so their effects are the API's:
// a quarantined file answers 451 at once, a suspended account's keys 403, a removed file is a
// tombstone. (block-hash, which writes the database, is in keys.cli.test.ts.)
import { execFile } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

let server: SharedDevServer;

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
}, 180_000);

type Run = { code: number; stdout: string; stderr: string };

/** npm run keys -- …, pointed at the shared server, with the admin token in its environment only. */
function keys(args: string[], token = server.adminToken): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['scripts/keys.ts', ...args, '--url', server.origin],
      { cwd: ROOT, env: { ...process.env, ADMIN_TOKEN: token } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

const ok = async (args: string[]) => {
  const run = await keys(args);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
};

describe('npm run keys: the abuse tools', () => {
  it('list reports, quarantine and release, resolve, suspend and unsuspend, remove: each as the admin API does it', async () => {
    const key = await server.createKey('moderated by the CLI');
    const form = new FormData();
    form.append('file', new Blob(['reported through the CLI'], { type: 'text/plain' }), 'cli.txt');
    const uploaded = await fetch(`${server.origin}/api/v2/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    });
    const file = ((await uploaded.json()) as { data: { id: string; shareUrl: string } }).data;
    const sent = await fetch(`${server.origin}/api/v2/reports`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: file.shareUrl, reason: 'phishing', details: 'line one\nline two' }),
    });
    const reportId = ((await sent.json()) as { data: { id: string } }).data.id;
    const download = () => fetch(`${file.shareUrl}/download`);

    const line = (await ok(['reports'])).split('\n').find((text) => text.startsWith(`${reportId}\t`)) ?? '';
    expect(line.split('\t').slice(1, 5)).toEqual(['open', expect.any(String), 'phishing', `file:${file.id}`]);
    expect(line).toContain('details=line one\\u{0a}line two');
    const account = /account=(\S+)/.exec(line)?.[1] ?? '';

    expect(await ok(['quarantine', file.id, '--statement', 'Held by the CLI.'])).toContain(`Quarantined ${file.id}`);
    const held = await download();
    expect(held.status).toBe(451);
    expect(await held.json()).toMatchObject({ statement: 'Held by the CLI.' });
    await ok(['release', file.id]);
    expect((await download()).status).toBe(200);

    await ok(['suspend', account, '--statement', 'Suspended by the CLI.']);
    const refused = await fetch(`${server.origin}/api/v2/files`, { headers: { Authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('ACCOUNT_SUSPENDED');
    await ok(['unsuspend', account, '--statement', 'Lifted.']);
    expect((await fetch(`${server.origin}/api/v2/files`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );

    expect(await ok(['resolve', reportId, '--action', 'dismiss', '--statement', 'Not phishing.'])).toContain(reportId);
    expect(await ok(['reports', '--status', 'resolved'])).toMatch(
      new RegExp(`${reportId}\\tresolved\\t.*decided=dismiss`),
    );

    expect(await ok(['remove', file.id, '--statement', 'Removed by the CLI.', '--block-hash'])).toMatch(
      new RegExp(`Removed ${file.id}; blocked [0-9a-f]{64}`),
    );
    expect((await download()).status).toBe(451);
    const record = await fetch(`${server.origin}/api/v2/files/${file.id}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(((await record.json()) as { data: { moderation: { state: string } } }).data.moderation.state).toBe(
      'removed',
    );

    // Refusals: the service's own (an unknown file), a wrong token, a missing statement, a token as a flag.
    const unknown = await keys(['quarantine', 'nosuchfileatallxxxxxxx', '--statement', 'x']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('404 FILE_NOT_FOUND');
    expect((await keys(['reports'], 'not-the-admin-token-0123456789abcdef')).stderr).toContain('401 UNAUTHORIZED');
    expect((await keys(['quarantine', file.id])).stderr).toContain('needs --statement');
    expect((await keys(['reports', '--token', server.adminToken])).code).not.toBe(0);
  });
});

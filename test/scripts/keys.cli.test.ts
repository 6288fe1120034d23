// The key CLI, end to end: a throwaway local D1 state (checked by opening its SQLite file), the
// one wrangler itself reads and writes (checked with wrangler once).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localD1Config, localD1File } from '../../scripts/local-d1.ts';
import { wranglerEnv } from '../../scripts/wrangler.ts';
import { KEY_STATE_MAX_AGE_MS, newKeyMaterial } from '../../src/keys/key-material.ts';

const root = join(import.meta.dirname, '..', '..');
let state: string;

function run(args: string[]): string {
  return execFileSync(process.execPath, [join(root, 'scripts/keys.ts'), ...args, '--persist-to', state], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A command that does not wait for a running service to see its change (the wait is tested once, below). */
const keys = (...args: string[]) => run([...args, '--no-wait']);

/**
 * Runs SQL on the local database the CLI wrote: the D1 object's SQLite file under the state
 * directory, opened directly (no wrangler process is running between commands).
 */
function rows(query: string): Record<string, unknown>[] {
  const file = localD1File(state, 'DB');
  if (!existsSync(file)) throw new Error(`no local D1 database at ${file}`);
  const db = new DatabaseSync(file);
  try {
    const statement = db.prepare(query);
    if (statement.columns().length === 0) {
      statement.run();
      return [];
    }
    return statement.all().map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

/**
 * A key written straight into the database (its account founded by migration 0006's trigger, as
 * for every key), for the cases about the other commands: each CLI run starts a workerd, and
 * create itself is tested below.
 */
async function seedKey(name: string): Promise<{ id: string; key: string }> {
  const { id, key, keyHash, prefix } = await newKeyMaterial();
  const now = new Date().toISOString();
  rows(
    `INSERT INTO api_keys (id, key_hash, prefix, name, status, created_at, updated_at) VALUES ('${id}', '${keyHash}', '${prefix}', '${name}', 'active', '${now}', '${now}')`,
  );
  return { id, key };
}

describe('npm run keys', () => {
  beforeAll(() => {
    state = mkdtempSync(join(tmpdir(), 'edgeshare-keys-'));
  });
  afterAll(() => rmSync(state, { recursive: true, force: true }));

  let created: { id: string; key: string };

  it('create prints the new key once, as the last line, and stores only its SHA-256', () => {
    const out = keys('create', '--name', "ops's laptop", '--rate-limit', '5');
    const key = lastLine(out);
    expect(key).toMatch(/^esk_[A-Za-z0-9_-]{43}$/);
    const [row] = rows("SELECT * FROM api_keys WHERE name = 'ops''s laptop'");
    expect(row).toMatchObject({
      status: 'active',
      key_hash: createHash('sha256').update(key).digest('hex'),
      rate_limit_requests: 5,
      prefix: key.slice(0, 10),
    });
    expect(JSON.stringify(row)).not.toContain(key);
    created = { id: String(row?.id), key };
  });

  it('writes the database wrangler dev serves: wrangler finds every migration applied and reads the key', () => {
    const wrangler = (...args: string[]) =>
      execFileSync(process.execPath, [join(root, 'node_modules/wrangler/bin/wrangler.js'), 'd1', ...args], {
        cwd: root,
        env: wranglerEnv(),
        encoding: 'utf8',
      });
    // One wrangler process: it applies nothing, so it opened the database the CLI migrated and wrote.
    expect(wrangler('migrations', 'apply', 'DB', '--local', '--persist-to', state)).toContain('No migrations to apply');
    const dir = join(state, 'v3', 'd1', 'miniflare-D1DatabaseObject');
    // The one file Miniflare made is the one later commands open directly (scripts/local-d1.ts).
    expect(readdirSync(dir).filter((name) => /^[0-9a-f]{64}\.sqlite$/.test(name))).toEqual([
      basename(localD1File(state, 'DB')),
    ]);
    expect(rows('SELECT name FROM d1_migrations ORDER BY id').map((row) => row.name)).toEqual(
      readdirSync(join(root, 'migrations'))
        .filter((name) => name.endsWith('.sql'))
        .sort(),
    );
    expect(rows(`SELECT id FROM api_keys WHERE id = '${created.id}'`)).toHaveLength(1);
  });

  it('list prints one line per key, starting with its id, and never the key', async () => {
    await seedKey('second');
    const lines = keys('list').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]?.startsWith(`${created.id}\t`)).toBe(true);
    expect(lines[0]).toContain('active');
    expect(lines.join('\n')).not.toContain(created.key);
  });

  it('revoke takes an id or the key itself', async () => {
    expect(keys('revoke', created.id)).toContain(created.id);
    expect(rows(`SELECT status, revoked_at FROM api_keys WHERE id = '${created.id}'`)[0]).toMatchObject({
      status: 'revoked',
    });
    const other = (await seedKey('third')).key;
    keys('revoke', other);
    const hash = createHash('sha256').update(other).digest('hex');
    expect(rows(`SELECT status FROM api_keys WHERE key_hash = '${hash}'`)[0]).toMatchObject({ status: 'revoked' });
  });

  it("set changes a key's overrides, and `default` clears one", async () => {
    const { key } = await seedKey('tuned');
    expect(keys('set', key, '--rate-limit', '7', '--quota', '1000')).toContain('Updated');
    const hash = createHash('sha256').update(key).digest('hex');
    expect(rows(`SELECT rate_limit_requests, storage_quota_bytes FROM api_keys WHERE key_hash = '${hash}'`)[0]).toEqual(
      {
        rate_limit_requests: 7,
        storage_quota_bytes: 1000,
      },
    );
    keys('set', key, '--rate-limit', 'default');
    expect(rows(`SELECT rate_limit_requests, storage_quota_bytes FROM api_keys WHERE key_hash = '${hash}'`)[0]).toEqual(
      {
        rate_limit_requests: null,
        storage_quota_bytes: 1000,
      },
    );
    expect(() => keys('set', key)).toThrow();
    expect(() => keys('set', key, '--rate-limit', '0')).toThrow();
  });

  it('sets the file-count limit at creation and later with --max-files (0 allowed, default clears it)', () => {
    const key = lastLine(keys('create', '--name', 'few files', '--max-files', '0'));
    const hash = createHash('sha256').update(key).digest('hex');
    const maxFiles = () => rows(`SELECT max_files FROM api_keys WHERE key_hash = '${hash}'`)[0];
    expect(maxFiles()).toEqual({ max_files: 0 });
    keys('set', key, '--max-files', '25');
    expect(maxFiles()).toEqual({ max_files: 25 });
    keys('set', key, '--max-files', 'default');
    expect(maxFiles()).toEqual({ max_files: null });
  });

  it('manages accounts: a key founds one, another joins it with scopes, limits are the account’s', () => {
    const founderOut = keys('create', '--name', 'acme', '--quota', '5000');
    const founder = lastLine(founderOut);
    const hash = createHash('sha256').update(founder).digest('hex');
    const [row] = rows(`SELECT id, account_id, scopes FROM api_keys WHERE key_hash = '${hash}'`);
    expect(row).toMatchObject({ account_id: row?.id, scopes: null });
    const account = String(row?.account_id);
    // The output says the key made an account of its own, and which, before the key (still the last line).
    expect(founderOut).toContain(`in a NEW account, ${account}`);
    expect(rows(`SELECT name, storage_quota_bytes FROM accounts WHERE id = '${account}'`)[0]).toEqual({
      name: 'acme',
      storage_quota_bytes: 5000,
    });

    const joinedOut = keys('create', '--name', 'acme ci', '--account', account, '--scope', 'files:write');
    expect(joinedOut).toContain(`in account ${account}.`);
    expect(joinedOut).not.toContain('NEW account');
    const joined = lastLine(joinedOut);
    const joinedHash = createHash('sha256').update(joined).digest('hex');
    expect(rows(`SELECT account_id, scopes FROM api_keys WHERE key_hash = '${joinedHash}'`)[0]).toEqual({
      account_id: account,
      scopes: '["files:write"]',
    });
    expect(keys('list', '--account', account).trim().split('\n')).toHaveLength(2);
    expect(keys('accounts')).toContain(`${account}\tacme\t2 active keys`);

    keys('account-set', account, '--quota', '700', '--max-files', '3');
    expect(rows(`SELECT storage_quota_bytes, max_files FROM accounts WHERE id = '${account}'`)[0]).toEqual({
      storage_quota_bytes: 700,
      max_files: 3,
    });
    // A key's own --quota is its account's.
    keys('set', founder, '--quota', '900');
    expect(rows(`SELECT storage_quota_bytes FROM accounts WHERE id = '${account}'`)[0]).toEqual({
      storage_quota_bytes: 900,
    });
    expect(() => keys('create', '--name', 'x', '--account', account, '--quota', '1')).toThrow();
    expect(() => keys('create', '--name', 'x', '--scope', 'files:everything')).toThrow();
  });

  it('account-set sets, lifts and clears an account’s policy overrides, and refuses values the API refuses', async () => {
    const founder = (await seedKey('bounded')).key;
    const hash = createHash('sha256').update(founder).digest('hex');
    const account = String(rows(`SELECT account_id FROM api_keys WHERE key_hash = '${hash}'`)[0]?.account_id);
    const policy = () => rows(`SELECT policy FROM accounts WHERE id = '${account}'`)[0]?.policy;
    expect(policy()).toBeNull();

    keys('account-set', account, '--link-max-downloads', '10', '--link-require-password', 'true', '--quota', '800');
    expect(JSON.parse(String(policy()))).toEqual({ linkMaxDownloads: 10, linkRequirePassword: true });
    expect(rows(`SELECT storage_quota_bytes FROM accounts WHERE id = '${account}'`)[0]).toEqual({
      storage_quota_bytes: 800,
    });
    // Only the bounds named change; `off` lifts a configured bound for the account.
    keys('account-set', account, '--file-max-expiry', '86400', '--link-require-password', 'off');
    expect(JSON.parse(String(policy()))).toEqual({
      linkMaxDownloads: 10,
      linkRequirePassword: false,
      fileMaxExpirySeconds: 86400,
    });
    expect(keys('accounts')).toContain('"fileMaxExpirySeconds":86400');

    for (const bad of [
      ['--file-max-expiry', '10'],
      ['--link-max-downloads', 'many'],
      ['--password-min-length', '201'],
      ['--link-require-expiry', '12'],
    ]) {
      expect(() => keys('account-set', account, ...bad), bad.join(' ')).toThrow(new RegExp(bad[0] as string));
    }
    expect(JSON.parse(String(policy()))).toMatchObject({ linkMaxDownloads: 10 });

    // `default` clears each override; with none left the column is NULL again.
    keys(
      'account-set',
      account,
      '--link-max-downloads',
      'default',
      '--link-require-password',
      'default',
      '--file-max-expiry',
      'default',
    );
    expect(policy()).toBeNull();
  });

  it('list escapes control characters in names stored before they were refused, and create refuses them', () => {
    const id = 'key_ctrlnamectrlname';
    const name = 'evil\u001b[2J\u0007\ttab\nline\u009b\u202e';
    const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
    rows(
      `INSERT INTO api_keys (id, key_hash, prefix, name, status, created_at, updated_at) VALUES ('${id}', '${'0'.repeat(64)}', 'esk_ctrl', ${literal(name)}, 'active', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z')`,
    );
    const line = keys('list')
      .split('\n')
      .find((text) => text.startsWith(id));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202e]/);
    expect(line?.split('\t')).toHaveLength(5);
    expect(line?.endsWith('evil\\u{1b}[2J\\u{07}\\u{09}tab\\u{0a}line\\u{9b}\\u{202e}')).toBe(true);
    expect(() => keys('create', '--name', 'bad\u001bname')).toThrow(/control characters/);
  });

  it('create refuses the bidi controls the API refuses, and stores nothing', () => {
    const before = rows('SELECT COUNT(*) AS n FROM api_keys')[0];
    for (const name of ['ops\u200flaptop', 'ops\u200elaptop', 'ops\u061claptop', 'ops\u202eexe.txt', 'ops\u2066x']) {
      expect(() => keys('create', '--name', name), JSON.stringify(name)).toThrow(/name must not contain control/);
    }
    expect(() => keys('create', '--name', 'x'.repeat(101))).toThrow(/at most 100 characters/);
    expect(() => keys('create', '--name', '   ')).toThrow(/must not be empty/);
    expect(rows('SELECT COUNT(*) AS n FROM api_keys')[0]).toEqual(before);
  });

  it('block-hash puts SHA-256 values on the blocklist once each; the other abuse tools need the running service', () => {
    const [first, second] = ['AB'.repeat(32), 'cd'.repeat(32)];
    expect(keys('block-hash', first, second, '--reason', 'a known bad file')).toContain('Blocked 2 hashes');
    expect(rows('SELECT sha256, reason FROM blocklist ORDER BY sha256')).toEqual([
      { sha256: 'ab'.repeat(32), reason: 'a known bad file' },
      { sha256: second, reason: 'a known bad file' },
    ]);
    expect(keys('block-hash', second)).toContain('Blocked 0 hashes (1 already were)');
    expect(() => keys('block-hash', 'not-hex')).toThrow(/not a SHA-256/);
    // The others go through the admin API (R2, the keys' objects, the owners' notices): an address, never --remote.
    expect(() => keys('quarantine', 'some-file', '--statement', 'held', '--remote')).toThrow(/--url, not --remote/);
    const unreachable = () =>
      execFileSync(process.execPath, [join(root, 'scripts/keys.ts'), 'reports', '--url', 'http://127.0.0.1:9'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ADMIN_TOKEN: 'x'.repeat(32) },
      });
    expect(unreachable).toThrow(/could not reach http:\/\/127.0.0.1:9/);
  });

  it('revoke, set and account-set wait until a running service has the change, unless --no-wait', async () => {
    const { key } = await seedKey('waited for');
    const started = performance.now();
    expect(run(['revoke', key])).toContain('Revoked');
    expect(performance.now() - started).toBeGreaterThanOrEqual(KEY_STATE_MAX_AGE_MS);
  });

  it('refuses a create without a name and an unknown key to revoke', () => {
    expect(() => keys('create')).toThrow();
    expect(() => keys('revoke', 'key_doesnotexist')).toThrow();
  });
});

describe('the local D1 database of the scripts', () => {
  it('is named as wrangler names it: preview_database_id, else database_id, else the binding', () => {
    const block = (lines: string) =>
      `[vars]\nA = "1"\n\n[[d1_databases]]\nbinding = "DB"\n${lines}\n[[queues.producers]]\nbinding = "Q"\n`;
    expect(localD1Config(block('database_name = "edgeshare"\nmigrations_dir = "migrations"'))).toMatchObject({
      id: 'DB',
      migrationsDir: join(root, 'migrations'),
      migrationsTable: 'd1_migrations',
    });
    expect(localD1Config(block('database_id = "uuid-1"')).id).toBe('uuid-1');
    expect(localD1Config(block('database_id = "uuid-1"\npreview_database_id = "uuid-2"')).id).toBe('uuid-2');
    expect(localD1Config(block('migrations_dir = "db/m"\nmigrations_table = "done"'))).toMatchObject({
      migrationsDir: join(root, 'db/m'),
      migrationsTable: 'done',
    });
    expect(() => localD1Config('[[d1_databases]]\nbinding = "OTHER"\n')).toThrow(/binding = "DB"/);
    expect(localD1Config(readFileSync(join(root, 'wrangler.toml'), 'utf8')).id).toBe('DB');
  });
});

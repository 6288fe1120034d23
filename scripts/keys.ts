// npm run keys -- create --name NAME [--account ID] [--scope SCOPE]… [--expires-at ISO] [--rate-limit N] [--rate-window SECONDS] [--quota BYTES] [--max-files N]
// npm run keys -- list [--account ID]
// npm run keys -- revoke ID_OR_KEY
// npm run keys -- set ID_OR_KEY [--rate-limit N|default] [--rate-window SECONDS|default] [--quota BYTES|default] [--max-files N|default]
// npm run keys -- accounts
// npm run keys -- account-set ACCOUNT_ID [--quota BYTES|default] [--max-files N|default] [policy flags, below]
// npm run keys -- reports | resolve | quarantine | release | remove | suspend | unsuspend | block-hash:
// the operator's abuse tools (scripts/keys-moderation.ts: through the running service's admin API,
// but block-hash).
// A key made without --account founds an account of its own (the account takes the key's id and
// its --quota/--max-files); --quota and --max-files are always the account's limits.
// Local database by default; --remote for the deployed one; --persist-to DIR for another local state.
import { parseArgs } from 'node:util';
import { KEY_STATE_MAX_AGE_MS, newKeyMaterial } from '../src/keys/key-material.ts';
import { KeyNameSchema, printableName } from '../src/keys/key-name.ts';
import { sha256Hex } from '../src/lib/crypto.ts';
import { SCOPES } from '../src/limiter/scopes.ts';
import { PolicyOverridesPatchSchema, type PolicyRule } from '../src/policy/schemas.ts';
import { MODERATION_COMMANDS, MODERATION_USAGE, runModeration } from './keys-moderation.ts';
import { closeLocalDatabases, exitOnWranglerError, literal, sql, type Target } from './wrangler.ts';

const USAGE = `usage:
  npm run keys -- create --name NAME [--rate-limit N] [--rate-window SECONDS] [--quota BYTES] [--max-files N]
                 [--account ID] [--scope SCOPE]… [--expires-at ISO-8601]
  npm run keys -- list [--account ID]
  npm run keys -- revoke ID_OR_KEY
  npm run keys -- set ID_OR_KEY [--rate-limit N|default] [--rate-window SECONDS|default] [--quota BYTES|default] [--max-files N|default]
  npm run keys -- accounts
  npm run keys -- account-set ACCOUNT_ID [--quota BYTES|default] [--max-files N|default]
                 [--link-max-expiry SECONDS] [--link-require-expiry true] [--link-require-password true]
                 [--link-max-downloads N] [--password-min-length N] [--file-max-expiry SECONDS]
                 [--file-require-expiry true] [--request-max-expiry SECONDS] [--request-max-bytes BYTES]
${MODERATION_USAGE}
                 [--e2e-allowed true|false]
  Policy flags (the account's own bounds, docs/policy.md) take a value, \`off\` to lift the configured
  bound for the account (false for the true/false ones), or \`default\` to follow the configuration again.
A key made without --account founds an account of its own (with its --quota and --max-files);
with --account it joins that account. Scopes (default: all): ${SCOPES.join(', ')}.
options: --remote (the deployed database), --persist-to DIR (another local state),
  --no-wait (revoke, set, account-set: return at once; a running service applies the change within 3 s)`;

type KeyListRow = {
  id: string;
  status: string;
  prefix: string;
  name: string;
  created_at: string;
  account_id: string;
  scopes: string;
  expires_at: string | null;
  last_used_at: string | null;
};

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function positiveInt(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  if (!/^\d+$/.test(value)) fail(`${flag} must be a whole number`);
  // A quota or file limit may be 0 (read-only key); a rate limit or window of 0 would refuse everything.
  if (flag !== '--quota' && flag !== '--max-files' && Number(value) === 0) fail(`${flag} must be at least 1`);
  return Number(value);
}

/**
 * A change made in D1 reaches a running service when the key's Durable Object next reads the
 * key (it rereads after KEY_STATE_MAX_AGE_MS): wait that long, so the change is in effect
 * everywhere when this command returns, unless --no-wait. (The admin API applies changes at once.)
 */
const settled = () =>
  values['no-wait'] ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, KEY_STATE_MAX_AGE_MS + 500));

/** A `set` value: a whole number, or `default` to clear the override (NULL). */
function overrideValue(value: string, flag: string): string {
  return value === 'default' ? 'NULL' : String(positiveInt(value, flag));
}

/** account-set's policy flags: each sets one of the account's policy overrides (src/policy/schemas.ts). */
const POLICY_FLAGS: [string, PolicyRule][] = [
  ['link-max-expiry', 'linkMaxExpirySeconds'],
  ['link-require-expiry', 'linkRequireExpiry'],
  ['link-require-password', 'linkRequirePassword'],
  ['link-max-downloads', 'linkMaxDownloads'],
  ['password-min-length', 'passwordMinLength'],
  ['file-max-expiry', 'fileMaxExpirySeconds'],
  ['file-require-expiry', 'fileRequireExpiry'],
  ['request-max-expiry', 'requestMaxExpirySeconds'],
  ['request-max-bytes', 'requestMaxBytes'],
  ['e2e-allowed', 'e2eAllowed'],
];

/**
 * The policy flags given, as a JSON merge patch of the account's overrides (null clears one),
 * checked by the schema the admin API uses; undefined when none is given.
 */
function policyPatch(flags: Record<string, unknown>): string | undefined {
  const patch: Record<string, number | boolean | null> = {};
  for (const [flag, rule] of POLICY_FLAGS) {
    const value = flags[flag];
    if (typeof value !== 'string') continue;
    if (value === 'default') patch[rule] = null;
    else if (value === 'off' || value === 'false') patch[rule] = false;
    else if (value === 'true') patch[rule] = true;
    else if (/^\d+$/.test(value)) patch[rule] = Number(value);
    else fail(`--${flag} takes a whole number, true, off or default`);
  }
  if (Object.keys(patch).length === 0) return undefined;
  const parsed = PolicyOverridesPatchSchema.safeParse(patch);
  if (!parsed.success) {
    const flagOf = (rule: unknown) => POLICY_FLAGS.find(([, name]) => name === rule)?.[0] ?? String(rule);
    fail(parsed.error.issues.map((issue) => `--${flagOf(issue.path[0])}: ${issue.message}`).join('; '));
  }
  return JSON.stringify(parsed.data);
}

/** The WHERE clause that picks a key by its id (key_…) or by the key itself (esk_…). */
async function keyWhere(idOrKey: string): Promise<string> {
  return idOrKey.startsWith('esk_') ? `key_hash = ${literal(await sha256Hex(idOrKey))}` : `id = ${literal(idOrKey)}`;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    'rate-limit': { type: 'string' },
    'rate-window': { type: 'string' },
    quota: { type: 'string' },
    'max-files': { type: 'string' },
    account: { type: 'string' },
    scope: { type: 'string', multiple: true },
    'expires-at': { type: 'string' },
    remote: { type: 'boolean', default: false },
    'persist-to': { type: 'string' },
    'no-wait': { type: 'boolean', default: false },
    // The abuse tools (scripts/keys-moderation.ts).
    url: { type: 'string' },
    statement: { type: 'string' },
    action: { type: 'string' },
    status: { type: 'string' },
    reason: { type: 'string' },
    'block-hash': { type: 'boolean', default: false },
    ...Object.fromEntries(POLICY_FLAGS.map(([flag]) => [flag, { type: 'string' as const }])),
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const [command, argument, ...more] = positionals;
if (values.help || !command) {
  console.log(USAGE);
  process.exit(command || values.help ? 0 : 2);
}
const target: Target = { remote: values.remote ?? false, persistTo: values['persist-to'] };
try {
  await run();
} catch (error) {
  exitOnWranglerError(error);
} finally {
  await closeLocalDatabases();
}

function isModeration(name: string): name is (typeof MODERATION_COMMANDS)[number] {
  return (MODERATION_COMMANDS as readonly string[]).includes(name);
}

async function run(): Promise<void> {
  if (command && isModeration(command)) {
    const args = argument === undefined ? [] : [argument, ...more];
    return runModeration(command, args, values, target, fail);
  }
  switch (command) {
    case 'create': {
      if (values.name === undefined) fail('create needs --name NAME');
      // The API's own rule for a key's name (src/keys/key-name.ts), so no path stores what another refuses.
      const parsed = KeyNameSchema.safeParse(values.name);
      if (!parsed.success) fail(`--name: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
      const name = parsed.data;
      const rateLimit = positiveInt(values['rate-limit'], '--rate-limit');
      const rateWindow = positiveInt(values['rate-window'], '--rate-window');
      const quota = positiveInt(values.quota, '--quota');
      const maxFiles = positiveInt(values['max-files'], '--max-files');
      const account = values.account;
      if (account && (quota !== null || maxFiles !== null)) {
        fail('--quota and --max-files are the account’s: npm run keys -- account-set ACCOUNT_ID');
      }
      const scopes = values.scope ?? [];
      const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
      if (unknown.length > 0) fail(`unknown scope: ${unknown.join(', ')}`);
      const expiresAt = values['expires-at'];
      if (expiresAt !== undefined && !(Date.parse(expiresAt) > Date.now()))
        fail('--expires-at must be a future ISO 8601 time');
      const material = await newKeyMaterial();
      const now = new Date().toISOString();
      const extra = {
        account_id: account ?? null,
        scopes: scopes.length > 0 ? JSON.stringify(SCOPES.filter((scope) => scopes.includes(scope))) : null,
        expires_at: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
      };
      if (
        account &&
        (await sql<{ id: string }>(target, `SELECT id FROM accounts WHERE id = ${literal(account)}`)).length === 0
      ) {
        console.error('no such account');
        process.exit(1);
      }
      // Without an account_id, the key founds its own account (a trigger of migration 0006).
      await sql(
        target,
        `INSERT INTO api_keys (id, key_hash, prefix, name, status, rate_limit_requests, rate_limit_window_seconds, storage_quota_bytes, max_files, created_at, updated_at, account_id, scopes, expires_at)
       VALUES (${[material.id, material.keyHash, material.prefix, name, 'active'].map(literal).join(', ')}, ${literal(rateLimit)}, ${literal(rateWindow)}, ${literal(quota)}, ${literal(maxFiles)}, ${literal(now)}, ${literal(now)}, ${literal(extra.account_id)}, ${literal(extra.scopes)}, ${literal(extra.expires_at)})`,
      );
      // Say which account: a key of a new account sees none of another account's files.
      console.log(
        account
          ? `Created key ${material.id} (${name}) in account ${account}. It is shown once; store it now:`
          : `Created key ${material.id} (${name}) in a NEW account, ${material.id}: it sees only that account's files (for a key to an existing account's files: --account ID, ids in npm run keys -- accounts). It is shown once; store it now:`,
      );
      console.log(material.key);
      break;
    }
    case 'list': {
      const where = values.account ? `WHERE account_id = ${literal(values.account)}` : '';
      const rows = await sql<KeyListRow>(
        target,
        `SELECT id, status, prefix, name, created_at, account_id, COALESCE(scopes, 'all') AS scopes, expires_at, last_used_at
         FROM api_keys ${where} ORDER BY created_at, id`,
      );
      // Names stored before control characters were refused are escaped, never printed raw.
      for (const row of rows) {
        // The status column carries the account, scopes, expiry and last use; the name stays last.
        const status = [row.status, `account=${row.account_id}`, `scopes=${row.scopes}`];
        if (row.expires_at) status.push(`expires=${row.expires_at}`);
        if (row.last_used_at) status.push(`used=${row.last_used_at}`);
        console.log([row.id, status.join(' '), `${row.prefix}…`, row.created_at, printableName(row.name)].join('\t'));
      }
      if (rows.length === 0) console.error('no keys yet: npm run keys -- create --name NAME');
      break;
    }
    case 'revoke': {
      if (!argument) fail('revoke needs a key id (key_…) or the key itself (esk_…)');
      const where = await keyWhere(argument);
      const now = literal(new Date().toISOString());
      const rows = await sql<{ id: string }>(
        target,
        `UPDATE api_keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, ${now}), updated_at = ${now} WHERE ${where} RETURNING id`,
      );
      if (rows.length === 0) {
        console.error('no such key');
        process.exit(1);
      }
      await settled();
      console.log(`Revoked ${rows[0]?.id}`);
      break;
    }
    case 'set': {
      if (!argument) fail('set needs a key id (key_…) or the key itself (esk_…)');
      const columns: [string, string | undefined, string][] = [
        ['rate_limit_requests', values['rate-limit'], '--rate-limit'],
        ['rate_limit_window_seconds', values['rate-window'], '--rate-window'],
        ['storage_quota_bytes', values.quota, '--quota'],
        ['max_files', values['max-files'], '--max-files'],
      ];
      const sets = columns.flatMap(([column, value, flag]) =>
        value === undefined ? [] : [`${column} = ${overrideValue(value, flag)}`],
      );
      if (sets.length === 0) fail('set needs at least one of --rate-limit, --rate-window, --quota, --max-files');
      const now = literal(new Date().toISOString());
      const rows = await sql<{ id: string }>(
        target,
        `UPDATE api_keys SET ${sets.join(', ')}, updated_at = ${now} WHERE ${await keyWhere(argument)} RETURNING id`,
      );
      if (rows.length === 0) {
        console.error('no such key');
        process.exit(1);
      }
      await settled();
      console.log(`Updated ${rows[0]?.id}`);
      break;
    }
    case 'accounts': {
      const rows = await sql<{
        id: string;
        name: string;
        keys: number;
        quota: number | null;
        max_files: number | null;
        policy: string | null;
      }>(
        target,
        `SELECT a.id, a.name, a.storage_quota_bytes AS quota, a.max_files, a.policy,
           (SELECT COUNT(*) FROM api_keys k WHERE k.account_id = a.id AND k.status = 'active') AS keys
         FROM accounts a ORDER BY a.created_at, a.id`,
      );
      for (const row of rows) {
        const limits = `quota ${row.quota ?? 'default'}, max files ${row.max_files ?? 'default'}`;
        // The policy overrides as stored (JSON); the configuration decides every bound not named.
        const policy = `policy ${row.policy ?? 'default'}`;
        console.log([row.id, row.name, `${row.keys} active keys`, limits, policy].join('\t'));
      }
      break;
    }
    case 'account-set': {
      if (!argument) fail('account-set needs an account id');
      const columns: [string, string | undefined, string][] = [
        ['storage_quota_bytes', values.quota, '--quota'],
        ['max_files', values['max-files'], '--max-files'],
      ];
      const sets = columns.flatMap(([column, value, flag]) =>
        value === undefined ? [] : [`${column} = ${overrideValue(value, flag)}`],
      );
      const policy = policyPatch(values);
      // A merge patch: only the bounds named change; an object left empty is stored as NULL.
      if (policy) sets.push(`policy = NULLIF(json_patch(COALESCE(policy, '{}'), ${literal(policy)}), '{}')`);
      if (sets.length === 0) fail('account-set needs --quota, --max-files or a policy flag (see --help)');
      const now = literal(new Date().toISOString());
      const rows = await sql<{ id: string }>(
        target,
        `UPDATE accounts SET ${sets.join(', ')}, updated_at = ${now} WHERE id = ${literal(argument)} RETURNING id`,
      );
      if (rows.length === 0) {
        console.error('no such account');
        process.exit(1);
      }
      await settled();
      console.log(`Updated account ${rows[0]?.id}`);
      break;
    }
    default:
      fail(`unknown command: ${command}`);
  }
}

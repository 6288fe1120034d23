// npm run keys -- create --name NAME [--rate-limit N] [--rate-window SECONDS] [--quota BYTES] [--max-files N]
// npm run keys -- list
// npm run keys -- revoke ID_OR_KEY
// npm run keys -- set ID_OR_KEY [--rate-limit N|default] [--rate-window SECONDS|default] [--quota BYTES|default] [--max-files N|default]
// Local database by default; --remote for the deployed one; --persist-to DIR for another local state.
import { parseArgs } from 'node:util';
import { KEY_STATE_MAX_AGE_MS, newKeyMaterial } from '../src/keys/key-material.ts';
import { hasControlCharacters, printableName } from '../src/keys/key-name.ts';
import { sha256Hex } from '../src/lib/crypto.ts';
import { exitOnWranglerError, literal, sql, type Target } from './wrangler.ts';

const USAGE = `usage:
  npm run keys -- create --name NAME [--rate-limit N] [--rate-window SECONDS] [--quota BYTES] [--max-files N]
  npm run keys -- list
  npm run keys -- revoke ID_OR_KEY
  npm run keys -- set ID_OR_KEY [--rate-limit N|default] [--rate-window SECONDS|default] [--quota BYTES|default] [--max-files N|default]
options: --remote (the deployed database), --persist-to DIR (another local state)`;

type KeyListRow = { id: string; status: string; prefix: string; name: string; created_at: string };

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
 * everywhere when this command returns. (The admin API applies changes at once.)
 */
const settled = () => new Promise((resolve) => setTimeout(resolve, KEY_STATE_MAX_AGE_MS + 500));

/** A `set` value: a whole number, or `default` to clear the override (NULL). */
function overrideValue(value: string, flag: string): string {
  return value === 'default' ? 'NULL' : String(positiveInt(value, flag));
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
    remote: { type: 'boolean', default: false },
    'persist-to': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const [command, argument] = positionals;
if (values.help || !command) {
  console.log(USAGE);
  process.exit(command || values.help ? 0 : 2);
}
const target: Target = { remote: values.remote ?? false, persistTo: values['persist-to'] };
try {
  await run();
} catch (error) {
  exitOnWranglerError(error);
}

async function run(): Promise<void> {
  switch (command) {
    case 'create': {
      const name = values.name?.trim();
      if (!name) fail('create needs --name NAME');
      if (name.length > 100) fail('--name is at most 100 characters');
      if (hasControlCharacters(name)) fail('--name must not contain control characters');
      const rateLimit = positiveInt(values['rate-limit'], '--rate-limit');
      const rateWindow = positiveInt(values['rate-window'], '--rate-window');
      const quota = positiveInt(values.quota, '--quota');
      const maxFiles = positiveInt(values['max-files'], '--max-files');
      const material = await newKeyMaterial();
      const now = new Date().toISOString();
      sql(
        target,
        `INSERT INTO api_keys (id, key_hash, prefix, name, status, rate_limit_requests, rate_limit_window_seconds, storage_quota_bytes, max_files, created_at, updated_at)
       VALUES (${[material.id, material.keyHash, material.prefix, name, 'active'].map(literal).join(', ')}, ${literal(rateLimit)}, ${literal(rateWindow)}, ${literal(quota)}, ${literal(maxFiles)}, ${literal(now)}, ${literal(now)})`,
      );
      console.log(`Created key ${material.id} (${name}). It is shown once; store it now:`);
      console.log(material.key);
      break;
    }
    case 'list': {
      const rows = sql<KeyListRow>(
        target,
        'SELECT id, status, prefix, name, created_at FROM api_keys ORDER BY created_at, id',
      );
      // Names stored before control characters were refused are escaped, never printed raw.
      for (const row of rows) {
        console.log([row.id, row.status, `${row.prefix}…`, row.created_at, printableName(row.name)].join('\t'));
      }
      if (rows.length === 0) console.error('no keys yet: npm run keys -- create --name NAME');
      break;
    }
    case 'revoke': {
      if (!argument) fail('revoke needs a key id (key_…) or the key itself (esk_…)');
      const where = await keyWhere(argument);
      const now = literal(new Date().toISOString());
      const rows = sql<{ id: string }>(
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
      const rows = sql<{ id: string }>(
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
    default:
      fail(`unknown command: ${command}`);
  }
}

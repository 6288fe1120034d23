// npm run keys -- reports | resolve | quarantine | release | remove | suspend | unsuspend | block-hash:
// the operator's abuse tools from the command line (docs/abuse.md). Every action but block-hash
// goes through the running service's admin API, since its effects reach past D1: a removal
// deletes the file's bytes from R2 and gives its quota back, a suspension tells every key's object
// at once, and each action sends the owner's notice through the events queue. So these take
// --url (default EDGESHARE_URL, else http://127.0.0.1:8787) and ADMIN_TOKEN from the environment or
// .dev.vars, never from the command line. block-hash is one row of the blocklist, which every
// upload reads: it works on the database like the key commands (--remote, --persist-to).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { printableName } from '../src/keys/key-name.ts';
import { literal, ROOT, sql, type Target } from './wrangler.ts';

export const MODERATION_COMMANDS = [
  'reports',
  'resolve',
  'quarantine',
  'release',
  'remove',
  'suspend',
  'unsuspend',
  'block-hash',
] as const;

export const MODERATION_USAGE = `  npm run keys -- reports [--status open|resolved]
  npm run keys -- resolve REPORT_ID --action dismiss|quarantine|remove|suspend --statement TEXT
  npm run keys -- quarantine FILE_ID --statement TEXT
  npm run keys -- release FILE_ID [--statement TEXT]
  npm run keys -- remove FILE_ID --statement TEXT [--block-hash]
  npm run keys -- suspend ACCOUNT_ID --statement TEXT
  npm run keys -- unsuspend ACCOUNT_ID [--statement TEXT]
  npm run keys -- block-hash SHA256… [--reason TEXT]
  All but block-hash call the running service's admin API (--url URL, default EDGESHARE_URL or
  http://127.0.0.1:8787) with ADMIN_TOKEN from the environment or .dev.vars (never a flag);
  block-hash writes the blocklist on the database (--remote, --persist-to DIR).`;

export type ModerationFlags = {
  url?: string;
  statement?: string;
  action?: string;
  status?: string;
  reason?: string;
  'block-hash'?: boolean;
  remote?: boolean;
};

type Fail = (message: string) => never;

/** ADMIN_TOKEN from the environment, else from .dev.vars (the file npm run dev reads). */
function adminToken(fail: Fail): string {
  const fromEnv = process.env.ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = join(ROOT, '.dev.vars');
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
      const match = /^\s*ADMIN_TOKEN\s*=\s*(.*?)\s*$/.exec(line);
      const value = match?.[1]?.replace(/^(["'])(.*)\1$/, '$2');
      if (value) return value;
    }
  }
  return fail('set ADMIN_TOKEN in the environment (or in .dev.vars) to the service’s admin token');
}

type Envelope = { data?: unknown; error?: string; code?: string; details?: { field: string; message: string }[] };

/** One admin API call; its `data`, or exit 1 with the error the service gave. */
async function admin<T>(base: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(new URL(`/admin${path}`, base), {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    console.error(`could not reach ${base}: ${(error as Error).message} (is the service running? --url)`);
    process.exit(1);
  }
  const envelope = (await response.json().catch(() => ({}))) as Envelope;
  if (response.ok) return envelope.data as T;
  const details = (envelope.details ?? []).map((detail) => `${detail.field}: ${detail.message}`).join('; ');
  console.error(
    `${response.status} ${envelope.code ?? ''} ${envelope.error ?? 'the service refused'}${details ? ` (${details})` : ''}`.trim(),
  );
  process.exit(1);
}

type Report = {
  id: string;
  status: string;
  target: { type: string; id: string; accountId: string | null } | null;
  reason: string;
  details: string | null;
  contact: string | null;
  linkWithKey: string | null;
  reporters: number;
  createdAt: string;
  resolution: { action: string; statement: string } | null;
};

/** One line per report: id, status, time, reason, target, account, reporters, then what the reporter wrote (escaped). */
function reportLine(report: Report): string {
  const target = report.target ? `${report.target.type}:${report.target.id}` : 'nothing';
  const fields = [
    report.id,
    report.status,
    report.createdAt,
    report.reason,
    target,
    `account=${report.target?.accountId ?? '-'}`,
    `reporters=${report.reporters}`,
  ];
  if (report.resolution) fields.push(`decided=${report.resolution.action}`);
  if (report.contact) fields.push(`contact=${printableName(report.contact)}`);
  if (report.linkWithKey) fields.push(`link-with-key=${printableName(report.linkWithKey)}`);
  if (report.details) fields.push(`details=${printableName(report.details)}`);
  return fields.join('\t');
}

const SHA256 = /^[0-9a-f]{64}$/;

/** The direct actions: their admin path, what they act on, whether a statement is required, what is printed. */
const ACTIONS = {
  quarantine: { path: 'files', what: 'a file id', stated: true, done: 'Quarantined' },
  release: { path: 'files', what: 'a file id', stated: false, done: 'Released' },
  remove: { path: 'files', what: 'a file id', stated: true, done: 'Removed' },
  suspend: { path: 'accounts', what: 'an account id', stated: true, done: 'Suspended' },
  unsuspend: { path: 'accounts', what: 'an account id', stated: false, done: 'Unsuspended' },
} as const;

/** Runs one of MODERATION_COMMANDS. */
export async function runModeration(
  command: (typeof MODERATION_COMMANDS)[number],
  args: string[],
  flags: ModerationFlags,
  target: Target,
  fail: Fail,
): Promise<void> {
  if (command === 'block-hash') {
    const hashes = args.map((hash) => hash.toLowerCase());
    if (hashes.length === 0) fail('block-hash needs one or more SHA-256 values (hex)');
    const bad = hashes.filter((hash) => !SHA256.test(hash));
    if (bad.length > 0) fail(`not a SHA-256 (64 hex digits): ${bad.join(', ')}`);
    const now = literal(new Date().toISOString());
    const values = hashes.map((hash) => `(${literal(hash)}, ${literal(flags.reason)}, ${now})`).join(', ');
    const rows = await sql<{ sha256: string }>(
      target,
      `INSERT INTO blocklist (sha256, reason, created_at) VALUES ${values} ON CONFLICT (sha256) DO NOTHING RETURNING sha256`,
    );
    const already = new Set(hashes).size - rows.length;
    console.log(
      `Blocked ${rows.length} ${rows.length === 1 ? 'hash' : 'hashes'}${already ? ` (${already} already were)` : ''}`,
    );
    return;
  }
  if (flags.remote) fail(`${command} calls the running service: give its address with --url, not --remote`);
  const base = flags.url ?? process.env.EDGESHARE_URL ?? 'http://127.0.0.1:8787';
  if (!URL.canParse(base)) fail(`--url must be the service’s address, e.g. https://files.example.com`);
  const token = adminToken(fail);
  const [id] = args;
  const statement = flags.statement?.trim() || undefined;
  const needs = (what: string) => (id ? encodeURIComponent(id) : fail(`${command} needs ${what}`));
  const stated = () =>
    statement ?? fail(`${command} needs --statement TEXT: the owner gets it, visitors see it on the 451`);
  const call = <T>(method: string, path: string, body?: unknown) => admin<T>(base, token, method, path, body);

  switch (command) {
    case 'reports': {
      const status = flags.status ?? 'open';
      if (status !== 'open' && status !== 'resolved') fail('--status is open or resolved');
      let cursor: string | null = null;
      let count = 0;
      do {
        const query = `?status=${status}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: { reports: Report[]; nextCursor: string | null } = await call('GET', `/reports${query}`);
        for (const report of page.reports) console.log(reportLine(report));
        count += page.reports.length;
        cursor = page.nextCursor;
      } while (cursor);
      if (count === 0) console.error(`no ${status} reports`);
      return;
    }
    case 'resolve': {
      const report = needs('a report id (rpt_…)');
      const action = flags.action ?? fail('resolve needs --action dismiss|quarantine|remove|suspend');
      const done = await call<{ report: Report; resolved: string[] }>('POST', `/reports/${report}/resolve`, {
        action,
        statement: stated(),
      });
      console.log(
        `Resolved ${done.resolved.length} ${done.resolved.length === 1 ? 'report' : 'reports'}: ${done.resolved.join(' ')}`,
      );
      return;
    }
    default: {
      const act = ACTIONS[command];
      const body: { statement?: string; blockHash?: true } | undefined = act.stated
        ? { statement: stated() }
        : statement
          ? { statement }
          : undefined;
      const blocking = command === 'remove' && flags['block-hash'] === true;
      if (body && blocking) body.blockHash = true;
      const done = await call<{ id: string; sha256?: string | null }>(
        'POST',
        `/${act.path}/${needs(act.what)}/${command}`,
        body,
      );
      console.log(`${act.done} ${done.id}${blocking ? `; blocked ${done.sha256}` : ''}`);
      return;
    }
  }
}

import { DurableObject } from 'cloudflare:workers';
import {
  type BeginRequest,
  type BeginResult,
  type CompleteRequest,
  IDEMPOTENCY_TTL_MS,
  type ReleaseRequest,
  type StoredResponse,
} from './idempotency-store-contract';

type EntryRow = {
  fingerprint: string;
  state: 'running' | 'done';
  lease_until: number;
  status: number | null;
  headers: string | null;
  body: ArrayBuffer | null;
  body_digest: string | null;
};

/**
 * One object per account (named by the account's id): the account's Idempotency-Key entries,
 * handled one call at a time, so two requests with one key can never both start. An entry is
 * `running` (with a lease that outlives the longest request) until the request's response is
 * stored (`done`) or it is released (a 5xx or 429, which a retry may run again). Entries are
 * kept IDEMPOTENCY_TTL_MS from their creation, then removed on the next call and by an alarm.
 */
export class IdempotencyStore extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS entries (
      key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, state TEXT NOT NULL, token TEXT NOT NULL,
      lease_until INTEGER NOT NULL, created_at INTEGER NOT NULL,
      status INTEGER, headers TEXT, body BLOB)`);
    ctx.storage.sql.exec('CREATE INDEX IF NOT EXISTS entries_by_age ON entries (created_at)');
    // An upload's body digest (added with the fingerprint of upload bodies; older objects lack it).
    const columns = ctx.storage.sql.exec<{ name: string }>('PRAGMA table_info(entries)').toArray();
    if (!columns.some((column) => column.name === 'body_digest')) {
      ctx.storage.sql.exec('ALTER TABLE entries ADD COLUMN body_digest TEXT');
    }
  }

  async begin(request: BeginRequest): Promise<BeginResult> {
    const now = request.now ?? Date.now();
    this.#purge(now);
    const row = this.ctx.storage.sql
      .exec<EntryRow>(
        'SELECT fingerprint, state, lease_until, status, headers, body, body_digest FROM entries WHERE key = ?',
        request.key,
      )
      .toArray()[0];
    const live = row && (row.state === 'done' || row.lease_until > now);
    if (row && live) {
      if (row.fingerprint !== request.fingerprint) return { state: 'mismatch' };
      if (row.state === 'running') return { state: 'running' };
      return { state: 'done', response: responseOf(row), bodyDigest: row.body_digest };
    }
    const token = crypto.randomUUID();
    this.ctx.storage.sql.exec(
      `INSERT OR REPLACE INTO entries (key, fingerprint, state, token, lease_until, created_at)
       VALUES (?, ?, 'running', ?, ?, ?)`,
      request.key,
      request.fingerprint,
      token,
      now + request.leaseMs,
      now,
    );
    await this.#scheduleAlarm(now);
    return { state: 'started', token };
  }

  /** Stores the response of the run that holds `token` (nothing if the entry was taken over). */
  async complete(request: CompleteRequest): Promise<boolean> {
    const { response } = request;
    const cursor = this.ctx.storage.sql.exec(
      `UPDATE entries SET state = 'done', status = ?, headers = ?, body = ?, body_digest = ?
       WHERE key = ? AND token = ? AND state = 'running'`,
      response.status,
      JSON.stringify(response.headers),
      response.body,
      request.bodyDigest ?? null,
      request.key,
      request.token,
    );
    return cursor.rowsWritten > 0;
  }

  /** Forgets a running entry, so a retry runs the request again (after a 5xx or a 429). */
  async release(request: ReleaseRequest): Promise<void> {
    this.ctx.storage.sql.exec(
      "DELETE FROM entries WHERE key = ? AND token = ? AND state = 'running'",
      request.key,
      request.token,
    );
  }

  /** How many entries the account holds (tests and operators). */
  async size(now = Date.now()): Promise<number> {
    this.#purge(now);
    return this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM entries').one().n;
  }

  override async alarm(): Promise<void> {
    const now = Date.now();
    this.#purge(now);
    const oldest = this.ctx.storage.sql
      .exec<{ at: number | null }>('SELECT MIN(created_at) AS at FROM entries')
      .one().at;
    if (oldest !== null) await this.ctx.storage.setAlarm(oldest + IDEMPOTENCY_TTL_MS);
  }

  #purge(now: number): void {
    this.ctx.storage.sql.exec('DELETE FROM entries WHERE created_at <= ?', now - IDEMPOTENCY_TTL_MS);
  }

  async #scheduleAlarm(now: number): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now + IDEMPOTENCY_TTL_MS);
  }
}

function responseOf(row: EntryRow): StoredResponse {
  return {
    status: row.status ?? 500,
    headers: row.headers ? (JSON.parse(row.headers) as string[][]) : [],
    body: new Uint8Array(row.body ?? new ArrayBuffer(0)),
  };
}

// One access log inside a Durable Object's own SQLite: the object of a share link (LinkCounter)
// or of a file request (FileRequestCounter) keeps its subject's events beside its counts. The
// tables are made on first use, so an object whose URL nobody visits never has them.
import {
  ACCESS_LOG_MAX_EVENTS,
  type AccessEntry,
  type AccessPage,
  type AccessSummary,
  type AppendRequest,
  type PageRequest,
  type StoredEntry,
} from './access-log-contract';

const DAY_MS = 24 * 60 * 60 * 1000;
const STATE_KEY = 'access';

/** Kept apart from the events, so the last access and the drops outlive the events themselves. */
type State = { lastAt: number | null; dropped: number };

type Row = {
  seq: number;
  at: number;
  kind: string;
  outcome: string;
  status: number;
  bytes: number;
  range: number;
  country: string | null;
  asn: number | null;
  as_org: string | null;
  colo: string | null;
  client: string;
  visitor: string;
};

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS access_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, kind TEXT NOT NULL, outcome TEXT NOT NULL,
    status INTEGER NOT NULL, bytes INTEGER NOT NULL, range INTEGER NOT NULL, country TEXT, asn INTEGER,
    as_org TEXT, colo TEXT, client TEXT NOT NULL, visitor TEXT NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS access_events_by_time ON access_events (at, seq)',
  // Distinct visitors among the kept events, counted as they come and go: a record reads one count.
  'CREATE TABLE IF NOT EXISTS access_visitors (visitor TEXT PRIMARY KEY, events INTEGER NOT NULL)',
];

const entryOf = (row: Row): StoredEntry => ({
  seq: row.seq,
  at: row.at,
  kind: row.kind as AccessEntry['kind'],
  outcome: row.outcome as AccessEntry['outcome'],
  status: row.status,
  bytes: row.bytes,
  range: row.range === 1,
  country: row.country,
  asn: row.asn,
  asOrganization: row.as_org,
  colo: row.colo,
  client: row.client as AccessEntry['client'],
  visitor: row.visitor,
});

/**
 * The log: at most ACCESS_LOG_MAX_EVENTS events (the oldest go first), none older than
 * `retentionDays` (deleted when the log is next written or read, and by the owner's alarm at
 * the oldest event's end, see `nextExpiry`).
 */
export class AccessLogTable {
  readonly #storage: DurableObjectStorage;
  readonly #retentionMs: number;
  #ready = false;

  constructor(storage: DurableObjectStorage, retentionDays: number) {
    this.#storage = storage;
    this.#retentionMs = retentionDays * DAY_MS;
  }

  /** Adds a batch (and the drops it reports); returns when the oldest kept event expires, or null. */
  append(request: AppendRequest): number | null {
    const sql = this.#sql();
    const state = this.#state();
    for (const event of request.events) {
      sql.exec(
        `INSERT INTO access_events (at, kind, outcome, status, bytes, range, country, asn, as_org, colo, client, visitor)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        event.at,
        event.kind,
        event.outcome,
        event.status,
        event.bytes,
        event.range ? 1 : 0,
        event.country,
        event.asn,
        event.asOrganization,
        event.colo,
        event.client,
        event.visitor,
      );
      sql.exec(
        'INSERT INTO access_visitors (visitor, events) VALUES (?, 1) ON CONFLICT (visitor) DO UPDATE SET events = events + 1',
        event.visitor,
      );
      state.lastAt = Math.max(state.lastAt ?? event.at, event.at);
    }
    state.dropped += request.dropped;
    this.#storage.kv.put(STATE_KEY, state);
    this.prune(request.now);
    return this.nextExpiry();
  }

  /** Events older than `before` (or the newest), at most `limit`, newest first. */
  page(request: PageRequest): AccessPage {
    this.prune(request.now);
    const droppedEvents = this.#state().dropped;
    if (!this.#exists()) return { events: [], droppedEvents };
    const before = request.before;
    const rows = before
      ? this.#sql().exec<Row>(
          'SELECT * FROM access_events WHERE at < ? OR (at = ? AND seq < ?) ORDER BY at DESC, seq DESC LIMIT ?',
          before.at,
          before.at,
          before.seq,
          request.limit,
        )
      : this.#sql().exec<Row>('SELECT * FROM access_events ORDER BY at DESC, seq DESC LIMIT ?', request.limit);
    return { events: rows.toArray().map(entryOf), droppedEvents };
  }

  summary(now?: number): AccessSummary {
    const state = this.#state();
    if (!this.#exists()) return { lastAccessAt: state.lastAt, visitors: 0, droppedEvents: state.dropped };
    this.prune(now);
    const visitors = this.#sql().exec<{ n: number }>('SELECT COUNT(*) AS n FROM access_visitors').one().n;
    return { lastAccessAt: state.lastAt, visitors, droppedEvents: state.dropped };
  }

  /** Deletes what is past the retention period or beyond the newest ACCESS_LOG_MAX_EVENTS. */
  prune(now = Date.now()): void {
    if (!this.#exists()) return;
    const sql = this.#sql();
    const gone = [
      ...sql.exec<{ visitor: string }>(
        'DELETE FROM access_events WHERE at < ? RETURNING visitor',
        now - this.#retentionMs,
      ),
      ...sql.exec<{ visitor: string }>(
        'DELETE FROM access_events WHERE seq <= (SELECT MAX(seq) FROM access_events) - ? RETURNING visitor',
        ACCESS_LOG_MAX_EVENTS,
      ),
    ];
    if (gone.length === 0) return;
    const counts = new Map<string, number>();
    for (const { visitor } of gone) counts.set(visitor, (counts.get(visitor) ?? 0) + 1);
    for (const [visitor, events] of counts) {
      sql.exec('UPDATE access_visitors SET events = events - ? WHERE visitor = ?', events, visitor);
    }
    sql.exec('DELETE FROM access_visitors WHERE events <= 0');
  }

  /** When the oldest kept event passes the retention period (ms since the epoch), or null. */
  nextExpiry(): number | null {
    if (!this.#exists()) return null;
    const oldest = this.#sql().exec<{ at: number | null }>('SELECT MIN(at) AS at FROM access_events').one().at;
    return oldest === null ? null : oldest + this.#retentionMs;
  }

  #state(): State {
    return this.#storage.kv.get<State>(STATE_KEY) ?? { lastAt: null, dropped: 0 };
  }

  /** Whether the tables exist (an object whose URL nobody visited has none; reading makes none). */
  #exists(): boolean {
    if (this.#ready) return true;
    const found = this.#storage.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'access_events'")
      .one().n;
    this.#ready = found > 0;
    return this.#ready;
  }

  #sql(): SqlStorage {
    if (!this.#ready) {
      for (const statement of SCHEMA) this.#storage.sql.exec(statement);
      this.#ready = true;
    }
    return this.#storage.sql;
  }
}

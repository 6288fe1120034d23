import { DurableObject } from 'cloudflare:workers';
import { fromBase64Url, toBase64Url } from '../lib/encoding';
import { liveFilesOfAccount } from '../storage/account-usage-repo';
import type {
  AccountCommitRequest,
  AccountFreeRequest,
  AccountRescheduleRequest,
  AccountReserveRequest,
  AccountUsageRequest,
  CommitResult,
  Grant,
  OpenRequest,
  QuotaLimits,
  ReserveResult,
  Usage,
  VisitorKeyRequest,
} from './account-storage-contract';

type Account = { bytes: number; files: number };
type Hold = {
  seq: number;
  at: number;
  needBytes: number;
  needFiles: number;
  declaredBytes: number;
  declaredFiles: number;
  /** Set for a reservation: its own end (instead of `at` + the hold TTL). */
  until?: number;
};

// The account: bytes and files of live files (expiry tracked in the `expiring` table).
const ACCOUNT_KEY = 'account';
// The visitor secrets of the access log, by period (base64url).
const VISITOR_KEYS_KEY = 'visitor-keys';
type VisitorKeys = Record<number, string>;
const HOLDS_KEY = 'holds';
const SEQ_KEY = 'seq';

const holdBytes = (hold: Hold) => Math.max(hold.needBytes, hold.declaredBytes);
const holdFiles = (hold: Hold) => Math.max(hold.needFiles, hold.declaredFiles);

/**
 * One object per account (named by the account's id): the account's storage, shared by all of
 * its keys. It keeps the bytes and number of the account's live files, plus holds of uploads in
 * flight, and handles one call at a time, so the quota and the file limit are exact however
 * many uploads race for them, through however many keys.
 *
 * The account is the only judge of the quota: an upload's files are committed here before their
 * rows are written, and a commit is refused when it would pass the quota or the file limit,
 * whatever happened to holds. Holds only let uploads stop early: an upload asks again when it
 * passes its grant, and is refused when what it needs does not fit beside the account and what
 * older holds need. Older holds come first, so parallel uploads that fit are accepted rather
 * than refusing each other. A reservation (a hold with its own end: a tus upload's length)
 * counts against every other hold and commit, whatever their age, until it ends.
 * Files with an expiry leave the account the moment they expire (table `expiring`).
 */
export class AccountStorage extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS expiring (
      file_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, size INTEGER NOT NULL)`);
    ctx.storage.sql.exec('CREATE INDEX IF NOT EXISTS expiring_by_time ON expiring (expires_at)');
  }

  /** Opens a hold for an upload's declared bound (as much of it as fits). */
  async open(request: OpenRequest): Promise<Grant> {
    const now = request.now ?? Date.now();
    const account = (await this.#account(request.accountId, now)).account;
    const holds = this.#holds(now, request.limits.holdTtlMs);
    const id = crypto.randomUUID();
    const hold = this.#newHold(now);
    const room = this.#room(account, holds, hold.seq, request.limits);
    hold.declaredBytes = Math.max(0, Math.min(request.bytes, room.bytes));
    hold.declaredFiles = Math.max(0, Math.min(request.files, room.files));
    holds[id] = hold;
    this.ctx.storage.kv.put(HOLDS_KEY, holds);
    return { id, bytes: hold.declaredBytes, files: hold.declaredFiles };
  }

  /** Updates what a hold needs; refuses when the need does not fit beside the account and older holds. */
  async reserve(request: AccountReserveRequest): Promise<ReserveResult> {
    const now = request.now ?? Date.now();
    const account = (await this.#account(request.accountId, now)).account;
    const holds = this.#holds(now, request.limits.holdTtlMs);
    const id = request.holdId && holds[request.holdId] ? request.holdId : crypto.randomUUID();
    const hold = holds[id] ?? this.#newHold(now);
    const room = this.#room(account, holds, hold.seq, request.limits);
    if (request.needBytes > room.bytes) return { grant: null, exceeded: 'bytes' };
    if (request.needFiles > room.files) return { grant: null, exceeded: 'files' };
    hold.needBytes = request.needBytes;
    hold.needFiles = request.needFiles;
    if (request.until !== undefined) hold.until = request.until;
    holds[id] = hold;
    this.ctx.storage.kv.put(HOLDS_KEY, holds);
    return {
      exceeded: null,
      grant: {
        id,
        bytes: Math.max(request.needBytes, Math.min(request.needBytes + request.aheadBytes, room.bytes)),
        files: Math.max(request.needFiles, Math.min(request.needFiles + request.aheadFiles, room.files)),
      },
    };
  }

  /**
   * Makes stored files count, in order, as long as each fits the quota and the file limit;
   * the rest are refused. The hold (if any) ends here. Called before the files' rows are
   * written, so a row never exists for bytes the account refused.
   */
  async commit(request: AccountCommitRequest): Promise<CommitResult> {
    const now = request.now ?? Date.now();
    const { account } = await this.#account(request.accountId, now);
    // Reservations of other uploads (tus) keep their room, whoever commits first.
    const reserved = { bytes: 0, files: 0 };
    const ending = new Set([request.holdId, ...(request.holdIds ?? [])]);
    for (const [id, hold] of Object.entries(this.#holds(now, request.limits.holdTtlMs))) {
      if (hold.until === undefined || ending.has(id)) continue;
      reserved.bytes += hold.needBytes;
      reserved.files += hold.needFiles;
    }
    const result: CommitResult = { accepted: [], refused: [] };
    for (const file of request.files) {
      if (account.bytes + reserved.bytes + file.size > request.limits.quotaBytes) {
        result.refused.push({ id: file.id, exceeded: 'bytes' });
      } else if (account.files + reserved.files + 1 > request.limits.maxFiles) {
        result.refused.push({ id: file.id, exceeded: 'files' });
      } else {
        account.bytes += file.size;
        account.files += 1;
        result.accepted.push(file.id);
        const expiresAt = file.expiresAt === null ? Number.NaN : Date.parse(file.expiresAt);
        if (expiresAt > now) {
          this.ctx.storage.sql.exec(
            'INSERT OR REPLACE INTO expiring (file_id, expires_at, size) VALUES (?, ?, ?)',
            file.id,
            expiresAt,
            file.size,
          );
        }
      }
    }
    this.ctx.storage.kv.put(ACCOUNT_KEY, account);
    if (request.holdId) this.release(request.holdId);
    // Converted reservations (a tus final upload's partials) end only with the file they became:
    // refused, they keep holding their partials' bytes.
    if (result.accepted.length > 0) for (const holdId of request.holdIds ?? []) this.release(holdId);
    return result;
  }

  release(holdId: string): void {
    const holds = this.ctx.storage.kv.get<Record<string, Hold>>(HOLDS_KEY) ?? {};
    if (!(holdId in holds)) return;
    delete holds[holdId];
    this.ctx.storage.kv.put(HOLDS_KEY, holds);
  }

  /**
   * Files were deleted (or their rows removed by the sweep): they no longer count. A file that
   * has already expired left the account when it expired, so it is not taken off twice.
   */
  async free(request: AccountFreeRequest): Promise<void> {
    const now = request.now ?? Date.now();
    const { account, fresh } = await this.#account(request.accountId, now);
    // Rebuilt just now from D1, where the rows are already gone: the account is the truth as it is.
    if (fresh) return;
    for (const file of request.files) {
      if (file.expiresAt !== null && Date.parse(file.expiresAt) <= now) continue;
      account.bytes = Math.max(0, account.bytes - file.size);
      account.files = Math.max(0, account.files - 1);
      this.ctx.storage.sql.exec('DELETE FROM expiring WHERE file_id = ?', file.id);
    }
    this.ctx.storage.kv.put(ACCOUNT_KEY, account);
  }

  /**
   * Files' expiry changed (their rows already carry the new one): they leave the account when
   * the new time comes, at once if it has passed, or never (null). `previous` is the expiry they
   * had, so a file that had already left the account is counted again if it lives on.
   */
  async reschedule(request: AccountRescheduleRequest): Promise<void> {
    const now = request.now ?? Date.now();
    const { account, fresh } = await this.#account(request.accountId, now);
    // Rebuilt just now from D1, which already holds the new expiry.
    if (fresh) return;
    for (const file of request.files) {
      const before = file.previous === null ? Number.POSITIVE_INFINITY : Date.parse(file.previous);
      const after = file.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(file.expiresAt);
      const counted = before > now;
      this.ctx.storage.sql.exec('DELETE FROM expiring WHERE file_id = ?', file.id);
      if (after > now && after !== Number.POSITIVE_INFINITY) {
        this.ctx.storage.sql.exec(
          'INSERT INTO expiring (file_id, expires_at, size) VALUES (?, ?, ?)',
          file.id,
          after,
          file.size,
        );
      }
      const delta = (after > now ? 1 : 0) - (counted ? 1 : 0);
      account.bytes = Math.max(0, account.bytes + delta * file.size);
      account.files = Math.max(0, account.files + delta);
    }
    this.ctx.storage.kv.put(ACCOUNT_KEY, account);
  }

  async usage(request: AccountUsageRequest): Promise<Usage> {
    const now = request.now ?? Date.now();
    const { account } = await this.#account(request.accountId, now);
    const holds = Object.values(this.#holds(now, request.limits?.holdTtlMs ?? Number.POSITIVE_INFINITY));
    return {
      usedBytes: account.bytes,
      files: account.files,
      heldBytes: holds.reduce((sum, hold) => sum + holdBytes(hold), 0),
      heldFiles: holds.reduce((sum, hold) => sum + holdFiles(hold), 0),
    };
  }

  /**
   * The secret that names the account's visitors in access logs for the period `now` falls in
   * (src/access-log/visitor-id.ts): random, made at the period's first use, kept for that period
   * and the one after (late events), then deleted, so no id can ever be linked across periods.
   * A period older than that gets a secret nobody keeps.
   */
  visitorKey(request: VisitorKeyRequest): ArrayBuffer {
    const period = Math.floor((request.now ?? Date.now()) / request.periodMs);
    const stored = this.ctx.storage.kv.get<VisitorKeys>(VISITOR_KEYS_KEY) ?? {};
    const known = stored[period];
    if (known) return fromBase64Url(known)?.slice().buffer ?? new ArrayBuffer(0);
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const newest = Math.max(period, ...Object.keys(stored).map(Number));
    if (period < newest - 1) return secret.buffer;
    const kept: VisitorKeys = { [period]: toBase64Url(secret) };
    for (const [other, value] of Object.entries(stored)) if (Number(other) >= newest - 1) kept[Number(other)] = value;
    this.ctx.storage.kv.put(VISITOR_KEYS_KEY, kept);
    return secret.buffer;
  }

  /** Rebuilds the account from its rows in D1 (tests, and repairs by hand). */
  async resync(accountId: string, now = Date.now()): Promise<Usage> {
    this.ctx.storage.kv.delete(ACCOUNT_KEY);
    await this.#account(accountId, now);
    return this.usage({ accountId, now });
  }

  #newHold(now: number): Hold {
    const seq = (this.ctx.storage.kv.get<number>(SEQ_KEY) ?? 0) + 1;
    this.ctx.storage.kv.put(SEQ_KEY, seq);
    return { seq, at: now, needBytes: 0, needFiles: 0, declaredBytes: 0, declaredFiles: 0 };
  }

  /**
   * What is left for a hold: the limits less the account, what every older hold needs, and every
   * other reservation. A declared bound (a Content-Length, which counts the form's framing too)
   * only sizes a grant; counting it here would refuse a file that fits exactly. The commit is
   * exact either way.
   */
  #room(account: Account, holds: Record<string, Hold>, seq: number, limits: QuotaLimits) {
    let bytes = limits.quotaBytes - account.bytes;
    let files = limits.maxFiles - account.files;
    for (const hold of Object.values(holds)) {
      if (hold.seq === seq || (hold.seq > seq && hold.until === undefined)) continue;
      bytes -= hold.needBytes;
      files -= hold.needFiles;
    }
    return { bytes, files };
  }

  /**
   * Holds of live requests; those past the TTL (their Worker died) are dropped, and
   * reservations past their own end (their upload's object failed to release them).
   */
  #holds(now: number, ttlMs: number): Record<string, Hold> {
    const holds = this.ctx.storage.kv.get<Record<string, Hold>>(HOLDS_KEY) ?? {};
    for (const [id, hold] of Object.entries(holds)) if ((hold.until ?? hold.at + ttlMs) < now) delete holds[id];
    return holds;
  }

  /**
   * The account, with files that have expired by `now` taken off. The first time, it is built
   * from the account's live rows in D1 (an account that had files before its object existed,
   * such as a key's before accounts, starts from the truth); `fresh` says so. Other calls wait
   * while that runs.
   */
  async #account(accountId: string, now: number): Promise<{ account: Account; fresh: boolean }> {
    let account = this.ctx.storage.kv.get<Account>(ACCOUNT_KEY);
    let fresh = false;
    if (!account) {
      await this.ctx.blockConcurrencyWhile(async () => {
        account = this.ctx.storage.kv.get<Account>(ACCOUNT_KEY) ?? (await this.#load(accountId, now));
        fresh = true;
      });
    }
    if (!account) throw new Error('account not loaded');
    const due = this.ctx.storage.sql
      .exec<{ n: number; bytes: number }>(
        'SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM expiring WHERE expires_at <= ?',
        now,
      )
      .one();
    if (due.n > 0) {
      this.ctx.storage.sql.exec('DELETE FROM expiring WHERE expires_at <= ?', now);
      account.bytes = Math.max(0, account.bytes - due.bytes);
      account.files = Math.max(0, account.files - due.n);
      this.ctx.storage.kv.put(ACCOUNT_KEY, account);
    }
    return { account, fresh };
  }

  async #load(accountId: string, now: number): Promise<Account> {
    const live = await liveFilesOfAccount(this.env.DB, accountId, new Date(now).toISOString());
    this.ctx.storage.sql.exec('DELETE FROM expiring');
    for (const file of live.expiring) {
      this.ctx.storage.sql.exec(
        'INSERT INTO expiring (file_id, expires_at, size) VALUES (?, ?, ?)',
        file.id,
        file.expiresAt,
        file.size,
      );
    }
    const account = { bytes: live.bytes, files: live.files };
    this.ctx.storage.kv.put(ACCOUNT_KEY, account);
    return account;
  }
}

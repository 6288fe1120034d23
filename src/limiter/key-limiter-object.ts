import { DurableObject } from 'cloudflare:workers';
import type { AccountStorage } from '../accounts/account-storage-object';
import { findKeyState, overridesOf, touchLastUsed } from '../storage/keys-repo';
import {
  type AccountFile,
  type AdmitRequest,
  type AdmitResult,
  type AuthorizeRequest,
  type AuthorizeResult,
  type CommitRequest,
  type CommitResult,
  KEY_STATE_MAX_AGE_MS,
  type KeyState,
  type KeyUpdate,
  type QuotaLimits,
  type ReserveRequest,
  type ReserveResult,
  type Usage,
} from './key-limiter-contract';
import { effectiveLimits } from './limits';
import { hasScope, parseScopes } from './scopes';

type WindowState = { start: number; count: number };
type StoredKeyState = KeyState & { checkedAt: number };
/** When the key was last used, and the use last written to D1 (ms). */
type LastUse = { at: number; written: number };

const WINDOW_KEY = 'window';
const KEY_STATE_KEY = 'key';
/** When the key was last used (ms), and when that was last written to D1. */
const LAST_USED_KEY = 'lastUsed';
/** lastUsedAt reaches D1 at most this often per key (from an alarm, never from a request). */
export const LAST_USED_FLUSH_MS = 60_000;
// Before accounts, the key's object kept the storage account itself; the account's object has
// rebuilt it from D1 since, so these are dropped when the key is next read.
const FORMER_ACCOUNT_KEYS = ['account', 'holds', 'seq', 'used', 'reservations'];

/**
 * One object per API key (named by the key's id). It checks the key on every request (hash,
 * status, expiry, scope), counts requests in fixed windows aligned to multiples of the window
 * length, and notes when the key was last used (written to D1 by an alarm, at most once a
 * minute). The object handles one call at a time, so the count is exact under any concurrency.
 *
 * Storage (quota and file count) is the key's account's, kept by the account's object
 * (AccountStorage, src/accounts/): an upload's hold and a usage read are passed on to it from
 * here, so the Worker still makes one call; the storage methods below pass calls on likewise
 * for callers that know only the key.
 */
export class KeyLimiter extends DurableObject<Env> {
  /**
   * The object's small values (key state, window, last use) as last read or written: every write
   * goes through #put, and nothing else writes this object's storage, so the copy is never stale.
   * A request then reads no storage and writes the window and the last use.
   */
  readonly #values = new Map<string, unknown>();

  #get<T>(name: string): T | undefined {
    if (this.#values.has(name)) return this.#values.get(name) as T | undefined;
    const value = this.ctx.storage.kv.get<T>(name);
    this.#values.set(name, value);
    return value;
  }

  #put<T>(name: string, value: T): void {
    this.ctx.storage.kv.put(name, value);
    this.#values.set(name, value);
  }

  /**
   * One trip for an authenticated request: checks the presented key against the key's state
   * (from D1 at first use and again once it is older than KEY_STATE_MAX_AGE_MS; the admin API
   * and the keys routes update it at once), resolves its limits, counts the request, checks the
   * route's scope and, for an upload, holds storage in the account.
   */
  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const now = request.now ?? Date.now();
    const state = await this.#keyState(request.keyId, now);
    if (
      state?.status !== 'active' ||
      state.hash !== request.keyHash ||
      (state.expiresAt !== null && state.expiresAt <= now)
    ) {
      return { limits: null, admission: null };
    }
    // A state stored before suspensions has none.
    if (state.suspension) return { limits: null, admission: null, suspended: { statement: state.suspension } };
    const key = {
      id: state.id,
      accountId: state.accountId,
      scopes: state.scopes,
      expiresAt: state.expiresAt,
      // A state stored before policies has none.
      policy: state.policy ?? null,
    };
    const limits = effectiveLimits(state.overrides, request.defaults);
    const quota = { quotaBytes: limits.storageQuotaBytes, maxFiles: limits.maxFiles, holdTtlMs: limits.holdTtlMs };
    const forbidden = request.scope !== null && !hasScope(state.scopes, request.scope) ? request.scope : undefined;
    const admission = await this.admit({
      limit: limits.rateLimitRequests,
      windowSeconds: limits.rateLimitWindowSeconds,
      now,
      count: request.count,
      // A request refused for its scope holds nothing.
      hold:
        request.hold && !forbidden
          ? { keyId: state.id, accountId: state.accountId, ...request.hold, limits: quota }
          : undefined,
    });
    await this.#used(now);
    if (forbidden) return { limits, admission, key, forbidden };
    if (!request.usage || !admission.allowed) return { limits, admission, key };
    const usage = await this.#account(state.accountId).usage({ accountId: state.accountId, limits: quota, now });
    return { limits, admission, key, usage };
  }

  /**
   * Whether the key may still act: active and unexpired, as authorize() judges it (its state read
   * from D1 again once older than KEY_STATE_MAX_AGE_MS, and told of a revocation at once). A tus
   * upload asks again right before its file is recorded: the key may have gone while it streamed.
   */
  async isActive(request: { keyId: string; now?: number }): Promise<boolean> {
    const now = request.now ?? Date.now();
    const state = await this.#keyState(request.keyId, now);
    return state?.status === 'active' && (state.expiresAt === null || state.expiresAt > now);
  }

  /** The key changed (revoked, expiry or overrides set): applies at once. Without a state yet, nothing to do. */
  updateKey(update: KeyUpdate): void {
    const state = this.#get<StoredKeyState>(KEY_STATE_KEY);
    if (!state) return;
    const overrides = { ...state.overrides, ...update.overrides };
    this.#put(KEY_STATE_KEY, { ...state, ...update, overrides, checkedAt: Date.now() });
  }

  async admit(request: AdmitRequest): Promise<AdmitResult> {
    const now = request.now ?? Date.now();
    const windowMs = request.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const reset = Math.ceil((start + windowMs) / 1000);

    // Only the current window is kept: storage stays one small value per key.
    const stored = this.#get<WindowState>(WINDOW_KEY);
    const count = stored && stored.start === start ? stored.count : 0;
    if (request.count === false) {
      return { allowed: true, limit: request.limit, remaining: Math.max(0, request.limit - count), reset };
    }
    if (count >= request.limit) {
      return { allowed: false, limit: request.limit, remaining: 0, reset };
    }
    this.#put(WINDOW_KEY, { start, count: count + 1 } satisfies WindowState);
    const result: AdmitResult = { allowed: true, limit: request.limit, remaining: request.limit - count - 1, reset };
    if (request.hold) {
      const { keyId, accountId, ...hold } = request.hold;
      const account = this.#accountIdOf(keyId, accountId);
      result.grant = await this.#account(account).open({ ...hold, accountId: account, now });
    }
    return result;
  }

  // ---- the account's storage, for callers that know only the key (see AccountStorage) ----

  reserve(request: ReserveRequest): Promise<ReserveResult> {
    const { keyId, accountId, ...rest } = request;
    const account = this.#accountIdOf(keyId, accountId);
    return this.#account(account).reserve({ ...rest, accountId: account });
  }

  commit(request: CommitRequest): Promise<CommitResult> {
    const { keyId, accountId, ...rest } = request;
    const account = this.#accountIdOf(keyId, accountId);
    return this.#account(account).commit({ ...rest, accountId: account });
  }

  release(holdId: string, accountId?: string): Promise<void> {
    return this.#account(this.#accountIdOf(undefined, accountId)).release(holdId);
  }

  free(request: { keyId: string; accountId?: string; files: AccountFile[]; now?: number }): Promise<void> {
    const account = this.#accountIdOf(request.keyId, request.accountId);
    return this.#account(account).free({ accountId: account, files: request.files, now: request.now });
  }

  reschedule(request: {
    keyId: string;
    accountId?: string;
    files: (AccountFile & { previous: string | null })[];
    now?: number;
  }): Promise<void> {
    const account = this.#accountIdOf(request.keyId, request.accountId);
    return this.#account(account).reschedule({ accountId: account, files: request.files, now: request.now });
  }

  usage(request: { keyId: string; accountId?: string; limits?: QuotaLimits; now?: number }): Promise<Usage> {
    const account = this.#accountIdOf(request.keyId, request.accountId);
    return this.#account(account).usage({ accountId: account, limits: request.limits, now: request.now });
  }

  resync(keyId: string, now = Date.now()): Promise<Usage> {
    const account = this.#accountIdOf(keyId);
    return this.#account(account).resync(account, now);
  }

  /** Writes when the key was last used to D1: at most once per LAST_USED_FLUSH_MS. */
  override async alarm(): Promise<void> {
    const used = this.#get<LastUse>(LAST_USED_KEY);
    const state = this.#get<StoredKeyState>(KEY_STATE_KEY);
    if (!used || !state || used.written >= used.at) return;
    await touchLastUsed(this.env.DB, state.id, new Date(used.at).toISOString());
    // Requests go on while D1 writes: a use noted meanwhile is kept, and (#used saw a write due and
    // scheduled none) its own write is scheduled here, a minute after this one.
    const latest = this.#get<LastUse>(LAST_USED_KEY) ?? used;
    this.#put(LAST_USED_KEY, { at: latest.at, written: used.at });
    if (latest.at > used.at && (await this.ctx.storage.getAlarm()) === null) {
      await this.ctx.storage.setAlarm(used.at + LAST_USED_FLUSH_MS);
    }
  }

  /** Notes a use; the first one since the last write schedules the next write. */
  async #used(now: number): Promise<void> {
    const used = this.#get<LastUse>(LAST_USED_KEY) ?? { at: 0, written: 0 };
    this.#put(LAST_USED_KEY, { ...used, at: now });
    if (used.at > used.written) return; // a write is already due
    if ((await this.ctx.storage.getAlarm()) !== null) return;
    await this.ctx.storage.setAlarm(Math.max(now, used.written + LAST_USED_FLUSH_MS));
  }

  /**
   * The account a storage call is for: the one named, else the key's (known once the key has
   * been used), else the key's own id (every key made before accounts is its account's id).
   */
  #accountIdOf(keyId?: string, accountId?: string): string {
    const known = this.#get<StoredKeyState>(KEY_STATE_KEY)?.accountId;
    const id = accountId ?? known ?? keyId ?? this.ctx.id.name;
    if (!id) throw new Error('storage call without an account');
    return id;
  }

  #account(accountId: string): DurableObjectStub<AccountStorage> {
    return this.env.ACCOUNT_STORAGE.getByName(accountId);
  }

  async #keyState(keyId: string, now: number): Promise<KeyState | undefined> {
    const known = this.#get<StoredKeyState>(KEY_STATE_KEY);
    if (known && now - known.checkedAt < KEY_STATE_MAX_AGE_MS) return known;
    let row: Awaited<ReturnType<typeof findKeyState>>;
    try {
      row = await findKeyState(this.env.DB, keyId);
    } catch (error) {
      // D1 unreachable: a state we have is better than none (it is at most a few seconds old).
      if (known) return known;
      throw error;
    }
    // Unknown ids are never stored: the Worker only sends ids it found in D1.
    if (!row) return undefined;
    const state: StoredKeyState = {
      id: keyId,
      hash: row.key_hash,
      status: row.status,
      accountId: row.account_id,
      scopes: parseScopes(row.scopes),
      expiresAt: row.expires_at === null ? null : Date.parse(row.expires_at),
      overrides: overridesOf(row),
      policy: row.policy,
      suspension: row.suspension_statement,
      checkedAt: now,
    };
    if (!known) {
      for (const name of FORMER_ACCOUNT_KEYS) this.ctx.storage.kv.delete(name);
      this.ctx.storage.sql.exec('DROP TABLE IF EXISTS expiring');
    }
    this.#put(KEY_STATE_KEY, state);
    return state;
  }
}

// Calls to an account's storage object: an upload's quota ticket and a tus upload's reservation
// (straight to the account, whoever the owner: a key's account or a file request's), and code that
// knows the account but no key (the tus upload objects, deletes, the sweep). A request's admission
// holds storage through the key's object (limiter/key-limiter-client.ts), which passes it on.
import { ApiError } from '../errors';
import { formatBytes } from '../lib/format';
import { log } from '../log';
import type {
  AccountFile,
  Exceeded,
  Grant,
  QuotaLimits,
  ReserveResult,
  StorageOwner,
} from './account-storage-contract';
import type { AccountStorage } from './account-storage-object';

export type AccountsNamespace = DurableObjectNamespace<AccountStorage>;

const accountOf = (namespace: AccountsNamespace, accountId: string) => namespace.getByName(accountId);

/**
 * Gives back a hold (or reservation) that will never be committed. A failure is logged, or
 * thrown with `rethrow` (a caller that retries).
 */
export async function releaseHold(
  namespace: AccountsNamespace,
  accountId: string,
  holdId: string,
  options: { rethrow?: boolean } = {},
): Promise<void> {
  try {
    await accountOf(namespace, accountId).release(holdId);
  } catch (error) {
    log('error', 'hold not released', { accountId, error: String(error) });
    if (options.rethrow) throw error;
  }
}

/** Takes deleted files off their owners' accounts: one call per account. A failure is logged. */
export async function freeFiles(namespace: AccountsNamespace, files: (AccountFile & { accountId: string })[]) {
  const byAccount = new Map<string, AccountFile[]>();
  for (const { accountId, ...file } of files) byAccount.set(accountId, [...(byAccount.get(accountId) ?? []), file]);
  await Promise.all(
    [...byAccount].map(([accountId, owned]) =>
      accountOf(namespace, accountId)
        .free({ accountId, files: owned })
        .catch((error: unknown) => {
          log('error', 'quota not given back', { accountId, files: owned.length, error: String(error) });
        }),
    ),
  );
}

/** The 413 for an account at its limit, stating the limit. */
export function storageExceeded(limits: QuotaLimits, exceeded: Exceeded): ApiError {
  return exceeded === 'files'
    ? new ApiError(
        'STORAGE_EXCEEDED',
        `File limit reached: this account may keep at most ${limits.maxFiles} files (its keys share them)`,
      )
    : new ApiError(
        'STORAGE_EXCEEDED',
        `Storage limit reached: this account may store at most ${limits.quotaBytes} bytes (${formatBytes(limits.quotaBytes)}), shared by its keys`,
      );
}

/**
 * Reserves storage for a tus upload: `bytes` and one file, held against every other upload of the
 * owner's account until released, committed, or `until`. Throws STORAGE_EXCEEDED when the account
 * has no room, and SERVICE_UNAVAILABLE when its object cannot be reached. Returns the
 * reservation's id.
 */
export async function reserveStorage(
  namespace: AccountsNamespace,
  owner: StorageOwner,
  bytes: number,
  until: number,
): Promise<string> {
  let result: ReserveResult;
  try {
    result = await accountOf(namespace, owner.accountId).reserve({
      accountId: owner.accountId,
      needBytes: bytes,
      needFiles: 1,
      aheadBytes: 0,
      aheadFiles: 0,
      limits: owner.limits,
      until,
    });
  } catch (error) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'Storage accounting is unavailable, try again', { cause: error });
  }
  if (!result.grant) throw storageExceeded(owner.limits, result.exceeded ?? 'bytes');
  return result.grant.id;
}

// Headroom asked for beyond what is needed: an eighth of it, between 256 KiB and 8 MiB. A large
// upload makes few calls; parallel uploads hold little more than they have read.
const MIN_AHEAD = 256 * 1024;
const MAX_AHEAD = 8 * 1024 * 1024;
const MAX_AHEAD_FILES = 10;

/**
 * The storage one upload request may use. Each file being written states how many bytes it
 * has so far; past what the key's object granted at admission, the ticket asks the account's
 * object, and refuses (STORAGE_EXCEEDED) when the account has no room. Commit makes the files
 * count, and is where the quota is finally enforced.
 */
export class QuotaTicket {
  readonly #accounts: AccountsNamespace;
  readonly #owner: StorageOwner;
  #grant: Grant | undefined;
  readonly #needs = new Map<string, number>();
  readonly #converts: string[];

  /**
   * `converts`: reservations (tus partial uploads) the commit ends in the same step, their room
   * becoming the committed files' (a tus final upload). Never released by this ticket otherwise.
   */
  constructor(accounts: AccountsNamespace, owner: StorageOwner, grant?: Grant, converts: string[] = []) {
    this.#accounts = accounts;
    this.#owner = owner;
    this.#grant = grant;
    this.#converts = converts;
  }

  /** Records that `file` now holds `bytes`; throws STORAGE_EXCEEDED when the key has no room for it. */
  async need(file: string, bytes: number): Promise<void> {
    this.#needs.set(file, bytes);
    const needBytes = this.#bytes();
    const needFiles = this.#needs.size;
    if (this.#grant && needBytes <= this.#grant.bytes && needFiles <= this.#grant.files) return;
    const result = await this.#call((account) =>
      account.reserve({
        accountId: this.#owner.accountId,
        holdId: this.#grant?.id,
        needBytes,
        needFiles,
        aheadBytes: Math.min(MAX_AHEAD, Math.max(MIN_AHEAD, Math.floor(needBytes / 8))),
        aheadFiles: Math.min(MAX_AHEAD_FILES, needFiles),
        limits: this.#owner.limits,
      }),
    );
    if (!result.grant) {
      this.#needs.delete(file);
      throw storageExceeded(this.#owner.limits, result.exceeded ?? 'bytes');
    }
    this.#grant = result.grant;
  }

  /** The file failed: it no longer counts (the granted room stays for the others). */
  drop(file: string): void {
    this.#needs.delete(file);
  }

  /**
   * Makes stored files count, in order, while they fit; returns the ids the account took (the
   * others are over the quota or the file limit). Ends the hold.
   */
  async commit(files: AccountFile[]): Promise<{ accepted: Set<string>; refused: Map<string, Exceeded> }> {
    const holdId = this.#grant?.id;
    this.#grant = undefined;
    this.#needs.clear();
    const result = await this.#call((account) =>
      account.commit({
        accountId: this.#owner.accountId,
        holdId,
        holdIds: this.#converts.length > 0 ? this.#converts : undefined,
        files,
        limits: this.#owner.limits,
      }),
    );
    return {
      accepted: new Set(result.accepted),
      refused: new Map(result.refused.map((entry) => [entry.id, entry.exceeded])),
    };
  }

  /** Nothing more will be committed: give the hold back. Never throws. */
  async release(): Promise<void> {
    const holdId = this.#grant?.id;
    this.#grant = undefined;
    this.#needs.clear();
    if (!holdId) return;
    await releaseHold(this.#accounts, this.#owner.accountId, holdId);
  }

  #bytes(): number {
    let total = 0;
    for (const bytes of this.#needs.values()) total += bytes;
    return total;
  }

  // Straight to the account's storage object (not through the key's object: one hop less).
  async #call<T>(work: (account: DurableObjectStub<AccountStorage>) => Promise<T>): Promise<T> {
    try {
      return await work(this.#accounts.getByName(this.#owner.accountId));
    } catch (error) {
      // Without the account's object the quota cannot be kept: refuse rather than overfill.
      throw new ApiError('SERVICE_UNAVAILABLE', 'Storage accounting is unavailable, try again', { cause: error });
    }
  }
}

/** The account's visitor secret (raw bytes) for the period `now` falls in (src/access-log/visitor-id.ts). */
export const visitorSecret = (namespace: AccountsNamespace, accountId: string, periodMs: number, now: number) =>
  accountOf(namespace, accountId).visitorKey({ periodMs, now }) as Promise<ArrayBuffer>;

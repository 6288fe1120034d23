// The account's storage object's contract: what its callers (the key's object, tus upload
// objects, the sweep) send it. Types only, so anything may import it without the class.
import type { AccountFile, CommitRequest, Grant, QuotaLimits, ReserveRequest } from '../limiter/key-limiter-contract';

export type {
  AccountFile,
  CommitResult,
  Exceeded,
  Grant,
  QuotaLimits,
  ReserveResult,
  Usage,
} from '../limiter/key-limiter-contract';

/** Every call names the account: the object rebuilds it from the account's rows in D1 at first use. */
type OfAccount<T> = Omit<T, 'keyId'> & { accountId: string };

/** An upload's declared bound (its Content-Length, and how many files it may hold). */
export type OpenRequest = { accountId: string; bytes: number; files: number; limits: QuotaLimits; now?: number };
export type AccountReserveRequest = OfAccount<ReserveRequest>;
export type AccountCommitRequest = OfAccount<CommitRequest>;
export type AccountFreeRequest = { accountId: string; files: AccountFile[]; now?: number };
export type AccountRescheduleRequest = {
  accountId: string;
  files: (AccountFile & { previous: string | null })[];
  now?: number;
};
export type AccountUsageRequest = { accountId: string; limits?: QuotaLimits; now?: number };
export type { Grant as AccountGrant };

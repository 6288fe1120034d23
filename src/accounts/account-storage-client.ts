// Calls to an account's storage object from code that knows the account but no key: the tus
// upload objects and the removal of files (deletes, the sweep). A request's own calls go through
// the key's object (limiter/key-limiter-client.ts), which passes them on.
import { log } from '../log';
import type { AccountFile } from './account-storage-contract';
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

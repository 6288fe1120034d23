// Who an upload belongs to (conventions: "owners, not fake keys"): the account whose storage it
// uses, with that account's limits, and the key that sent it when one did. An upload through a
// file request has no key: its owner is the request's account alone.
import type { StorageOwner } from '../accounts/account-storage-contract';
import type { ApiKeyContext } from '../env';
import { storageOwnerOf } from '../limiter/key-limiter-client';

export type UploadOwner = StorageOwner & { keyId?: string };

/** The owner of what an authenticated key uploads: its account, and the key. */
export const keyOwner = (key: ApiKeyContext): UploadOwner => ({ ...storageOwnerOf(key), keyId: key.id });

/** What an owner's blob says of where it came from (R2 custom metadata): the key, else the account. */
export const blobMetadata = (owner: UploadOwner, fileId: string): Record<string, string> =>
  owner.keyId === undefined ? { accountId: owner.accountId, fileId } : { keyId: owner.keyId, fileId };

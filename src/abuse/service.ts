// The operator's actions on what this service serves (docs/abuse.md): quarantine, release and
// remove a file, disable a link, suspend and unsuspend an account, and record a file's scan. Each
// writes the facts src/moderation/standing.ts decides from (so every way in answers at once),
// and reaches the owner as a signed webhook carrying the operator's statement. Rules only: the
// admin routes (admin-routes.ts), the report review (reports.ts) and the scanner call these.
import type { AccountsNamespace } from '../accounts/account-storage-client';
import { ApiError, moderationConflict, validationError } from '../errors';
import { type EventSink, emitEvent, emitOperatorEvent } from '../events/emit';
import { FILE_ID_PATTERN } from '../files/ids';
import { fileEventData, scanOf } from '../files/records';
import { deleteBlobsOrRecord, giveBack } from '../files/removal';
import { keyChanged, type LimiterNamespace } from '../limiter/key-limiter-client';
import { LINK_ID_PATTERN } from '../links/service';
import { type ScanSettings, standingOf } from '../moderation/standing';
import type { AccountRow } from '../storage/accounts-repo';
import type { FileRow, ScanStatus } from '../storage/files-repo';
import { listAccountKeys } from '../storage/keys-repo';
import {
  disableLink as disableLinkRow,
  findFileForOperator,
  type OperatorLinkRow,
  quarantineFile as quarantineRow,
  releaseFile as releaseRow,
  removeFile as removeRow,
  setScan,
  setSuspension,
} from '../storage/moderation-repo';
import { isoNow } from '../time';

export type AbuseDeps = {
  db: D1Database;
  bucket: R2Bucket;
  accounts: AccountsNamespace;
  limiter: LimiterNamespace;
  events: EventSink;
  /** OPERATOR_WEBHOOK_URL: where the operator hears of infected files (undefined: nowhere). */
  operatorWebhook?: string;
};

const fileNotFound = () => new ApiError('FILE_NOT_FOUND');

/** Any account's live file (the operator sees them all), or 404 FILE_NOT_FOUND. */
export async function operatorFile(deps: Pick<AbuseDeps, 'db'>, id: string): Promise<FileRow> {
  const row = FILE_ID_PATTERN.test(id) ? await findFileForOperator(deps.db, id, isoNow()) : null;
  if (!row) throw fileNotFound();
  return row;
}

const removedAlready = () =>
  moderationConflict('This file was removed: its bytes are gone for good (the owner may delete its record)');

/**
 * Quarantines a file: served to no one (its owner included) but kept, bytes and quota alike, until
 * released. Once: a file already quarantined stays as it was; a removed one is 409.
 */
export async function quarantineFile(deps: AbuseDeps, id: string, statement: string): Promise<FileRow> {
  return quarantineFound(deps, await operatorFile(deps, id), statement);
}

/** quarantineFile of a file whose row the caller has read already (a scan's verdict just recorded). */
async function quarantineFound(deps: AbuseDeps, found: FileRow, statement: string): Promise<FileRow> {
  if (found.moderation_state === 'removed') throw removedAlready();
  const row = found.moderation_state === null ? await quarantineRow(deps.db, found.id, statement, isoNow()) : null;
  if (!row) return operatorFile(deps, found.id);
  emitEvent(deps.events, row.account_id, 'file.quarantined', { file: fileEventData(row), statement });
  return row;
}

/**
 * Serves a file again, bytes unchanged: out of quarantine, and served to visitors whatever its
 * scan says (a gated file that could not be scanned, or an infected one judged safe). A removed
 * file cannot be (409). The owner hears of it when the file was held (quarantined, or gated).
 */
export async function releaseFile(
  deps: AbuseDeps,
  id: string,
  statement: string | null,
  scan: ScanSettings,
): Promise<FileRow> {
  const found = await operatorFile(deps, id);
  if (found.moderation_state === 'removed') throw removedAlready();
  const row = await releaseRow(deps.db, id, isoNow());
  if (!row) throw fileNotFound();
  // Held before: quarantined, or kept from visitors by the scan gate.
  if (standingOf({ file: found }, 'visitor', scan) !== null) {
    emitEvent(deps.events, row.account_id, 'file.released', { file: fileEventData(row), statement });
  }
  return row;
}

/**
 * Removes a file: its bytes are deleted for good and its quota given back, its record stays as a
 * tombstone so every URL of it answers 451, not 404 (the owner may delete it). With `blockHash`
 * its SHA-256 joins the blocklist (a file stored before digests, not backfilled yet, has none:
 * 400, and nothing is done). Once: a removed file stays as it was.
 */
export async function removeFile(deps: AbuseDeps, id: string, statement: string, blockHash: boolean): Promise<FileRow> {
  const found = await operatorFile(deps, id);
  if (blockHash && found.sha256 === null) {
    throw validationError('blockHash', 'this file has no SHA-256 yet (stored before digests, not backfilled)');
  }
  const now = Date.now();
  const row = await removeRow(deps.db, id, statement, isoNow(now), blockHash);
  if (!row) return operatorFile(deps, id);
  // The row is a tombstone now (no reader serves it); its bytes and quota go after.
  await deleteBlobsOrRecord(deps.db, deps.bucket, [row], now);
  await giveBack(deps.accounts, [row]);
  emitEvent(deps.events, row.account_id, 'file.removed', { file: fileEventData(row), statement });
  return row;
}

/** Disables one link (a file's or a collection's): it answers 451; its file and other links are untouched. Once. */
export async function disableLink(deps: AbuseDeps, id: string, statement: string): Promise<OperatorLinkRow> {
  const result = LINK_ID_PATTERN.test(id) ? await disableLinkRow(deps.db, id, statement, isoNow()) : null;
  if (!result) throw new ApiError('LINK_NOT_FOUND');
  const { link, disabled } = result;
  if (disabled) {
    emitEvent(deps.events, link.account_id, 'link.disabled', {
      linkId: link.id,
      fileId: link.file_id,
      collectionId: link.collection_id,
      statement,
    });
  }
  return link;
}

/**
 * Suspends an account (`statement`) or lifts its suspension (null, with an optional statement for
 * the owner): every key of it is told at once (403 ACCOUNT_SUSPENDED from its next request), and
 * every link and file request of it answers 451 (their lookups read the account). Nothing is
 * deleted. The owner hears of a change, not of a repeat.
 */
export async function setAccountSuspension(
  deps: AbuseDeps,
  id: string,
  change: { suspend: true; statement: string } | { suspend: false; statement: string | null },
): Promise<AccountRow> {
  const now = isoNow();
  const result = await setSuspension(deps.db, id, change.suspend ? change.statement : null, now);
  if (!result) throw new ApiError('NOT_FOUND', 'No such account');
  const { before, after } = result;
  const keys = await listAccountKeys(deps.db, id);
  await Promise.all(keys.map((key) => keyChanged(deps.limiter, key.id, { suspension: after.suspension_statement })));
  if (change.suspend) {
    emitEvent(deps.events, id, 'account.suspended', { accountId: id, statement: change.statement });
  } else if (before.suspension_statement !== null) {
    emitEvent(deps.events, id, 'account.unsuspended', { accountId: id, statement: change.statement });
  }
  return after;
}

/** The statement of a quarantine the scanner decides. */
export const malwareStatement = (signature: string) => `malware: ${signature}`;

/**
 * Records a file's scan (the scanner's entry point): the owner gets `file.scanned`; `infected`
 * quarantines the file with the statement `malware: <signature>` (and the owner gets
 * `file.quarantined`) and tells the operator (`file.scanned` to OPERATOR_WEBHOOK_URL). Null when
 * the file is gone.
 */
export async function recordScan(
  deps: AbuseDeps,
  id: string,
  scan: { status: Exclude<ScanStatus, 'pending'>; signature?: string | null },
): Promise<FileRow | null> {
  const signature = scan.status === 'infected' ? (scan.signature ?? 'unknown') : null;
  let row = await setScan(deps.db, id, { status: scan.status, signature, at: isoNow() });
  if (!row) return null;
  const scanned = { file: fileEventData(row), scan: scanOf(row) ?? { status: scan.status, signature, at: null } };
  emitEvent(deps.events, row.account_id, 'file.scanned', scanned);
  if (signature === null) return row;
  emitOperatorEvent(deps.events, deps.operatorWebhook, 'file.scanned', { accountId: row.account_id, ...scanned });
  // The row setScan returned is the file as it is: quarantined without reading it again.
  if (row.moderation_state === null) row = await quarantineFound(deps, row, malwareStatement(signature));
  return row;
}

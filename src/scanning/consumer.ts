// The scan queue's consumer (wrangler.toml: edgeshare-scans, one file per invocation): reads the
// file's row, streams its bytes to clamd through the scanner's client, and hands the verdict to
// `record` (the abuse service's recordScan: the file's scan, the owner's file.scanned, and for
// malware the quarantine and the operator's file.scanned). A scanner it cannot reach is tried
// again with growing delays; after the last attempt the scan is `error`, never clean.
import type { Config } from '../config';
import { log } from '../log';
import { findFileForOperator } from '../storage/moderation-repo';
import { openBlob } from '../storage/segments';
import { isoNow } from '../time';
import type { ScanMessage } from './scan-queue';
import { type ScanTimeouts, type ScanVerdict, scannerAddress, scanStream } from './scanner-client';
import { SCAN_ATTEMPTS, scanRetryDelay } from './schedule';

/** The queue and its dead-letter queue (wrangler.toml). */
export const SCAN_QUEUE = 'edgeshare-scans';
export const SCAN_DEAD_LETTERS = `${SCAN_QUEUE}-dlq`;
export const isScanQueue = (queue: string) => queue === SCAN_QUEUE || queue === SCAN_DEAD_LETTERS;

/** A scan's outcome as it is recorded. */
export type RecordedScan = { status: 'clean' | 'infected' | 'too_large' | 'error'; signature?: string | null };

export type ScanDeps = {
  db: D1Database;
  bucket: R2Bucket;
  config: Pick<Config, 'SCANNER' | 'SCAN_MAX_BYTES'>;
  /** Records the outcome (src/abuse/service.ts, recordScan). */
  record: (fileId: string, scan: RecordedScan) => Promise<unknown>;
  timeouts?: ScanTimeouts;
};

/** What one attempt came to: nothing to do (the file is gone, or scanned already), or a verdict. */
type Attempt = { skip: true } | { skip: false; verdict: ScanVerdict; bytes: number };

/** Scans the files of a batch, one after another (the queue sends one at a time). */
export async function consumeScans(batch: MessageBatch<ScanMessage>, deps: ScanDeps): Promise<void> {
  const deadLetters = batch.queue === SCAN_DEAD_LETTERS;
  for (const message of batch.messages) await consume(message, deps, deadLetters);
}

async function consume(message: Message<ScanMessage>, deps: ScanDeps, deadLetter: boolean): Promise<void> {
  const { fileId } = message.body;
  const started = Date.now();
  try {
    // A message that failed outright every time: the file is not scanned, and says so.
    const attempt: Attempt = deadLetter
      ? await pendingOnly(deps, fileId, { status: 'error', reason: 'the scan failed every attempt' })
      : await scanFile(deps, fileId);
    if (attempt.skip) {
      message.ack();
      return;
    }
    const { verdict } = attempt;
    const fields = { fileId, bytes: attempt.bytes, attempts: message.attempts, status: verdict.status };
    if (verdict.status === 'error' && !deadLetter && message.attempts < SCAN_ATTEMPTS) {
      const delaySeconds = scanRetryDelay(message.attempts);
      log('error', 'scan failed, tried again later', { ...fields, reason: verdict.reason, delaySeconds });
      message.retry({ delaySeconds });
      return;
    }
    await deps.record(fileId, recorded(verdict));
    message.ack();
    const reason = 'reason' in verdict ? verdict.reason : undefined;
    log(verdict.status === 'error' ? 'error' : 'info', 'scan recorded', {
      ...fields,
      reason,
      ms: Date.now() - started,
    });
  } catch (error) {
    // Reading the row or recording the verdict failed (D1): the queue tries again, then the dead letters.
    log('error', 'scan not recorded, tried again later', { fileId, error: String(error) });
    message.retry({ delaySeconds: scanRetryDelay(message.attempts) });
  }
}

const recorded = (verdict: ScanVerdict): RecordedScan =>
  verdict.status === 'infected' ? { status: 'infected', signature: verdict.signature } : { status: verdict.status };

/**
 * One attempt at a file's scan: none for a file that is gone (deleted, expired, removed: its bytes
 * are deleted) or whose scan is decided already (a message delivered twice); `too_large` without
 * sending a byte past SCAN_MAX_BYTES; else clamd's verdict on its bytes.
 */
export async function scanFile(deps: ScanDeps, fileId: string): Promise<Attempt> {
  const row = await findFileForOperator(deps.db, fileId, isoNow());
  if (row?.scan_status !== 'pending' || row.moderation_state === 'removed') return { skip: true };
  const bytes = row.size;
  if (bytes > deps.config.SCAN_MAX_BYTES) {
    return { skip: false, bytes, verdict: { status: 'too_large', reason: 'larger than SCAN_MAX_BYTES' } };
  }
  const address = scannerAddress(deps.config.SCANNER);
  if (!address) return { skip: false, bytes, verdict: { status: 'error', reason: 'no SCANNER is configured' } };
  const body = await openBlob(deps, row);
  if (!body) return { skip: false, bytes, verdict: { status: 'error', reason: 'the file’s bytes are missing' } };
  return { skip: false, bytes, verdict: await scanStream(address, body, deps.timeouts) };
}

/** `verdict` for a file whose scan is still pending; none for any other. */
async function pendingOnly(deps: ScanDeps, fileId: string, verdict: ScanVerdict): Promise<Attempt> {
  const row = await findFileForOperator(deps.db, fileId, isoNow());
  return row?.scan_status === 'pending' ? { skip: false, bytes: row.size, verdict } : { skip: true };
}

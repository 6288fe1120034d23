// The scan queue's producer side: what a new file's scan starts as, and the message that asks
// for it. Every upload path records its files through recordFiles (src/files/upload.ts), which
// asks scanOnArrival for each row and queues one message per file to be scanned; the consumer
// (./consumer.ts) does the scanning. wrangler.toml: the queue edgeshare-scans, binding SCANS.
import type { ScanSettings } from '../moderation/standing';
import { scanModeOf } from '../moderation/standing';
import type { ScanStatus } from '../storage/files-repo';

/** One file to scan: the consumer reads the rest (its size, where its bytes are) from its row. */
export type ScanMessage = { fileId: string };

/** The SCANS producer binding (undefined where none is bound: then nothing is queued, and it is logged). */
export type ScanQueue = Queue<ScanMessage> | undefined;

/**
 * The one place a new file's scan is decided: null when it is not to be scanned (SCAN_MODE, or
 * SCAN_REQUEST_UPLOADS for a file that came through a file request, is off, or there is no
 * SCANNER), else `pending` until the consumer's verdict, or `skipped` for an end-to-end encrypted
 * file, whose bytes are ciphertext to a scanner.
 */
export function scanOnArrival(
  settings: ScanSettings,
  file: { requestId?: string | null; encrypted?: boolean },
): ScanStatus | null {
  if (scanModeOf(settings, file.requestId != null) === 'off') return null;
  // An end-to-end encrypted file is ciphertext to the scanner: never sent, served as any clean one.
  return file.encrypted ? 'skipped' : 'pending';
}

// Queues take at most 100 messages a sendBatch; a bulk upload has at most 50 files.
const MAX_BATCH_MESSAGES = 100;

/** Queues a scan of each file (one message each: each is retried on its own). */
export async function queueScans(queue: ScanQueue, fileIds: string[]): Promise<void> {
  if (fileIds.length === 0) return;
  if (!queue) throw new Error('no SCANS queue is bound');
  for (let at = 0; at < fileIds.length; at += MAX_BATCH_MESSAGES) {
    const batch = fileIds.slice(at, at + MAX_BATCH_MESSAGES);
    await queue.sendBatch(batch.map((fileId) => ({ body: { fileId }, contentType: 'json' as const })));
  }
}

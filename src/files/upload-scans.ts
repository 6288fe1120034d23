// Scans of newly recorded files (SCANNER, SCAN_MODE): recordFiles asks for them once the rows are
// written. The message is sent in the request's waitUntil, so an upload never waits for the
// queue; a send that fails leaves no file pending for good: its scan is recorded as `error` (held
// from visitors in gate mode until an operator releases it), and its owner hears of it.
import { emitEvents } from '../events/emit';
import { log } from '../log';
import { queueScans } from '../scanning/scan-queue';
import type { FileRow } from '../storage/files-repo';
import { setScan } from '../storage/moderation-repo';
import { isoNow } from '../time';
import { fileEventData, scanOf } from './records';
import type { UploadDeps } from './upload-session';

/** Queues a scan of each recorded row whose scan is pending (see scanOnArrival). */
export function startScans(deps: Pick<UploadDeps, 'db' | 'events' | 'scans'>, rows: FileRow[]): void {
  const ids = rows.filter((row) => row.scan_status === 'pending').map((row) => row.id);
  if (ids.length === 0) return;
  deps.events.waitUntil(
    queueScans(deps.scans, ids).catch(async (error: unknown) => {
      log('error', 'scans not queued: recorded as error', { fileIds: ids, error: String(error) });
      const at = isoNow();
      const failed = await Promise.all(ids.map((id) => setScan(deps.db, id, { status: 'error', signature: null, at })));
      emitEvents(
        deps.events,
        failed.flatMap((row) =>
          row ? [{ accountId: row.account_id, type: 'file.scanned' as const, data: scanned(row) }] : [],
        ),
      );
    }),
  );
}

const scanned = (row: FileRow) => ({
  file: fileEventData(row),
  scan: scanOf(row) ?? { status: 'error', signature: null, at: null },
});

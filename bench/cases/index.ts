// The case list. A case is a function's result (see BenchCase in ../lib/case.ts): it prepares its
// variants, and the runner interleaves them round by round. To add one, write a factory beside
// these, put it in the list, and name its targets in ../targets.ts.
import type { BenchCase } from '../lib/case.ts';
import { MIB } from '../lib/transfer.ts';
import { accessLogCase } from './access-log.ts';
import { blocklistCase } from './blocklist.ts';
import { browserDownloadCase, browserUploadCase } from './browser.ts';
import { bulkCase } from './bulk.ts';
import { costsCase } from './costs.ts';
import { crcCase } from './crc.ts';
import { digestCase } from './digests.ts';
import { downloadCase } from './downloads.ts';
import { cliDownloadCase, cliMemoryCase, cliUploadCase, e2eLinkDownloadCase, sizeFromEnv } from './e2e.ts';
import { eventsCase } from './events.ts';
import { listCase } from './list.ts';
import { readCase } from './reads.ts';
import { scanCase } from './scan.ts';
import { shareDownloadCase } from './share-downloads.ts';
import { tusCase } from './tus.ts';
import { uploadCase } from './uploads.ts';
import { zipMemoryCase, zipRangeCase, zipThroughputCase } from './zip.ts';

/** The full run's cases; `quick` keeps the ids but shrinks sizes and durations, one round each. */
export function benchCases(quick: boolean): BenchCase[] {
  const reps = (full: number) => (quick ? 1 : full);
  return [
    uploadCase('upload-1mib', 1, reps(7)),
    uploadCase('upload-50mib', quick ? 8 : 50, reps(5)),
    uploadCase('upload-300mib', quick ? 24 : 300, reps(3)),
    digestCase('digest-1mib', 1, reps(7)),
    digestCase('digest-50mib', quick ? 8 : 50, reps(5)),
    digestCase('digest-300mib', quick ? 24 : 300, reps(3)),
    // The CRC's few percent at most are within a round's swing: more rounds, compared round by round.
    crcCase('crc-1mib', 1, reps(9)),
    crcCase('crc-300mib', quick ? 24 : 300, reps(5)),
    tusCase('tus-300mib', quick ? 24 : 300, [10, 50], reps(5)),
    downloadCase('download-300mib', quick ? 24 : 300, reps(3)),
    // clamd's own scan is most of the time, and it swings with the machine's load: more rounds.
    scanCase('scan-300mib', quick ? 24 : 300, reps(5)),
    shareDownloadCase('share-download', quick ? 8 : 50, reps(5)),
    accessLogCase('access-log', quick ? 8 : 50, reps(7)),
    // Rounds swing 10–20 % here (workerd is CPU-bound, the client on the other core competes): more of them.
    readCase('get-c10', 10, quick ? 1 : 4, reps(11)),
    readCase('get-c50', 50, quick ? 1 : 4, reps(9)),
    listCase('list', 20_000, 100, [1, 1000, 2000], quick ? 0.5 : 2, reps(3)),
    bulkCase('bulk', 10, 1, reps(7)),
    eventsCase('events', 1, reps(7)),
    // A lookup's fraction of a millisecond is within a round's swing: more rounds, compared round by round.
    blocklistCase('blocklist', quick ? 20_000 : 100_000, 1, reps(9)),
    costsCase('costs', quick ? 50 : 200, reps(3)),
    // End-to-end encryption (issue 40). The CLI's file: BENCH_E2E_MIB (default 300 MiB, 24 quick);
    // the memory case's: BENCH_E2E_LARGE_MIB (default 1 GiB, 32 MiB quick).
    e2eLinkDownloadCase('e2e-link-download', quick ? 8 : 100, reps(7)),
    cliUploadCase('e2e-cli-upload', sizeFromEnv('BENCH_E2E_MIB', quick ? 24 : 300), reps(3)),
    cliDownloadCase('e2e-cli-download', sizeFromEnv('BENCH_E2E_MIB', quick ? 24 : 300), reps(3)),
    // One round: a GiB each way takes minutes; memory, not time, is the figure here.
    cliMemoryCase('e2e-cli-memory', sizeFromEnv('BENCH_E2E_LARGE_MIB', quick ? 32 : 1024), 1),
    // End-to-end encryption in Chromium (issue 41): BENCH_BROWSER_MIB (default 300 MiB, 24 quick).
    browserUploadCase('e2e-browser-upload', sizeFromEnv('BENCH_BROWSER_MIB', quick ? 24 : 300), reps(3)),
    browserDownloadCase('e2e-browser-download', sizeFromEnv('BENCH_BROWSER_MIB', quick ? 24 : 300), reps(3)),
    // The ZIP cases share one set of members per size, uploaded by the first case that needs them:
    // the 320 MiB, 1 GiB and 3 GiB archives are the first 20, 64 and 192 files of 16 MiB (1 MiB quick).
    zipThroughputCase('zip-20x16mib', 20, (quick ? 1 : 16) * MIB, reps(5)),
    zipThroughputCase('zip-500x64kib', quick ? 100 : 500, 64 * 1024, reps(5)),
    zipMemoryCase('zip-memory', (quick ? 1 : 16) * MIB, 20, 192, reps(3)),
    zipRangeCase('zip-range-ttfb', (quick ? 1 : 16) * MIB, 64, reps(9)),
  ];
}

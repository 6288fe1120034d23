// The one real check of the ZIP writer past 4 GiB (bench/zip-check.ts): its result's shape, where
// it is kept, and its section of docs/benchmarks.md.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/wrangler.ts';

export const ZIP_CHECK_RESULTS = join(ROOT, 'bench/results/zip-check.json');

export type ZipCheckRun = {
  mode: string;
  archiveBytes: number;
  /** The byte ranges the archive was written as, inclusive, one zipRange call each. */
  ranges: [number, number][];
  writeSeconds: number;
  unzip: { exitCode: number | null; summary: string; seconds: number };
  python: { ok: boolean; summary: string; seconds: number };
};

export type ZipCheckResult = {
  generatedAt: string;
  command: string;
  tools: { node: string; unzip: string; python: string };
  members: { name: string; size: number; crc32: string }[];
  runs: ZipCheckRun[];
  /** The Node process's peak resident memory over the whole check. */
  peakRssMiB: number;
  seconds: number;
};

export function readZipCheck(): ZipCheckResult | null {
  if (!existsSync(ZIP_CHECK_RESULTS)) return null;
  return JSON.parse(readFileSync(ZIP_CHECK_RESULTS, 'utf8')) as ZipCheckResult;
}

const bytes = (value: number) =>
  value >= 2 ** 30
    ? `${(value / 2 ** 30).toFixed(2)} GiB`
    : value >= 2 ** 20
      ? `${(value / 2 ** 20).toFixed(1)} MiB`
      : `${(value / 2 ** 10).toFixed(1)} KiB`;

export function renderZipCheck(result: ZipCheckResult | null): string {
  if (!result) return '';
  const rows = result.runs.map((run) => {
    const rate = run.archiveBytes / 2 ** 20 / run.writeSeconds;
    return `| ${run.mode} | ${run.archiveBytes.toLocaleString('en-US')} (${bytes(run.archiveBytes)}) | ${run.ranges.length} | ${run.writeSeconds.toFixed(1)} s (${rate.toFixed(0)} MiB/s) | ${run.unzip.exitCode === 0 ? 'ok' : `**exit ${run.unzip.exitCode}**`}: ${run.unzip.summary} (${run.unzip.seconds.toFixed(1)} s) | ${run.python.ok ? 'ok' : '**failed**'}: ${run.python.summary} (${run.python.seconds.toFixed(1)} s) |`;
  });
  return `## A real ZIP archive over 4 GiB

\`${result.command}\`, run on ${result.generatedAt.slice(0, 10)} (${result.seconds} s in all; Node ${result.tools.node},
${result.tools.unzip}, Python ${result.tools.python}). Not part of \`npm test\`; results in
[bench/results/zip-check.json](../bench/results/zip-check.json). The archive is made by \`src/lib/zip.ts\` from
synthetic members (a pseudo-random 1 MiB block repeated; each member's CRC-32 comes from the block's by
\`crc32Combine\`, never from reading the member), streamed to a temporary file, checked by \`unzip -t\` and by
Python's \`zipfile\` reading every member to its end (which checks each CRC-32), then deleted. The ranges
of the first archive are cut inside \`big.bin\` past 4 GiB and inside the central directory, and appended
to each other, as a resumed download would be. Write times go through the kernel's page cache and
its writeback on a shared machine: they show the writer keeps up, not its own speed; the readers
read from the same cache.
Members: ${result.members.map((member) => `\`${member.name}\` ${bytes(member.size)} (CRC-32 ${member.crc32})`).join(', ')}.
Peak memory of the Node process over the whole check: ${result.peakRssMiB.toFixed(0)} MiB.

| mode | archive bytes | ranges | written in | \`unzip -t\` | Python \`zipfile\` |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

`;
}

// node bench/zip-check.ts — one real ZIP archive over 4 GiB, made by src/lib/zip.ts and judged by
// `unzip -t` and Python's zipfile. Not part of `npm test` (about 9 GB written to /tmp, minutes).
//
// Members are synthetic: a pseudo-random 1 MiB block repeated (4.1 GiB, 1 KiB, 100 MiB), so the
// reads cost nothing and each member's CRC-32 follows from the block's with crc32Combine, never
// from reading the member. Two archives, one after the other, each deleted once checked:
//   1. every CRC-32 known: plain Zip64 layout, written as three ranges (one starting inside the
//      4.1 GiB member, one inside the central directory) appended to each other;
//   2. every CRC-32 unknown: data descriptors (8-byte sizes for the big member), written whole,
//      the CRCs computed while streaming.
// Writes bench/results/zip-check.json and re-renders docs/benchmarks.md with it (its other
// sections from bench/results/latest.json, as `npm run bench -- --render` does).
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../scripts/wrangler.ts';
import { crc32, crc32Combine } from '../src/lib/crc32.ts';
import { type ZipMember, zipLayout, zipRange } from '../src/lib/zip.ts';
import { renderReport } from './lib/report.ts';
import type { BenchResults } from './lib/results.ts';
import { ZIP_CHECK_RESULTS, type ZipCheckResult, type ZipCheckRun } from './lib/zip-check.ts';

const MiB = 2 ** 20;
const BLOCK = MiB;
const MEMBERS = [
  { name: 'big.bin', size: Math.round(4.1 * 2 ** 30) },
  { name: 'small.bin', size: 1024 },
  { name: 'medium.bin', size: 100 * MiB },
];
const MODIFIED = new Date('2026-11-24T12:00:00Z');
const started = performance.now();

/** The 1 MiB block member i repeats. */
const blocks = MEMBERS.map((_, index) => {
  const block = new Uint8Array(BLOCK);
  let x = 0x9e3779b9 ^ (index + 1);
  for (let i = 0; i < BLOCK; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    block[i] = x >>> 24;
  }
  return block;
});

/** The CRC-32 of `count` copies of a block, by doubling with crc32Combine: no byte read. */
function repeatedCrc(blockCrc: number, count: number): number {
  if (count === 0) return 0;
  if (count === 1) return blockCrc;
  const half = Math.floor(count / 2);
  const halves = crc32Combine(repeatedCrc(blockCrc, half), repeatedCrc(blockCrc, half), half * BLOCK);
  return count % 2 === 0 ? halves : crc32Combine(halves, blockCrc, BLOCK);
}

const crcs = MEMBERS.map(({ size }, index) => {
  const block = blocks[index] as Uint8Array;
  const whole = Math.floor(size / BLOCK);
  const tail = size % BLOCK;
  return crc32Combine(repeatedCrc(crc32(block), whole), crc32(block.subarray(0, tail)), tail);
});

/** A ranged read of a member: views of its block, at most 1 MiB each, from `offset` on. */
async function read(index: number, offset: number, length: number): Promise<ReadableStream<Uint8Array>> {
  const block = blocks[index] as Uint8Array;
  let at = offset;
  const end = offset + length;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (at >= end) return controller.close();
        const from = at % BLOCK;
        const take = Math.min(BLOCK - from, end - at);
        controller.enqueue(block.subarray(from, from + take));
        at += take;
      },
    },
    { highWaterMark: 0 },
  );
}

const version = (command: string, args: string[]) =>
  (spawnSync(command, args, { encoding: 'utf8' }).stdout ?? '').split('\n').find(Boolean)?.trim() ?? 'missing';

// Reads every member to its end in 1 MiB pieces (zipfile raises on a CRC-32 mismatch at the end)
// and prints what it found.
const PYTHON = `
import json, sys, zipfile, zlib
found = []
with zipfile.ZipFile(sys.argv[1]) as archive:
    for info in archive.infolist():
        crc, size = 0, 0
        with archive.open(info) as member:
            while chunk := member.read(1 << 20):
                crc, size = zlib.crc32(chunk, crc), size + len(chunk)
        found.append({"name": info.filename, "size": size, "crc": crc, "header_crc": info.CRC})
print(json.dumps(found))
`;

async function writeArchive(path: string, members: ZipMember[], cuts: number[]): Promise<ZipCheckRun> {
  const layout = zipLayout(members);
  const bounds = [0, ...cuts, layout.length];
  const ranges = bounds.slice(1).map((end, i) => [bounds[i] as number, end - 1] as [number, number]);
  const writeStarted = performance.now();
  const fd = openSync(path, 'w');
  try {
    for (const [start, end] of ranges) {
      const reader = zipRange(layout, start, end, read).getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) writeSync(fd, chunk.value);
    }
  } finally {
    closeSync(fd);
  }
  const writeSeconds = (performance.now() - writeStarted) / 1000;
  if (statSync(path).size !== layout.length) throw new Error(`wrote ${statSync(path).size} of ${layout.length} bytes`);

  let at = performance.now();
  const unzip = spawnSync('unzip', ['-t', path], { encoding: 'utf8' });
  const unzipSeconds = (performance.now() - at) / 1000;
  const unzipLines = `${unzip.stdout}${unzip.stderr}`.trim().split('\n');
  at = performance.now();
  const python = spawnSync('python3', ['-c', PYTHON, path], { encoding: 'utf8' });
  const pythonSeconds = (performance.now() - at) / 1000;
  let pythonOk = false;
  let pythonSummary = python.stderr.trim().split('\n').pop() ?? '';
  if (python.status === 0) {
    const found = JSON.parse(python.stdout) as { name: string; size: number; crc: number; header_crc: number }[];
    pythonOk =
      found.length === MEMBERS.length &&
      found.every(
        (member, i) =>
          member.name === MEMBERS[i]?.name &&
          member.size === MEMBERS[i]?.size &&
          member.crc === crcs[i] &&
          member.header_crc === crcs[i],
      );
    pythonSummary = `${found.length} members read to the end, names, sizes and CRC-32s ${pythonOk ? 'as made' : 'DIFFERENT'}`;
  }
  return {
    mode: members.every((member) => member.crc32 !== null)
      ? 'every CRC-32 known (Zip64, ranges)'
      : 'CRC-32s computed while streaming (data descriptors)',
    archiveBytes: layout.length,
    ranges,
    writeSeconds,
    unzip: {
      exitCode: unzip.status,
      summary: (unzipLines.slice(-1)[0] ?? '').replace(path, 'archive.zip').trim(),
      seconds: unzipSeconds,
    },
    python: { ok: pythonOk, summary: pythonSummary, seconds: pythonSeconds },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'edgeshare-zip-check-'));
const needed = MEMBERS.reduce((sum, member) => sum + member.size, 0) + 64 * MiB;
const { bavail, bsize } = statfsSync(dir);
if (bavail * bsize < needed) {
  console.error(
    `needs ${(needed / 2 ** 30).toFixed(1)} GiB free in ${dir}, has ${((bavail * bsize) / 2 ** 30).toFixed(1)}`,
  );
  process.exit(1);
}

const runs: ZipCheckRun[] = [];
try {
  const known = MEMBERS.map((member, i) => ({ ...member, crc32: crcs[i] as number, modified: MODIFIED }));
  const layout = zipLayout(known);
  const big = layout.members[0];
  if (!big) throw new Error('no member');
  // One cut inside the big member past 4 GiB, one inside the central directory.
  const cuts = [big.dataOffset + 2 ** 32 + 12_345, layout.centralOffset + 50];
  for (const [members, rangeCuts] of [
    [known, cuts],
    [known.map((member) => ({ ...member, crc32: null })), []],
  ] as const) {
    const path = join(dir, 'archive.zip');
    const run = await writeArchive(path, [...members], [...rangeCuts]);
    rmSync(path, { force: true });
    runs.push(run);
    console.log(JSON.stringify(run));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const result: ZipCheckResult = {
  generatedAt: new Date().toISOString(),
  command: 'node bench/zip-check.ts',
  tools: {
    node: process.version,
    unzip: version('unzip', ['-v'])
      .replace(/ of .*?, by /, ' (')
      .replace(/\. Original by Info-ZIP\./, ')'),
    python: version('python3', ['--version']).replace(/^Python /, ''),
  },
  members: MEMBERS.map((member, i) => ({ ...member, crc32: `0x${(crcs[i] as number).toString(16).padStart(8, '0')}` })),
  runs,
  peakRssMiB: process.resourceUsage().maxRSS / 1024,
  seconds: Math.round((performance.now() - started) / 1000),
};
writeFileSync(ZIP_CHECK_RESULTS, `${JSON.stringify(result, null, 2)}\n`);
const latest = JSON.parse(readFileSync(join(ROOT, 'bench/results/latest.json'), 'utf8')) as BenchResults;
writeFileSync(join(ROOT, 'docs/benchmarks.md'), renderReport(latest, result));
console.log(`wrote ${ZIP_CHECK_RESULTS} and docs/benchmarks.md`);
const failed = runs.some((run) => run.unzip.exitCode !== 0 || !run.python.ok);
process.exit(failed ? 1 : 0);

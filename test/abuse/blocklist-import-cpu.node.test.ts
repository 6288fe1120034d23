// What an import of 10,000 hashes costs the Worker itself: parsing the list and binding it as one
// JSON parameter (the INSERT runs in D1, not in the Worker; test/abuse/blocklist-admin.test.ts
// sends the same import through the Worker end to end). Measured as CPU time in plain Node, the
// same V8 as workerd (inside workerd the clock stands still while code runs).
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_HASHES, parseHashList } from '../../src/abuse/blocklist';

// No timed assertion (speed is the bench's, never a test's): this prints the CPU it measured
// (~10 ms with a dozen processes on two cores; docs/abuse.md quotes it against the plans' limits).

/** Node's CPU clock (this file runs in Node; the project's types are the Workers' ones). */
type CpuUsage = { user: number; system: number };
const { cpuUsage } = (globalThis as unknown as { process: { cpuUsage(previous?: CpuUsage): CpuUsage } }).process;

const randomHash = () =>
  [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, '0')).join('');

/** A list as operators have them: mixed case, CRLF, a comment. */
function list(count: number): string {
  const lines = ['# exported list'];
  for (let index = 0; index < count; index++) {
    const hash = randomHash();
    lines.push(index % 2 === 0 ? hash.toUpperCase() : hash);
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** CPU milliseconds (user and system) of one call. */
function cpuMs(work: () => unknown): number {
  const before = cpuUsage();
  work();
  const spent = cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

describe('importing 10,000 hashes', () => {
  it('parses, deduplicates and binds as one JSON parameter, and prints the CPU it took', () => {
    const text = list(MAX_IMPORT_HASHES);
    // What the import route does before its one statement (importHashes, importBlocked).
    const importWork = () => JSON.stringify([...new Set(parseHashList(text))]);
    expect(JSON.parse(importWork())).toHaveLength(MAX_IMPORT_HASHES);
    const runs = Array.from({ length: 7 }, () => cpuMs(importWork)).sort((a, b) => a - b);
    const median = runs[3] ?? Number.NaN;
    console.info(
      `import of 10,000 hashes: ${median.toFixed(1)} ms of CPU (median of 7: ${runs.map((ms) => ms.toFixed(1)).join(', ')})`,
    );
    expect(median).toBeGreaterThan(0);
  });
});

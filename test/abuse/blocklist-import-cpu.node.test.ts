// What an import of 10,000 hashes costs the Worker itself: parsing the list and binding it as one
// JSON parameter (the INSERT runs in D1, not in the Worker; test/abuse/blocklist-admin.test.ts
// sends the same import through the Worker end to end). Measured as CPU time in plain Node, the
// same V8 as workerd (inside workerd the clock stands still while code runs).
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_HASHES, parseHashList } from '../../src/abuse/blocklist';

/**
 * The bound: far under the Workers Paid plan's default of 30 s per request, and about what the
 * Free plan's 10 ms allows on a machine shared by other work (this one measures ~10 ms with a
 * dozen processes on two cores; docs/abuse.md says so). A list parsed in quadratic time, or one
 * statement built per hash in the Worker, would take far longer.
 */
const BUDGET_MS = 50;

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
  it('costs the Worker a few milliseconds of CPU: parse, deduplicate, bind as one JSON parameter', () => {
    const text = list(MAX_IMPORT_HASHES);
    // What the import route does before its one statement (importHashes, importBlocked).
    const importWork = () => JSON.stringify([...new Set(parseHashList(text))]);
    expect(JSON.parse(importWork())).toHaveLength(MAX_IMPORT_HASHES);
    const runs = Array.from({ length: 7 }, () => cpuMs(importWork)).sort((a, b) => a - b);
    const median = runs[3] ?? Number.NaN;
    console.info(
      `import of 10,000 hashes: ${median.toFixed(1)} ms of CPU (median of 7: ${runs.map((ms) => ms.toFixed(1)).join(', ')})`,
    );
    expect(median).toBeLessThan(BUDGET_MS);
  });
});

// Runs before each test file of the worker project. Files take turns in a few workerd processes
// (vitest.config.ts: isolate false; a process per file cost about 5 s of CPU each), so each file
// starts here from empty storage: reset() deletes the storage of every Durable Object, which in
// workerd holds D1, R2 and the queues as well as our own objects; then the migrations are applied.
import { applyD1Migrations, env, reset } from 'cloudflare:test';
import { afterAll, vi } from 'vitest';
import { registerByteEquality } from './byte-equality';

// reset() reaches only the objects workerd holds open, and it lets go of one idle for 10 s (its
// data stays). Most of our objects are named by random ids (a key, an account, an upload, a link),
// which no later file meets again, so what an idle one kept cannot reach another file. AUTH_GUARD's
// are named by the caller's address, which files share: vitest.config.ts keeps those from being
// let go (unsafePreventEviction), so reset() reaches every one. (Waking each listed guard before
// reset() did the same, at a cost that grew with every file: half a second a file by the 45th.)
// D1's and R2's objects are woken by a call.
async function wakeSharedObjects() {
  await Promise.all([env.DB.prepare('SELECT 1').first(), env.FILES.head('wake')]);
}

/** What the files before left in D1 and R2. */
async function leftovers() {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'",
  ).all<{ name: string }>();
  return [
    ...(await env.FILES.list({ limit: 1 })).objects.map((object) => `R2 object ${object.key}`),
    ...tables.results.map((row) => `D1 table ${row.name}`),
  ];
}

// The guard: a file that found anything left would not be isolated. An object that went idle
// between its wake-up and reset() keeps its data, so the whole is tried again before giving up.
for (let attempt = 1; ; attempt++) {
  await wakeSharedObjects();
  await reset();
  const left = await leftovers();
  if (left.length === 0) break;
  if (attempt === 5) throw new Error(`storage not empty at the start of a test file: ${left.join(', ')}`);
}
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Byte arrays compared at native speed by toEqual (vitest's own way took seconds a MiB).
registerByteEquality();

// What a file changed of the shared isolate goes with it: spies (fetch, console) and fake timers.
afterAll(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

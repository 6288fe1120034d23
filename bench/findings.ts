// Why a target is missed: written by whoever reads a run's figures (the report cannot know), keyed
// by target id (bench/targets.ts). docs/benchmarks.md shows the note beside a missed target; a
// missed target without a note says so. Keep each note to what the figures show, and revisit
// the notes when the service changes: they describe the code as it was when they were written.
// Written 2026-11-23 from the run in bench/results/latest.json.
export const FINDINGS: Record<string, string> = {
  'upload-1mib.throughput':
    'At 1 MiB fixed work per request dominates. The bare Worker streams the body into put() while it arrives; ' +
    'edgeshare keeps a file smaller than one R2 part (8 MiB) in memory until its part ends and only then calls ' +
    'put(), so receiving and storing run one after the other (its Server-Timing shows the r2 span alone close to ' +
    "the bare Worker's whole request time), and around them it makes its auth read, the limiter's admit-and-reserve call, the D1 insert " +
    'and the quota settle in series. From 50 MiB on, where parts are written while the body still arrives, the ' +
    'same code meets the target. Levers: stream a small file into put() as it arrives when its length can be ' +
    'known, and take the settle off the response path.',
  'upload-1mib.memory':
    'Small in absolute terms (about 9 MiB against 3 MiB). The bare Worker hands the body stream to put() and holds ' +
    'nothing; edgeshare gathers a file under one part in chunks, joins them into one array for put() (two copies ' +
    'for a moment), and its request handling (routing, validation, the multipart parser, the D1 and Durable ' +
    'Object calls) allocates a few MiB more. From 50 MiB on it is within 1.3× of the bare multipart Worker.',
  'upload.memory-flat':
    'Part of the growth from 50 to 300 MiB is the local runtime: the bare multipart Worker grows about 1.25× and ' +
    'the bare single put() about 1.5× over the same sizes (see the two upload tables), while edgeshare holds at ' +
    'most one 8 MiB part plus the chunk being read. The 50 MiB figure also varies between runs by 10–20 MiB. ' +
    "Compare the service's growth ratio with the bare multipart Worker's before reading this as a leak.",
  'get-c10.rps':
    'The local runtime is CPU-bound here (workerd uses about 0.85 of a core during each run), so requests/s follow ' +
    'CPU per request: edgeshare spends about 1.7–1.9× the bare Worker’s workerd CPU per request. It makes two D1 ' +
    'reads (the key row by hash for auth, then the file row) where the baseline makes one, and runs routing, ' +
    'validation, JSON shaping, Server-Timing and a log line. Serving the key row without a D1 query (for example ' +
    'from the key’s Durable Object, which every request calls anyway) removes the costliest extra operation.',
  'get-c50.rps':
    'Same cause as at 10 connections: workerd is CPU-bound and edgeshare costs about 1.7× the CPU per request ' +
    '(an extra D1 read for auth plus its request handling). More connections only lengthen the queue: p50 grows, ' +
    'requests/s do not.',
  'list.p1':
    'Each page is one query that also returns the total with COUNT(*) OVER (), a window over all of the key’s ' +
    'live rows, so SQLite reads every one of the 20,000 rows before LIMIT applies: page 1 already pays for all ' +
    'of them (its Server-Timing shows d1 growing with the key’s files while auth and the limiter stay flat; about ' +
    '2 µs per file here). A count kept per key (or computed only when asked) and a keyset cursor make a page cost ' +
    'its own rows.',
  'list.p1000':
    'The window count as on page 1, plus OFFSET: SQLite walks and discards the 9,990 rows before the page. A ' +
    'keyset cursor (WHERE (uploaded_at, id) < the last row seen, on the existing index) reads only the page.',
  'list.p2000': 'As page 1000, with 19,990 rows skipped by OFFSET on top of the window count over all 20,000 rows.',
  'bulk.speedup':
    'The bulk request is bounded by how fast one request body streams through the Worker: it moves its 10 MiB at ' +
    'about the rate of a single 50 MiB upload, while ten sequential 1 MiB uploads lose mostly per-request work ' +
    '(auth, limiter, quota, insert: its Server-Timing shows one of each for the whole bulk). At the measured ' +
    'single-request rate 10 MiB cannot take less than about 60–70 % of the sequential time, so 2× would need a ' +
    'faster body path (the same levers as the 1 MiB upload), not more concurrency in storing the files.',
};

// Why a target is missed: written by whoever reads a run's figures (the report cannot know), keyed
// by target id (bench/targets.ts). docs/benchmarks.md shows the note beside a missed target; a
// missed target without a note says so. Keep each note to what the figures show, and revisit
// the notes when the service changes: they describe the code as it was when they were written.
// Rewritten 2026-11-24 for the code of issue 20's third session (the floor of a tus PATCH added
// to the tus case; the service's code as in the second session: small form bodies read whole, tus
// chunks in parts of at most 16 MiB, the delimiter search), from the A/B runs made while looking
// for cuts. Each note dates its figures: "the run of 2026-11-24" is the full run stamped
// 2026-11-24T09:49:11Z; "this run" is bench/results/latest.json (2026-11-27T00:36:38Z), for which
// the notes of issue 31's targets and share-download were written.
// A note on a met target is shown too (under "Met, with notes"): keep it true when it is met.
//
// A note is a list of bullets, shown under its target (issue 30): one fact or one measured reason
// each, about two lines at most; the first says the conclusion ("At the floor: …", "Out of reach
// on this runtime: …"). Cut repetition and connective prose, never a figure or a comparison.
export const FINDINGS: Record<string, string[]> = {
  // Issues 40 and 41's rows: merged in from the run of 2026-11-29 12:05 (`--only e2e`, nothing else
  // running), after the header went alone in an encrypted upload's first PATCH, the CLI's chunks
  // stopped making new arrays, and the share page's SHA-256 moved to its Web Worker. The CLI's
  // rows (e2e-cli-*) from the runs of 2026-11-29 14:41 and 14:33 (`--only`, load average 3 and 6), after
  // the CLI began freeing its chunks as it goes (scripts/node-chunks.ts).
  'e2e-link-download.throughput': [
    'Met, and faster than plain (135 against 32 MiB/s; server CPU 0.5 against 2.8 s per 100 MiB).',
    'After the link’s header, the R2 body is piped by the runtime into a FixedLengthStream, which the ' +
      'access log’s meter reads far faster than it reads an R2 body itself.',
    'The plain link reads the R2 body in the meter directly: the same pipe there would likely gain as much ' +
      '(not done: outside issue 40).',
  ],
  'e2e-cli-upload.throughput': [
    'Met since the header goes alone in the first PATCH: 15.3 against 15.2 s at 300 MiB; it was 17.7 against 13.7.',
    'An age upload’s header is in no R2 part, so each PATCH left a tail of a chunk less the header, written to ' +
      'R2 and read back by the next: the local Worker spent 15.7 against 13.0 s, now 14.1 against 14.1.',
    'The CLI still reads the file twice (SHA-256 for `meta`, which goes with the first request): 2.1 against ' +
      '1.3 s of its CPU.',
    'Runs on a loaded machine (load average 6–7 on 2 cores) gave 1.12 and 0.78, rounds of 17–41 s each way; ' +
      'the one shown (load 3) 0.95. The CLI’s CPU was the same in all three (1.8–2.2 s against 1.2–1.4).',
  ],
  'e2e-cli-upload.memory': [
    'Met since the CLI frees its chunks as it goes: 37.8 MiB growth at 300 MiB against plain’s 44.0 (two runs ' +
      'before: 36.5 against 41.5, 32.8 against 44.4); it was 76 against 42.',
    'The cause was garbage, not data held: node:crypto makes each 64 KiB chunk a new buffer, and V8 freed them only ' +
      'at a collection, after 40–60 MiB of them (the small JS objects around them fill the young generation slowly).',
    'Not mainly the allocator: with glibc’s mmap threshold pinned at 64 KiB (MALLOC_MMAP_THRESHOLD_, every chunk ' +
      'returned on free) a 160 MiB run still grew 55–58 MiB against 65–69.',
    'Now a young-generation collection runs every 2 MiB encrypted (scripts/node-chunks.ts): under 1 ms each; the ' +
      'CLI’s CPU is unchanged (2.0–2.2 s at 300 MiB).',
    'Left: about 20 MiB while it streams, and 10–15 MiB at exit, where V8 finishes a background compile of undici’s ' +
      'WebAssembly HTTP parser (seen with strace; before this change too).',
  ],
  'e2e-cli-download.throughput': [
    'Met since the server pipes the payload after the header (it was 0.48×): the owner’s 64 MiB download ' +
      'took 4.6 s of the local Worker’s CPU, then 2.4 s (plain: 2.5 s).',
  ],
  'e2e-cli-download.memory': [
    'Met: 21.6 MiB growth at 300 MiB against plain’s 59.5, 26 through the link (before: 51 against 44).',
    'Decrypted chunks are freed once written, and a young-generation collection runs every 2 MiB decrypted ' +
      '(scripts/node-chunks.ts): what piled up between collections was garbage arrays (40–60 MiB).',
    'The response’s own chunks, as in plain, now go at the next collection: the plain download keeps its 40–60 ' +
      'MiB, more in this run’s loaded machine (load average 6 on 2 cores).',
  ],
  'e2e-cli-memory.memory': [
    'Met since the CLI frees its chunks as it goes: 27.4 MiB growth at 1 GiB (21.3 in another run), against ' +
      'plain’s 85.9 (76.8); it was 72 against 51.',
    'The plain download grew more than in the quieter run before (51): the machine was loaded (load average 6 on ' +
      '2 cores). Against that 51 the encrypted one is still 0.42–0.54×.',
    'Each decrypted chunk is detached (ArrayBuffer transfer(0)) once written to the file, and a young-generation ' +
      'collection runs every 2 MiB, which frees the response’s chunks (scripts/node-chunks.ts).',
    'At 160 MiB: freeing the written chunks alone changed nothing measurable (52–79 MiB before, 63–79); ' +
      'collecting every 8 MiB gave 38–46, both 33–42, both with a collection every 2 MiB 22–26 (0.5–1 ms each).',
    'One round at 1 GiB each time: the spread is unknown.',
  ],
  'e2e-browser-upload.throughput': [
    'Just short: 21.1 against 14.5 s at 300 MiB; a second run of the case alone gave 0.68 (21.9 against 14.9 s).',
    'Not the crypto alone: the floor (the Web Worker hashing and encrypting the file, 9.5 s) is faster than the ' +
      'plain upload. The SHA-256 for `meta` must come first (it goes with the creation): 2 s before any byte is sent.',
    'Since the header goes alone in the first PATCH, the local Worker spends what the plain upload costs it ' +
      '(14.1 against 13.7 s of CPU; 30 against 15 s before): it takes one of the two cores for the whole upload.',
    'The encryption (7 s of the other core) then competes with Chromium sending the bytes: on 2 cores the ' +
      'encrypted upload is bound by CPU.',
    'Not the request count: 16 MiB PATCHes instead of 8 took the same 20–22 s (0.76 in a run whose plain ' +
      'upload was slower).',
  ],
  'e2e-browser-upload.floor': [
    'The floor (31.5 MiB/s) is above the plain upload (20.7): the cost is the crypto sharing 2 cores with ' +
      'Chromium’s sending and the local Worker, not the crypto’s own speed.',
  ],
  'e2e-browser-download.throughput': [
    'At its floor’s reach on this runtime: 27 MiB/s against a plain download of 117 MiB/s, which Chromium ' +
      'writes to disk itself with no script in the way.',
    'The floor, the page’s own code decrypting the same age file from a Blob with nothing sent or saved, reaches ' +
      '44 MiB/s: ChaCha20-Poly1305 in JavaScript (@noble/ciphers; Web Crypto has no ChaCha20).',
    'The rest is the bytes’ way through the page to the Service Worker, and the network.',
    'The SHA-256 against `meta` now runs in the page’s Web Worker beside the decryption: 19 to 24 MiB/s at 96 MiB ' +
      '(floor 25 to 34–45); the page hands the Service Worker 1 MiB per message, not 64 KiB.',
  ],
  'e2e-browser-download.heap': [
    'Met: the page’s JS heap peaked at 6.6 MB while it decrypted 300 MiB (CDP JSHeapUsedSize every 100 ms).',
  ],
  'upload-1mib.throughput': [
    'Out of reach on this runtime: at 1 MiB no upload that is authenticated, hashed (SHA-256, issue 18) and ' +
      'recorded reaches 0.8×, ours or not. The nearest achievable figure is their floor.',
    'At 1 MiB the fixed work of a request dominates, and the bare Worker does none of it: it hands the body ' +
      'stream to put() and answers.',
    'Such an upload pays at least one call to the key’s object, the hash, the commit to the account and the D1 insert.',
    'The floor (`r2-recorded`) does exactly that and nothing else: 0.73× of the plain put in the run of 2026-11-24, ' +
      '0.71–0.79× across the full runs of issue 20.',
    'The multipart upload reaches 0.88× of the floor: 0.64× of the plain put, from 0.48× before issue 20’s second session.',
    'A form body of known length up to 8 MiB is now read whole, in one read: the file is one view of it, ' +
      'neither gathered from network chunks nor joined.',
    'That took workerd CPU per upload from 23.7 to 20.4 ms in an A/B run; the upload is as fast as the raw ' +
      'upload now (digest-1mib).',
    'Not adopted: the native form parser (formData(), the tutorial Worker). The hash and records cost the same with it.',
    'Its parts are not the streaming parser’s: it ignores filename*, turns an empty file input into a text ' +
      'field, refuses unquoted names.',
    'Not adopted (issue 38): `file-type` for the type check. No difference here beyond the spread (CPU 1.39× ' +
      'the put against 1.41× as built), but 0.8–1.4 ms per ZIP or gzip it inflates (docs/architecture.md).',
  ],
  'upload-1mib.memory': [
    'Out of reach on this runtime: the floor of a hashed, recorded upload (`r2-recorded`, 5.5 MiB, ×1.61) is ' +
      'itself over 1.5×. The nearest achievable figure is that floor.',
    'The hash and the calls hold their own buffers.',
    'Small in absolute terms: 6.4 MiB against 3.4 MiB (7.9 MiB before the whole-body read).',
    'The upload holds the body once, plus what the form’s records and answer cost.',
  ],
  'upload.memory-flat': [
    'Part of the growth from 50 to 300 MiB is the local runtime, not a buffer of ours.',
    'Over the same sizes the bare multipart Worker grows about 1.1–1.25× and the bare single put() about ' +
      '1.5× (see the two upload tables).',
    'edgeshare holds at most one 8 MiB part plus the chunk being read.',
    'The 50 MiB figure also varies between runs by 10–20 MiB.',
    'Not adopted (issue 38): @remix-run/multipart-parser 0.16.3 hands out a part only once its closing ' +
      'boundary is in, holding every byte of it.',
    'Behind our reader’s interface a 120 MiB upload grew workerd by 274–277 MiB against 166–170 MiB with ' +
      'ours: 1.57× against 0.95× the bare multipart Worker (2 rounds each, 2026-11-28).',
  ],
  'digest-1mib.raw-throughput': [
    'Out of reach on this runtime: 0.9× at 1 MiB, for any upload that hashes and records what it stores. At 50 ' +
      'and 300 MiB the raw upload meets the target.',
    'At 50 and 300 MiB it reads the body in 2 MiB pieces into one reused buffer, each hashed and written to ' +
      'the put before the next read.',
    'At 1 MiB the fixed work of a request dominates.',
    'The floor of an authenticated, hashed, recorded upload (`r2-recorded`: a call to an object, the hashed ' +
      'put, a second call, a D1 insert) reaches 0.78× of the plain put in the run of 2026-11-24.',
    'The hashed put alone, read the same way (`r2-digest-reads`), reaches 0.90×.',
    'The nearest achievable figure is the floor; the raw upload reaches 0.82× of it (0.78–0.90× across issue 20’s runs).',
    'What it does beyond the floor is the product’s: a hold on the account’s storage, the file.uploaded ' +
      'event, the type check and the record’s shape.',
    'The hold is taken before the body is read: one call from the key’s object to the account’s.',
    'The file.uploaded event costs 0–2 % of CPU here (the events case).',
  ],
  'digest-1mib.raw-memory': [
    'Out of reach at 1 MiB for any upload that hashes: hashing costs memory of its own at this size.',
    'The hashed put alone (`r2-digest-reads`) grows 1.63× the plain put’s 3.4 MiB in the run of 2026-11-24 (1.47× in an earlier one).',
    'The floor of a recorded upload (`r2-recorded`) grows 1.69×.',
    'The raw upload grows 5.6 MiB: as much as the hashed put alone, and less than that floor.',
    'At 50 and 300 MiB it is within 1.06× of the plain put.',
  ],
  'share-download.throughput': [
    'Met again: since the byte budget (issue 29) a capped link’s body is metered in JavaScript. Read as the ' +
      'runtime’s 4 KiB chunks it measured 0.55× (the full run before this one); read 64 KiB at a time, 1.04× in this run.',
    'A password-protected link checks the password on every request: PBKDF2-SHA-256 at the runtime’s maximum ' +
      'iterations, as the spec requires, tens of ms of CPU per download.',
    'The `service-open` row (a link without a password, same file) is the nearest figure without it.',
    'Quick runs at 8 MiB ranged 0.35–0.84×: the object is stored by one put() and the bare single-put read is ' +
      'very fast locally, so fixed per-request work weighs heavily at this size.',
  ],
  'tus-300mib.throughput-10': [
    'At the floor: 0.8× is where any tus upload in 10 MiB chunks lands on this runtime, ours or not. edgeshare ' +
      'matches that floor, a little above or below it from run to run.',
    'The floor (`tus-floor-10mib`) is a bare Worker doing only what a tus PATCH cannot skip: 0.80× of the ' +
      'single request in the run of 2026-11-24.',
    'The floor’s work per PATCH: a call to the caller’s object; the upload’s state read from and saved to its ' +
      'own object; the body read straight into one part, hashed by the resumable SHA-256; one uploadPart.',
    'edgeshare’s tus: 0.82× (0.75–0.83× across issue 20’s runs, 0.62× before it; an earlier run had 0.797×, ' +
      'just under the line).',
    'Most of the gap is the hash the protocol forces: the SHA-256 state must be kept between PATCHes, which ' +
      'crypto.DigestStream cannot do, so it runs in JavaScript.',
    'The JavaScript SHA-256 costs 3.1 ms per MiB against 0.61 for the native digest the single request uses (costs case, same ' +
      'run): 740 ms of the 790 ms between the two for 300 MiB.',
    'Our SHA-256 beat the one alternative measured in workerd: hash-wasm’s WebAssembly one took 52 against 47 ms for 16 MiB.',
    'Measured, no effect on our SHA-256: calls of 4, 16 or 64 KiB cost the same; integer-only round constants changed nothing.',
    'The rest is per PATCH and per part: 50 MiB chunks (6 PATCHes instead of 30) reach 0.85×.',
    'The local R2 runs on the same thread as the Worker, so nothing overlaps.',
    'Measured, no faster: streaming each part to uploadPart while reading (a FixedLengthStream), against ' +
      'uploading the filled part.',
    'Measured 9 % slower: cutting a chunk in two so the first half is sent while the second is read.',
  ],
  'get-c10.rps': [
    'At the line: 0.78× at 10 and 0.84× at 50 connections in this run, 0.85× and 0.79× in the full run before it, ' +
      '0.81× at both in the run of 2026-11-24 (11 and 9 rounds).',
    'Earlier full runs of issue 20 (7 and 5 rounds) had 0.71–0.80× at 10 and 0.76–0.85× at 50, the two counts trading places.',
    'The local runtime is CPU-bound here: requests/s follow workerd’s CPU per request, which swings by 10–20 % ' +
      'between rounds as the client on the other core competes.',
    'The request makes what the baseline makes: one Durable Object call and one D1 read, counted by ' +
      'test/http/hot-path.test.ts.',
    'The baseline Worker is deployed like the service, with static assets.',
    'What separates the two is the contract’s per-request work.',
    'In an A/B run a bundle answering this route before Hono used 10–15 % less CPU per request, with the same ' +
      'key hash, Durable Object call, D1 read and record.',
    'That bundle had no log line, CORS or rate-limit headers, Server-Timing, _perf or validation.',
    'Dropping any one of those alone (the log line, the CORS headers, the timings, the zod validation) saved ' +
      '2–3 %, inside the spread between rounds. The spec asks for each of them.',
    'The same bundle with all of them put back, written by hand without Hono’s routing and middleware chain, ' +
      'still used 5 % less CPU (4 % more requests/s at 10 connections).',
    'Those 5 % are all the framework costs here: even a hand-written request path would land near the line.',
    'Measured, no effect: one storage write per request in the key’s object instead of two (the window and ' +
      'the last use in one value): 1.62 ms of CPU per request either way, 8 rounds.',
    'Not what earlier cases left in the service’s process: both Workers started fresh for these two cases ' +
      'alone (`--only get`) gave 0.80× at 10 and 0.79× at 50, on a later day 0.85× and 0.78×.',
    'Not how the service is deployed: the baseline’s own code answering from inside the service’s bundle ' +
      'measured 0.99× the baseline Worker (7 rounds, same run), the service’s route 0.85×.',
    'The service’s bundle brought all its bindings (its Durable Object classes, R2, the events queue and its ' +
      'consumers, static assets): the whole gap is the request’s own path.',
    'Not the read: the baseline Worker sending the service’s exact D1 statement (its 16 columns, the owner ' +
      'and expiry conditions) measured 1.01× the plain one.',
    'Not the call: the service with its call to the key’s object cut to the fewest fields a GET needs ' +
      'measured 0.80× against 0.83× as built (8 rounds each, same run).',
    'Not how the object answers: the key’s object answering a cached key without a single await measured ' +
      '0.83× against 0.84× as built.',
    'Not how workerd runs the request: the service without its `enable_request_signal` flag measured 0.85× against 0.85×.',
    'Not the answer’s headers: the baseline sending every header the service sends (CORS, rate limit, ' +
      'Server-Timing, request id) measured 0.99× the plain one.',
    'The small costs together weigh nothing measurable: the service with D1 untimed (no proxy), its CORS and ' +
      'rate-limit headers set directly and a leaner log line measured 0.835× against 0.831× as built (9 rounds each).',
    'Not adopted (issue 38): Hono’s own Server-Timing (`hono/timing`) writing the header from our summed ' +
      'spans: 0.77× against 0.82× as built (medians of 6 and 7 runs of 11 rounds, 2026-11-28), CPU +6 %.',
  ],
  'get-c50.rps': [
    'At the line, for the same reasons as at 10 connections (see get-c10.rps).',
    'workerd is CPU-bound, so more connections only lengthen the queue: p50 grows, requests/s do not.',
    'The two figures trade places between runs.',
  ],
  'bulk.speedup': [
    'Out of reach on this runtime: the tutorial Worker storing the same form (`bulk.bound`) reaches only 1.59× ' +
      'of the ten sequential uploads in the run of 2026-11-24 (1.86× in an earlier one).',
    '`bulk.bound` has its own parser and puts all ten files at once, with no key, hash or record.',
    'The floor of a recorded bulk upload (`bulk.floor`: the same plus a SHA-256 per file, the two calls to ' +
      'the caller’s object and one D1 batch) reaches 1.52×.',
    'The local R2 costs about 12 ms of CPU per 1 MiB put, in one request as in ten.',
    'Ten single uploads took 294 ms, so 2× needs a bulk request of 147 ms: even the tutorial Worker took 186 ' +
      '(160 in the earlier run).',
    'The nearest achievable figure is the floor: edgeshare’s bulk upload took 190 ms against its 194 (1.55×, at the floor).',
    'Runs of this case spread widely (bulk 158–232 ms in the run of 2026-11-24), with the events queue’s consumer waited ' +
      'out between variants.',
  ],
  'crc-1mib.raw-throughput': [
    'Within the spread: 0.95× by the medians, 0.97× by the median of per-round ratios; the request times overlap ' +
      '(19.8–22.4 ms with the CRC-32, 19.7–22.7 ms without).',
    'The CRC-32 is one native call per write of about 1 MiB; the multipart upload computes it the same way and ' +
      'measured 1.01× in this run.',
    'In a bare Worker the same call costs 0.98× of the hashed put (`r2-crc-native` against `r2-digest-reads`, 0.3 ms per MiB).',
    'Not analysed further: the raw upload’s workerd CPU is 1.05× (+1.0 ms per MiB), more than that call alone, ' +
      'in this run and in the full run before it (0.95× there too).',
  ],
  'crc-300mib.raw-throughput': [
    'At the line: 0.97× by the medians and per round (CPU 1.02×) in this run, 1.00× in the full run before it.',
    'The bare Worker’s native CRC-32 of the same bytes costs 0.98× (`r2-crc-native` against `r2-digest-reads`).',
  ],
  'zip-500x64kib.throughput': [
    'At the floor: a bare Worker writing 48 bytes before each object, as a ZIP writes a local header before each ' +
      'member, is as fast as the archive (`zip-500x64kib.headed`: 1.01× in this run, 0.94× in the run before it).',
    'The gap to the headerless concat is the runtime’s cost of one more write per member: 0.08 ms of workerd ' +
      'CPU each (436 against 397 ms for 500), a tenth of the time at 64 KiB, nothing at 16 MiB (zip-20x16mib: 1.03×).',
    'No archive skips that write without member bytes passing through JavaScript, which costs more: the ' +
      'pulled JavaScript stream (`concat-js`) reaches 0.54×.',
    'Measured, not kept (A/B, 5 rounds each, 2026-11-26): a plain get for a whole member instead of a ranged ' +
      'one (0.91× against 0.88×, within the spread).',
    'Measured, slower: the next member’s read opened while one is piped (0.87×, memory 23 → 38 MiB); a small ' +
      'member read whole and written with its header (0.84×, 23 → 116 MiB); the read opened before the header’s write (0.85×).',
    'Against the concat: 0.83× in this run, 0.87× in the full run before it, 0.85–0.92× in runs of this case alone.',
  ],
  'zip-memory.flat': [
    'Out of reach on this runtime: the bare Worker streaming the same objects grows 5.64× itself from 320 MiB ' +
      'to 3 GiB (`zip-memory.flat-bare`: 1.8 → 10.2 MiB).',
    'The archive adds nothing that grows with it: 1.7 → 11.3 MiB, 0.93× the bare Worker at 320 MiB and 1.11× ' +
      'at 3 GiB, 1.00× the bare Worker making the same small write per object (`zip-memory.headed-large`).',
    'Members are piped by the runtime; JavaScript holds one member’s header at a time, and the layout (a ' +
      'small object per member) for the request.',
    'The growth at 3 GiB is 0.37 % of the archive; the same bytes through a JavaScript stream (`concat-js`) grow 432 MiB.',
  ],
  'zip-range-ttfb.ttfb': [
    'At the line: 1.29× by the medians and 1.18× by the median of per-round ratios in this run; 1.19× in the ' +
      'full run before it, 0.83× in a run of the ZIP cases alone (2026-11-26).',
    'In absolute terms 3.9 against 3.1 ms (the bare ranged get: 1.4 ms): under 1 ms of fixed work before the ' +
      'archive’s one ranged get.',
    'That work: the collection and its 64 members in one D1 batch of two statements instead of one row, the ' +
      'layout, and the ETag’s SHA-256.',
  ],
};

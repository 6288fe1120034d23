// npm run cli -- <command> …: edgeshare from a terminal or a script, through the typed client.
// EDGESHARE_URL (default http://127.0.0.1:8787) and EDGESHARE_KEY (an API key) say where and who.
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  openAsBlob,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import * as tus from 'tus-js-client';
import {
  type Collection,
  DEFAULT_CHUNK_SIZE,
  EdgeshareClient,
  EdgeshareError,
  type FileRecord,
  type FileRequest,
  type NewApiKey,
  openLink,
  RESUMABLE_THRESHOLD,
  requestUrlWithRecipient,
  resumedEncryption,
  uploadToRequest,
  useSha256,
} from '../src/client/edgeshare.ts';
import { FILE_ID_PATTERN } from '../src/files/ids.ts';
import {
  AgeError,
  generateIdentity,
  identitiesFromFile,
  identityFile,
  identityToRecipient,
  openIdentityBackup,
  sealIdentityBackup,
  type Unlock,
  useChunkCipher,
  useScrypt,
} from '../src/lib/age/index.ts';
import { NODE_CIPHER, NODE_SCRYPT } from './age-native.ts';
import { collectingEvery, writeAndFree } from './node-chunks.ts';

// Every STREAM chunk (encrypting uploads, decrypting downloads) through Node's native ChaCha20-Poly1305,
// every passphrase (links, the identity's backup) through its scrypt, and the downloads' checks
// (Repr-Digest, meta's SHA-256) through node:crypto's SHA-256.
useChunkCipher(NODE_CIPHER);
useScrypt(NODE_SCRYPT);
useSha256(() => createHash('sha256'));

const USAGE = `usage: npm run cli -- <command> [options]

commands:
  upload FILE…            upload files (tus, resumable, from ${RESUMABLE_THRESHOLD / 1024 / 1024} MiB on; after Ctrl-C run it again to resume)
      --private             share links answer 404 (default: public)
      --expires SECONDS     expire after SECONDS (60 … 31536000)
      --chunk-size MIB      tus request size in MiB (default ${DEFAULT_CHUNK_SIZE / 1024 / 1024})
      --e2e                 end-to-end encrypt (age, to your identity's recipient) while it uploads; the
                            real name, type, size and SHA-256 go sealed in meta; resumable as any upload
  list                    your files, newest first
      --page N  --limit N  --q TEXT  --sort uploadedAt|size|name  --order asc|desc
  info ID                 one file's record
  download ID             save the file (its original name, or -o PATH; - for stdout); the bytes are
                          checked against the SHA-256 the server states (Repr-Digest) as they arrive;
                          an encrypted file is decrypted with your identity as it streams
      --verify              also fail when the server states no digest, and print the SHA-256
  download URL            open a share link to an encrypted file, no key needed: URL#k=AGE-SECRET-KEY-1…
                          as shared, or --passphrase PW|- for a passphrase link; decrypted as it streams
      --password PW|-       the link's own password, when it has one
  verify ID FILE          compare a local file's SHA-256 with the stored file's (exit 1 if they differ)
  share ID                print the file's share link; with any option below, make a new link to it.
                          An encrypted file always gets a new link, its key after #k= in the URL printed
      --passphrase PW|-     (encrypted files) the link opens with PW instead of a key in the URL
      --password PW         visitors need PW (on the page, or curl -u :PW); "-" reads it from stdin
      --max-downloads N     the link gives N downloads, then answers 404
      --expires SECONDS     the link expires after SECONDS (60 … 31536000)
      --label TEXT          a note for you (visitors never see it)
  links ID                the links made to a file, with their counts and status
  revoke LINK_ID          revoke a made link: its URL answers 404 from now on
  access ID               who fetched what: a link's access log (lnk_…), a collection's (col_…: every
                          link to it), or a file's (its default link and every link to it), newest first
      --request             ID is a file request's: its page and uploads
      --limit N             events per page (1 … 100, default 20)
      --cursor CURSOR       the next page (printed at the end of a page)
  delete ID…              delete files
  usage                   storage used, quota, file count, rate limit
  collections list [ID]   your collections; with ID, its files in collection order
  collections create NAME [FILE_ID…]   make one (--note TEXT), its files in the order given; prints its id
                          and its archive URL (…?v=<version>: 412 once the collection changes)
  collections add ID FILE_ID…          append files to it (ids already in it are ignored)
  collections remove ID FILE_ID        take a file out of it (the file stays)
  collections link ID     make a share link to it (--password, --max-downloads, --expires, --label as for share);
                          its encrypted members get headers for one new key (#k= in the URL) or --passphrase
  collections archive ID  save its ZIP (its name, or -o PATH; - for stdout); after a broken run, run it
                          again to resume from where it stopped (PATH.part)
  collections delete ID   delete it and its links (never its files)
  policy                  the bounds the service sets on your account (expiries, passwords, caps)
  requests list           your file requests (upload links for people without a key)
  requests create         make one; prints its page URL
      --label TEXT  --message TEXT  --max-files N  --max-file-size BYTES  --max-bytes BYTES
      --types PATTERN,…  --expires SECONDS  --password TEXT  --public
      --e2e                 takes only encrypted files, encrypted to your recipient: its URL ends in #r=age1…
  requests close ID       close a request (the files it received stay)
  request-upload URL FILE…  send files to an encrypted request (URL#r=age1… as shared), encrypted while
                          they upload; no key needed (--password PW|- for a request's password)
  identity init           make your age identity (kept in EDGESHARE_IDENTITY) and set its recipient on the
                          account (--replace to change another one; files keep their old headers)
  identity show           your recipient, here and on the account, and whether a backup is kept
  identity export         print your identity file (age-keygen's format: age -d -i FILE opens your files)
  identity import FILE    take an identity file (age-keygen's) as yours and set its recipient (--replace)
  identity backup         keep your identity on the account, encrypted with --passphrase PW|- (never sent)
  identity restore        fetch that backup and open it with --passphrase PW|- (another device)
  webhooks list           your webhooks
  webhooks create URL     add a webhook; prints its secret (whsec_…) once
      --events LIST         comma-separated event types (default: * for all)
  webhooks delete ID      delete a webhook
  webhooks deliveries ID  its recent deliveries (--limit N, default 20)
  webhooks retry ID DELIVERY_ID   send a delivery again
  keys list               the account's API keys (the key needs keys:write)
  keys create NAME        a new key for the account, printed once as the last line
      --scope SCOPE         repeat for each scope (default: all of this key's scopes)
      --expires SECONDS     the new key expires after SECONDS (default: when this key does)
  keys revoke ID          revoke a key of the account (e.g. the old one, after a rotation)

options: --json (machine-readable output on stdout), -h/--help
environment: EDGESHARE_URL (default http://127.0.0.1:8787), EDGESHARE_KEY (required),
             EDGESHARE_IDENTITY (your age identity file, default ~/.edgeshare/identity.txt)
exit codes: 0 done; 1 the service refused something (a file failed, unknown id, …);
            2 bad command line; 3 no key, or the service cannot be reached`;

const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

// tus-js-client's Node build has a file-backed URL store (its typings leave it out): it remembers
// unfinished uploads between runs, so running the same command again resumes them.
const { FileUrlStorage } = tus as unknown as { FileUrlStorage: new (path: string) => tus.UrlStorage };

class UsageError extends Error {}

const OPTIONS = {
  json: { type: 'boolean', default: false },
  private: { type: 'boolean', default: false },
  expires: { type: 'string' },
  password: { type: 'string' },
  'max-downloads': { type: 'string' },
  label: { type: 'string' },
  'chunk-size': { type: 'string' },
  page: { type: 'string' },
  limit: { type: 'string' },
  q: { type: 'string' },
  sort: { type: 'string' },
  order: { type: 'string' },
  events: { type: 'string' },
  output: { type: 'string', short: 'o' },
  verify: { type: 'boolean', default: false },
  message: { type: 'string' },
  note: { type: 'string' },
  'max-files': { type: 'string' },
  'max-file-size': { type: 'string' },
  'max-bytes': { type: 'string' },
  types: { type: 'string' },
  public: { type: 'boolean', default: false },
  scope: { type: 'string', multiple: true },
  request: { type: 'boolean', default: false },
  cursor: { type: 'string' },
  e2e: { type: 'boolean', default: false },
  passphrase: { type: 'string' },
  replace: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

/**
 * A file's (or a file request's) id is 22 base64url characters and may start with '-', which
 * parseArgs would read as an option. Such an argument before any '--' is held back as a
 * placeholder while the options are parsed, then put back where it stood (a positional, or an
 * option's value): no option is that long, so nothing that could be one is taken for an id.
 */
const isDashedId = (arg: string) => arg.startsWith('-') && FILE_ID_PATTERN.test(arg);

function parseCommandLine(argv: string[]) {
  const held: string[] = [];
  const end = argv.indexOf('--');
  const masked = argv.map((arg, index) =>
    isDashedId(arg) && (end === -1 || index < end) ? `\u0000${held.push(arg) - 1}` : arg,
  );
  const unmask = (arg: string) => (arg.startsWith('\u0000') ? (held[Number(arg.slice(1))] ?? arg) : arg);
  const parsed = parseArgs({ args: masked, allowPositionals: true, options: OPTIONS });
  const values = Object.fromEntries(
    Object.entries(parsed.values).map(([name, value]) => [
      name,
      typeof value === 'string' ? unmask(value) : Array.isArray(value) ? value.map(unmask) : value,
    ]),
  ) as typeof parsed.values;
  return { values, positionals: parsed.positionals.map(unmask) };
}

let commandLine: ReturnType<typeof parseCommandLine>;
try {
  commandLine = parseCommandLine(process.argv.slice(2));
} catch (error) {
  // An unknown option or a missing value: a bad command line (exit 2), never a stack trace.
  console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
  process.exit(EXIT.usage);
}
const { values, positionals } = commandLine;
const [command, ...args] = positionals;
const json = values.json ?? false;
const out = (value: unknown, text: string) => console.log(json ? JSON.stringify(value, null, 2) : text);

function whole(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

function client(): EdgeshareClient {
  const apiKey = process.env.EDGESHARE_KEY;
  if (!apiKey) {
    console.error('EDGESHARE_KEY is not set: export EDGESHARE_KEY=esk_… (npm run keys -- create --name me)');
    process.exit(EXIT.unreachable);
  }
  return new EdgeshareClient({ baseUrl: process.env.EDGESHARE_URL ?? 'http://127.0.0.1:8787', apiKey });
}

const human = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

/** One progress line per file on stderr (redrawn in place on a terminal). */
function progress(name: string) {
  const tty = process.stderr.isTTY;
  let lastShown = -1;
  return (sent: number, total: number) => {
    const percent = total > 0 ? Math.floor((sent / total) * 100) : 100;
    if (!tty && percent < lastShown + 25 && percent !== 100) return;
    lastShown = percent;
    const width = 24;
    const filled = Math.round((percent / 100) * width);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${human(sent)}/${human(total)}`;
    process.stderr.write(tty ? `\r${name} ${bar}` : `${name} ${bar}\n`);
    if (tty && sent >= total) process.stderr.write('\n');
  };
}

/**
 * Runs an upload that Ctrl-C stops: it is aborted (staying resumable), and the CLI exits 130
 * saying that the same command resumes it.
 */
async function untilInterrupted<T>(name: string, upload: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  try {
    return await upload(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      console.error(`\n${name}: interrupted; run the same command again to resume`);
      process.exit(130);
    }
    throw error;
  } finally {
    process.off('SIGINT', stop);
  }
}

async function upload(files: string[]): Promise<number> {
  if (files.length === 0) throw new UsageError('upload needs at least one FILE');
  const api = client();
  const expiresIn = whole('expires', values.expires);
  const chunkMiB = whole('chunk-size', values['chunk-size']);
  const threshold = Number(process.env.EDGESHARE_RESUMABLE_THRESHOLD ?? RESUMABLE_THRESHOLD);
  // Where tus remembers unfinished uploads, so the same command resumes them after Ctrl-C.
  const urlStorage = new FileUrlStorage(process.env.EDGESHARE_STATE ?? join(homedir(), '.edgeshare-uploads.json'));
  let failed = 0;
  const results: (FileRecord | { file: string; error: string; code?: string })[] = [];
  for (const path of files) {
    const name = basename(path);
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      failed++;
      results.push({ file: path, error: 'cannot read the file' });
      console.error(`${path}: cannot read the file`);
      continue;
    }
    const show = progress(name);
    const options = { filename: name, isPublic: !values.private, expiresIn };
    try {
      let record: FileRecord;
      if (values.e2e) {
        record = await uploadEncryptedFile(api, path, name, size >= threshold, {
          ...options,
          chunkSize: chunkMiB ? chunkMiB * 1024 * 1024 : DEFAULT_CHUNK_SIZE,
          onProgress: show,
          urlStorage,
        });
      } else if (size >= threshold) {
        record = await untilInterrupted(name, (signal) =>
          api.uploadResumable(createReadStream(path), {
            ...options,
            size,
            chunkSize: chunkMiB ? chunkMiB * 1024 * 1024 : DEFAULT_CHUNK_SIZE,
            onProgress: show,
            signal,
            tus: { urlStorage, storeFingerprintForResuming: true },
          }),
        );
      } else {
        show(0, size);
        const blob = await new Response(Readable.toWeb(createReadStream(path)) as ReadableStream).blob();
        const uploaded = await api.upload(blob, options);
        show(size, size);
        record = await api.get(uploaded.id);
      }
      results.push(record);
      if (!json) console.log(`${name}\t${record.id}\t${record.shareUrl}\tsha256:${record.sha256 ?? '(pending)'}`);
    } catch (error) {
      failed++;
      const refusal =
        error instanceof EdgeshareError ? { error: error.message, code: error.code } : { error: String(error) };
      results.push({ file: path, ...refusal });
      console.error(`${name}: ${refusal.error}${'code' in refusal ? ` (${refusal.code})` : ''}`);
      if (!(error instanceof EdgeshareError)) throw error;
    }
  }
  if (json) console.log(JSON.stringify(results, null, 2));
  return failed > 0 ? EXIT.refused : EXIT.ok;
}

/** Where the CLI keeps the age identity: EDGESHARE_IDENTITY, or ~/.edgeshare/identity.txt. */
const identityPath = () => resolve(process.env.EDGESHARE_IDENTITY ?? join(homedir(), '.edgeshare', 'identity.txt'));

/** The identity kept here, or a UsageError saying how to make or fetch one. */
function localIdentity(): string {
  const path = identityPath();
  if (!existsSync(path)) {
    throw new UsageError(
      `no age identity at ${path}: run identity init (a new one), identity restore or identity import FILE`,
    );
  }
  const [identity] = identitiesFromFile(readFileSync(path, 'utf8'));
  if (!identity) throw new UsageError(`${path} holds no identity`);
  return identity;
}

const unlockOwn = (): Unlock => ({ identity: localIdentity() });

/** Writes an identity file readable by its owner only (0600), in a folder made for it. */
async function saveIdentity(identity: string): Promise<string> {
  const path = identityPath();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, await identityFile(identity), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** The state file of encrypted uploads under way (header and nonce, base64; no key): beside tus's own. */
const e2eStatePath = () => `${process.env.EDGESHARE_STATE ?? join(homedir(), '.edgeshare-uploads.json')}.e2e.json`;
type SavedEncryption = Record<string, { header: string; nonce: string }>;
const readE2eState = (): SavedEncryption =>
  existsSync(e2eStatePath()) ? (JSON.parse(readFileSync(e2eStatePath(), 'utf8')) as SavedEncryption) : {};
function writeE2eState(change: (state: SavedEncryption) => void): void {
  const state = readE2eState();
  change(state);
  writeFileSync(e2eStatePath(), JSON.stringify(state, null, 2), { mode: 0o600 });
}

/**
 * Uploads one file encrypted (age, to the account's recipient) while it streams. Through tus the
 * header and nonce are kept (e2eStatePath) under the file's fingerprint, and the file key is
 * recovered from that header with the identity: the same command after Ctrl-C makes the same age
 * file again and tus resumes it where the server's copy ends.
 */
async function uploadEncryptedFile(
  api: EdgeshareClient,
  path: string,
  name: string,
  resumable: boolean,
  options: {
    isPublic: boolean;
    expiresIn: number | undefined;
    chunkSize: number;
    onProgress: (sent: number, total: number) => void;
    urlStorage: tus.UrlStorage;
  },
): Promise<FileRecord> {
  const unlock = unlockOwn();
  const stat = statSync(path);
  const fingerprint = `edgeshare-e2e:${resolve(path)}:${stat.size}:${stat.mtimeMs}`;
  const saved = resumable ? readE2eState()[fingerprint] : undefined;
  const state = saved
    ? await resumedEncryption(
        { header: Buffer.from(saved.header, 'base64'), nonce: Buffer.from(saved.nonce, 'base64') },
        unlock,
      )
    : undefined;
  const blob = await openAsBlob(path);
  // Both reads of the file (the hash, then the encryption) go through one handle into buffers used
  // again and again: a new buffer per read would be garbage that Node's heap lets pile up for tens
  // of MiB before it collects it (see ReadAt).
  const handle = await open(path, 'r');
  try {
    // `meta` (with the plaintext's SHA-256) goes with the first request, so the file is read once
    // before it is encrypted: by node:crypto's native SHA-256, not the typed client's own.
    const plaintextSha256 = await sha256OfHandle(handle);
    // As a Blob of the file would, a read refuses a file changed since (its size or time differ):
    // its bytes would no longer be the ones `meta` hashed, nor the ones an earlier attempt sent.
    // Each read is encrypted into new chunks: a collection every few MiB frees them (node-chunks.ts).
    const moved = collectingEvery();
    const readAt = async (into: Uint8Array, position: number) => {
      const now = await handle.stat();
      if (now.size !== stat.size || now.mtimeMs !== stat.mtimeMs) throw new Error(`${path} changed while uploading`);
      const { bytesRead } = await handle.read(into, 0, into.length, position);
      moved(bytesRead);
      return bytesRead;
    };
    const { file } = await untilInterrupted(name, (signal) =>
      api.uploadEncrypted(blob, {
        name,
        plaintextSha256,
        readAt,
        isPublic: options.isPublic,
        expiresIn: options.expiresIn,
        resumable,
        state,
        chunkSize: options.chunkSize,
        onProgress: options.onProgress,
        signal,
        onState: (made) => {
          if (!resumable) return;
          writeE2eState((all) => {
            all[fingerprint] = {
              header: Buffer.from(made.header).toString('base64'),
              nonce: Buffer.from(made.nonce).toString('base64'),
            };
          });
        },
        tus: {
          urlStorage: options.urlStorage,
          storeFingerprintForResuming: true,
          fingerprint: () => Promise.resolve(fingerprint),
        },
      }),
    );
    if (resumable) writeE2eState((all) => delete all[fingerprint]);
    return file;
  } finally {
    await handle.close();
  }
}

/** The SHA-256 (hex) of an open file, read from its start into one 1 MiB buffer. */
async function sha256OfHandle(handle: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  const buffer = new Uint8Array(1024 * 1024);
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return hash.digest('hex');
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
}

/** `identity init|show|export|import|backup|restore`. */
async function identityCommand([action, ...rest]: string[]): Promise<number> {
  const exactly = (count: number, what: string) => {
    if (rest.length !== count) throw new UsageError(`identity ${action} needs ${what}`);
  };
  switch (action) {
    case 'init': {
      exactly(0, 'no arguments');
      if (existsSync(identityPath())) {
        throw new UsageError(`${identityPath()} exists already: identity show, or move it away first`);
      }
      const identity = await generateIdentity();
      const recipient = await identityToRecipient(identity);
      // The account first: a refusal (another recipient set) leaves no new identity behind.
      const kept = await client().putIdentity({ recipient, ...(values.replace ? { replace: true } : {}) });
      const path = await saveIdentity(identity);
      out(
        { recipient: kept.recipient, path },
        `identity saved in ${path} (keep it: without it your encrypted files cannot be opened)\nrecipient: ${recipient}\nback it up on the account: identity backup --passphrase -`,
      );
      return EXIT.ok;
    }
    case 'show': {
      exactly(0, 'no arguments');
      const path = identityPath();
      const local = existsSync(path) ? await identityToRecipient(localIdentity()) : null;
      const remote = await client().getIdentity();
      const lines = [
        `here:     ${local ?? `none (${path})`}`,
        `account:  ${remote.recipient ?? 'none'}${local && remote.recipient && local !== remote.recipient ? '  (differs: uploads encrypt to the account’s)' : ''}`,
        `backup:   ${remote.backup ? 'kept on the account (passphrase)' : 'none'}`,
      ];
      out({ path, local, recipient: remote.recipient, backup: remote.backup !== null }, lines.join('\n'));
      return EXIT.ok;
    }
    case 'export': {
      exactly(0, 'no arguments');
      const text = await identityFile(localIdentity());
      if (values.output && values.output !== '-') {
        writeFileSync(values.output, text, { mode: 0o600 });
        console.error(`saved ${values.output}`);
      } else process.stdout.write(text);
      return EXIT.ok;
    }
    case 'import': {
      exactly(1, 'an identity FILE (age-keygen’s)');
      const [identity] = identitiesFromFile(readFileSync(rest[0] as string, 'utf8'));
      if (!identity) throw new UsageError('the file holds no identity');
      const recipient = await identityToRecipient(identity);
      await client().putIdentity({ recipient, ...(values.replace ? { replace: true } : {}) });
      const path = await saveIdentity(identity);
      out({ recipient, path }, `identity saved in ${path}\nrecipient: ${recipient}`);
      return EXIT.ok;
    }
    case 'backup': {
      exactly(0, 'no arguments');
      const passphrase = await readSecret('passphrase', values.passphrase);
      if (!passphrase) throw new UsageError('identity backup needs --passphrase PW (or - to read it from stdin)');
      const identity = localIdentity();
      const backup = await sealIdentityBackup(identity, passphrase);
      const recipient = await identityToRecipient(identity);
      await client().putIdentity({ recipient, backup });
      out({ recipient, backup: true }, 'backup kept on the account, encrypted with your passphrase');
      return EXIT.ok;
    }
    case 'restore': {
      exactly(0, 'no arguments');
      const passphrase = await readSecret('passphrase', values.passphrase);
      if (!passphrase) throw new UsageError('identity restore needs --passphrase PW (or - to read it from stdin)');
      const { backup, recipient } = await client().getIdentity();
      if (!backup) {
        console.error('the account keeps no backup of an identity');
        return EXIT.refused;
      }
      const identity = await openIdentityBackup(backup, passphrase);
      const restored = await identityToRecipient(identity);
      if (existsSync(identityPath()) && (await identityToRecipient(localIdentity())) !== restored) {
        throw new UsageError(`${identityPath()} holds another identity: move it away first`);
      }
      const path = await saveIdentity(identity);
      const note = recipient === restored ? '' : ' (not the account’s recipient now: it opens older files)';
      out({ recipient: restored, path }, `identity restored to ${path}${note}\nrecipient: ${restored}`);
      return EXIT.ok;
    }
    default:
      throw new UsageError('identity needs init, show, export, import FILE, backup or restore');
  }
}

/** Saves an opened age download: to -o PATH, - for stdout, or its name; whole or not at all (saveAtomically). */
async function saveDecrypted(plaintext: ReadableStream<Uint8Array>, name: string): Promise<string> {
  const target = values.output ?? name;
  if (target === '-') {
    await pipeline(Readable.fromWeb(plaintext as import('node:stream/web').ReadableStream<Uint8Array>), process.stdout);
    return target;
  }
  // Whole or not at all, as a plain download; each decrypted chunk is freed once written
  // (node-chunks.ts), so memory stays flat.
  await saveAtomically(target, async (temporary) => {
    const handle = await open(temporary, 'wx');
    try {
      await writeAndFree(plaintext, handle);
    } finally {
      await handle.close();
    }
  });
  return target;
}

/** `download URL`: a share link to an encrypted file, opened with its #k= key or --passphrase. */
async function downloadLink(url: string): Promise<number> {
  const passphrase = await readSecret('passphrase', values.passphrase);
  const password = await readSecret('password', values.password);
  const opened = await openLink(url, { passphrase, password });
  const target = await saveDecrypted(opened.plaintext, opened.meta?.name ?? opened.name ?? 'download');
  if (target !== '-') {
    const size = statSync(target).size;
    out({ path: target, size }, `saved ${target} (${human(size)}), decrypted`);
  }
  return EXIT.ok;
}

/** `request-upload URL FILE…`: files encrypted to the request's recipient (#r=) while they upload. */
async function requestUpload([url, ...files]: string[]): Promise<number> {
  if (!url || files.length === 0) throw new UsageError('request-upload needs a URL (…#r=age1…) and at least one FILE');
  const password = await readSecret('password', values.password);
  const received = [];
  for (const path of files) {
    const name = basename(path);
    const file = await uploadToRequest(url, await openAsBlob(path), { name, password });
    received.push({ file: path, ...file });
    if (!json) console.log(`${name}\tsent encrypted (${human(file.size)})`);
  }
  if (json) console.log(JSON.stringify(received, null, 2));
  return EXIT.ok;
}

/** One page of an access log, one event per line, then where the next page starts. */
async function access(id: string): Promise<number> {
  const of = values.request
    ? { requestId: id }
    : id.startsWith('lnk_')
      ? { linkId: id }
      : id.startsWith('col_')
        ? { collectionId: id }
        : { fileId: id };
  const page = await client().accessLog(of, { limit: whole('limit', values.limit), cursor: values.cursor });
  const lines = page.events.map((event) =>
    [
      event.at,
      event.kind.padEnd(8),
      event.outcome.padEnd(17),
      String(event.status),
      human(event.bytes).padStart(10),
      event.client.padEnd(7),
      (event.country ?? '--').padEnd(2),
      event.visitor,
      event.linkId ?? '',
    ].join('  '),
  );
  if (lines.length === 0) lines.push('no events');
  if (page.droppedEvents > 0) lines.push(`${page.droppedEvents} events dropped under load (never recorded)`);
  if (page.nextCursor) lines.push(`more: --cursor ${page.nextCursor}`);
  out(page, lines.join('\n'));
  return EXIT.ok;
}

async function run(): Promise<number> {
  switch (command) {
    case 'upload':
      return upload(args);
    case 'list': {
      const { files, pagination } = await client().list({
        page: whole('page', values.page),
        limit: whole('limit', values.limit),
        q: values.q,
        sort: values.sort as 'uploadedAt' | 'size' | 'name' | undefined,
        order: values.order as 'asc' | 'desc' | undefined,
      });
      const lines = files.map((file) =>
        [
          file.id,
          human(file.size).padStart(10),
          file.uploadedAt,
          file.isPublic ? 'public ' : 'private',
          file.originalName,
        ].join('  '),
      );
      lines.push(`page ${pagination.page} of ${Math.max(1, pagination.totalPages)} (${pagination.total} files)`);
      out({ files, pagination }, lines.join('\n'));
      return EXIT.ok;
    }
    case 'info': {
      const file = await client().get(one('info'));
      out(
        file,
        Object.entries(file)
          .map(([name, value]) => `${name.padEnd(14)}${value}`)
          .join('\n'),
      );
      return EXIT.ok;
    }
    case 'share': {
      const file = await client().get(one('share'));
      if (file.encryption === 'age') return shareEncrypted(file.id);
      if (values.passphrase !== undefined) throw new UsageError('--passphrase is for encrypted files');
      if (wantsLink()) return share(file.id);
      out(
        { id: file.id, shareUrl: file.shareUrl, isPublic: file.isPublic },
        file.isPublic ? file.shareUrl : `${file.shareUrl}  (private: the link answers 404; make it public first)`,
      );
      return EXIT.ok;
    }
    case 'links': {
      const links = await client().listLinks(one('links'));
      const lines = links.map((link) =>
        [
          link.id,
          link.status.padEnd(9),
          `${link.downloadCount}${link.maxDownloads === null ? '' : `/${link.maxDownloads}`}`.padStart(7),
          link.hasPassword ? 'password' : '        ',
          link.expiresAt ?? 'no expiry',
          link.url,
          link.label ?? '',
        ].join('  '),
      );
      out({ links }, lines.length > 0 ? lines.join('\n') : 'no links made to this file');
      return EXIT.ok;
    }
    case 'access':
      return access(one('access'));
    case 'revoke': {
      const link = await client().revokeLink(one('revoke'));
      out(link, `revoked ${link.id}`);
      return EXIT.ok;
    }
    case 'download': {
      const id = one('download');
      // A share link needs no key: whoever holds it (and its #k=) opens it.
      if (/^https?:\/\//.test(id)) return downloadLink(id);
      const api = client();
      const file = await api.get(id);
      if (file.encryption === 'age') {
        const opened = await api.downloadDecrypted(file, unlockOwn());
        const target = await saveDecrypted(
          opened.plaintext,
          opened.meta?.name ?? file.originalName.replace(/\.age$/, ''),
        );
        const size = target === '-' ? (opened.meta?.size ?? 0) : statSync(target).size;
        const checked = opened.meta ? ` sha256:${opened.meta.sha256} verified` : '';
        if (target !== '-')
          out(
            { id, path: target, size, sha256: opened.meta?.sha256 ?? null },
            `saved ${target} (${human(size)}), decrypted${checked}`,
          );
        return EXIT.ok;
      }
      const response = await api.download(id);
      const stated = response.headers.get('repr-digest');
      if (values.verify && !stated) {
        console.error(`${id}: the server states no digest for this file yet; nothing to verify against`);
        return EXIT.refused;
      }
      const target = values.output ?? file.originalName;
      const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
      // The client errors the body at its end if the bytes do not match: nothing is saved then.
      if (target === '-') await pipeline(body, process.stdout);
      else
        await saveAtomically(target, (temporary, signal) =>
          pipeline(body, createWriteStream(temporary, { flags: 'wx' }), { signal }),
        );
      const verified = stated ? ` sha256:${file.sha256} verified` : '';
      if (target !== '-')
        out(
          { id, path: target, size: file.size, sha256: file.sha256, verified: Boolean(stated) },
          `saved ${target} (${human(file.size)})${verified}`,
        );
      else if (values.verify) console.error(`sha256:${file.sha256} verified`);
      return EXIT.ok;
    }
    case 'verify': {
      const [id, path, ...rest] = args;
      if (!id || !path || rest.length > 0) throw new UsageError('verify needs an ID and a FILE');
      const file = await client().get(id);
      const hash = createHash('sha256');
      await pipeline(createReadStream(path), hash);
      const local = hash.digest('hex');
      const same = file.sha256 === local;
      const line =
        file.sha256 === null
          ? `${id}: the server has no digest for this file yet (local ${local})`
          : `${same ? 'match' : 'MISMATCH'}  local ${local}  stored ${file.sha256}`;
      out({ id, path, local, stored: file.sha256, match: same }, line);
      return same ? EXIT.ok : EXIT.refused;
    }
    case 'delete': {
      if (args.length === 0) throw new UsageError('delete needs at least one ID');
      const result = await client().deleteMany(args);
      out(
        result,
        result.results
          .map((item: (typeof result.results)[number]) =>
            item.success ? `deleted ${item.id}` : `${item.id}: ${item.error}`,
          )
          .join('\n'),
      );
      return result.failed > 0 ? EXIT.refused : EXIT.ok;
    }
    case 'usage': {
      const usage = await client().usage();
      out(
        usage,
        [
          `storage   ${human(usage.usedBytes)} of ${human(usage.quotaBytes)}${usage.reservedBytes ? ` (+${human(usage.reservedBytes)} uploading)` : ''}`,
          `files     ${usage.files} of ${usage.maxFiles}`,
          `requests  ${usage.rateLimit.requests} per ${usage.rateLimit.windowSeconds} s`,
        ].join('\n'),
      );
      return EXIT.ok;
    }
    case 'collections':
      return collections(args);
    case 'policy': {
      const policy = await client().policy();
      const width = Math.max(...Object.keys(policy).map((name) => name.length));
      out(
        policy,
        Object.entries(policy)
          .map(([name, value]) => `${name.padEnd(width)}  ${value === null ? 'none' : value}`)
          .join('\n'),
      );
      return EXIT.ok;
    }
    case 'requests':
      return requests();
    case 'webhooks':
      return webhooks(args);
    case 'keys':
      return keysCommand();
    case 'identity':
      return identityCommand(args);
    case 'request-upload':
      return requestUpload(args);
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'a command is needed');
  }
}

const requestLine = (request: FileRequest) =>
  [
    request.id,
    request.status.padEnd(7),
    `${request.fileCount}/${request.maxFiles} files`,
    human(request.bytes).padStart(10),
    request.url,
    request.label ?? '',
  ].join('  ');

async function requests(): Promise<number> {
  const [action, ...rest] = args;
  const api = client();
  switch (action) {
    case 'list': {
      const { requests: found, pagination } = await api.listRequests({
        page: whole('page', values.page),
        limit: whole('limit', values.limit),
      });
      const lines = found.map(requestLine);
      lines.push(`page ${pagination.page} of ${Math.max(1, pagination.totalPages)} (${pagination.total} requests)`);
      out({ requests: found, pagination }, lines.join('\n'));
      return EXIT.ok;
    }
    case 'create': {
      const made = await api.createRequest({
        label: values.label,
        message: values.message,
        maxFiles: whole('max-files', values['max-files']),
        maxFileSize: whole('max-file-size', values['max-file-size']),
        maxBytes: whole('max-bytes', values['max-bytes']),
        allowedTypes: values.types?.split(',').map((type) => type.trim()),
        expiresIn: whole('expires', values.expires),
        password: await readPassword(values.password),
        isPublic: values.public || undefined,
        ...(values.e2e ? { e2e: true } : {}),
      });
      if (made.e2e) {
        // The recipient travels only in the fragment: the server never serves it.
        const { recipient } = await api.getIdentity();
        const url = recipient ? requestUrlWithRecipient(made.url, recipient) : made.url;
        out(
          { ...made, url },
          `${url}\nsend:   npm run cli -- request-upload '${url}' FILE\nid:     ${made.id}${recipient ? '' : '\n(no recipient on the account: run identity init)'}`,
        );
        return EXIT.ok;
      }
      out(
        made,
        `${made.url}\nupload: curl -F file=@FILE ${made.uploadUrl}\ntus:    ${made.tusUrl}\nid:     ${made.id}`,
      );
      return EXIT.ok;
    }
    case 'close': {
      const [id, ...extra] = rest;
      if (!id || extra.length > 0) throw new UsageError('requests close needs exactly one ID');
      const closed = await api.closeRequest(id);
      out(closed, `closed ${closed.id} (${closed.fileCount} files received stay)`);
      return EXIT.ok;
    }
    default:
      throw new UsageError('requests needs list, create or close');
  }
}

const collectionLine = (collection: Collection) =>
  [
    collection.id,
    `${collection.fileCount} files`.padStart(11),
    human(collection.bytes).padStart(10),
    collection.updatedAt,
    collection.name,
  ].join('  ');

async function collections([action, ...rest]: string[]): Promise<number> {
  const api = client();
  const [id = '', ...fileIds] = rest;
  const needs = (ok: boolean, what: string) => {
    if (!ok) throw new UsageError(`collections ${action} needs ${what}`);
  };
  switch (action) {
    case 'list': {
      needs(rest.length <= 1, 'at most one ID');
      const page = { page: whole('page', values.page), limit: whole('limit', values.limit) };
      if (!id) {
        const { collections: found, pagination } = await api.listCollections(page);
        const lines = found.map(collectionLine);
        lines.push(
          `page ${pagination.page} of ${Math.max(1, pagination.totalPages)} (${pagination.total} collections)`,
        );
        out({ collections: found, pagination }, lines.join('\n'));
        return EXIT.ok;
      }
      const { files, pagination } = await api.collectionFiles(id, page);
      const lines = files.map((file) => [file.id, human(file.size).padStart(10), file.originalName].join('  '));
      lines.push(`page ${pagination.page} of ${Math.max(1, pagination.totalPages)} (${pagination.total} files)`);
      out({ files, pagination }, lines.join('\n'));
      return EXIT.ok;
    }
    case 'create': {
      needs(Boolean(id), 'a NAME');
      const made = await api.createCollection({ name: id, note: values.note, fileIds });
      out(made, `${made.id}  ${made.name} (${made.fileCount} files)\narchive: ${made.archiveUrl}`);
      return EXIT.ok;
    }
    case 'add': {
      needs(Boolean(id) && fileIds.length > 0, 'an ID and at least one FILE_ID');
      const grown = await api.addToCollection(id, fileIds);
      out(grown, `${grown.id}  ${grown.fileCount} files (${human(grown.bytes)})`);
      return EXIT.ok;
    }
    case 'remove': {
      needs(Boolean(id) && fileIds.length === 1, 'an ID and one FILE_ID');
      const changed = await api.removeFromCollection(id, fileIds[0] as string);
      out(changed, `removed; ${changed.fileCount} files left`);
      return EXIT.ok;
    }
    case 'link': {
      needs(Boolean(id) && fileIds.length === 0, 'exactly one ID');
      const passphrase = await readSecret('passphrase', values.passphrase);
      // Encrypted members get headers from the identity; a collection of plain files needs none.
      const made = await api.createEncryptedCollectionLink(id, unlockOwn, {
        passphrase,
        password: await readPassword(values.password),
        maxDownloads: whole('max-downloads', values['max-downloads']),
        expiresIn: whole('expires', values.expires),
        label: values.label,
      });
      out({ ...made.link, url: made.url, encryptedMembers: made.encryptedMembers }, made.url);
      return EXIT.ok;
    }
    case 'archive': {
      needs(Boolean(id) && fileIds.length === 0, 'exactly one ID');
      return saveArchive(api, id);
    }
    case 'delete': {
      needs(Boolean(id) && fileIds.length === 0, 'exactly one ID');
      out(await api.deleteCollection(id), `deleted ${id} (its files stay)`);
      return EXIT.ok;
    }
    default:
      throw new UsageError('collections needs list, create, add, remove, link, archive or delete');
  }
}

/**
 * Writes a download to `target` all at once: into a temporary file of its own beside it (so the
 * rename stays on one file system), renamed onto `target` only once every byte arrived and
 * checked. A broken or refused download, or Ctrl-C, removes the temporary file and leaves
 * `target` as it was; two runs saving to one path each rename a whole file, so the path ends
 * holding one complete download, never a mix.
 */
async function saveAtomically(
  target: string,
  write: (temporary: string, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.part`);
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // A writer that does not watch the signal is left behind on Ctrl-C: its file goes all the same.
  const interrupted = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
  );
  interrupted.catch(() => undefined);
  try {
    await Promise.race([write(temporary, controller.signal), interrupted]);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    if (controller.signal.aborted) {
      console.error(`\n${target}: interrupted; nothing was saved`);
      process.exit(130);
    }
    throw error;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/**
 * Saves a collection's ZIP. Into PATH.part first, its ETag beside it (PATH.part.etag): a run
 * that finds both asks for the rest (Range from the part's size, If-Range with that ETag), so a
 * broken download resumes; an archive that changed since comes whole (200) and starts over.
 */
async function saveArchive(api: EdgeshareClient, id: string): Promise<number> {
  const target = values.output ?? `${(await api.getCollection(id)).name.replace(/[\\/]/g, '_')}.zip`;
  if (target === '-') {
    const response = await api.downloadCollection(id);
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), process.stdout);
    return EXIT.ok;
  }
  const part = `${target}.part`;
  const tag = `${part}.etag`;
  // One run at a time appends to PATH.part: a second run to the same path would mix two
  // streams into it and rename the mix as the archive.
  const lock = `${part}.lock`;
  if (!takeLock(lock)) {
    console.error(`${target}: another run is saving it (${lock}); wait for it to end`);
    return EXIT.refused;
  }
  try {
    return await resumeArchive(api, id, target, part, tag);
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Creates `lock` holding this process's id; false while another live process holds it. A lock
 * left by a run that died (its process is gone) is taken over.
 */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!staleLock(lock)) return false;
      rmSync(lock, { force: true });
    }
  }
  return false;
}

/** A lock whose process is gone; one without a process id yet (being written) counts as held for a minute. */
function staleLock(lock: string): boolean {
  try {
    const text = readFileSync(lock, 'utf8');
    if (/^\d+$/.test(text)) return !alive(Number(text));
    return Date.now() - statSync(lock).mtimeMs > 60_000;
  } catch (error) {
    // Gone meanwhile: free.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function resumeArchive(api: EdgeshareClient, id: string, target: string, part: string, tag: string) {
  const have = existsSync(part) && existsSync(tag) ? statSync(part).size : 0;
  const etag = have > 0 ? readFileSync(tag, 'utf8') : undefined;
  const response = await api.downloadCollection(id, etag ? { range: `bytes=${have}-`, ifRange: etag } : {});
  const resumed = response.status === 206;
  writeFileSync(tag, response.headers.get('etag') ?? '');
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
  await pipeline(body, createWriteStream(part, { flags: resumed ? 'a' : 'w' }));
  renameSync(part, target);
  rmSync(tag, { force: true });
  const size = statSync(target).size;
  out(
    { id, path: target, size, resumedFrom: resumed ? have : 0 },
    `saved ${target} (${human(size)})${resumed ? `, resumed from ${human(have)}` : ''}`,
  );
  return EXIT.ok;
}

async function webhooks([action, ...rest]: string[]): Promise<number> {
  const exactly = (count: number, what: string) => {
    if (rest.length !== count) throw new UsageError(`webhooks ${action} needs ${what}`);
    return rest;
  };
  switch (action) {
    case 'list': {
      exactly(0, 'no arguments');
      const hooks = await client().listWebhooks();
      out(hooks, hooks.map((hook) => `${hook.id}  ${hook.url}  ${hook.events.join(',')}`).join('\n') || 'no webhooks');
      return EXIT.ok;
    }
    case 'create': {
      const [url = ''] = exactly(1, 'exactly one URL');
      const events = (values.events ?? '*')
        .split(',')
        .map((type) => type.trim())
        .filter(Boolean);
      const hook = await client().createWebhook({ url, events: events as never });
      out(hook, `${hook.id}  ${hook.url}  ${hook.events.join(',')}\nsecret (shown once, keep it): ${hook.secret}`);
      return EXIT.ok;
    }
    case 'delete': {
      const [id = ''] = exactly(1, 'exactly one ID');
      out(await client().deleteWebhook(id), `deleted ${id}`);
      return EXIT.ok;
    }
    case 'deliveries': {
      const [id = ''] = exactly(1, 'exactly one ID');
      const list = await client().webhookDeliveries(id, { limit: whole('limit', values.limit) });
      const lines = list.map((d) =>
        [d.id, d.type.padEnd(16), d.status.padEnd(9), `${d.attempts}x`, d.lastStatusCode ?? '-', d.createdAt].join(
          '  ',
        ),
      );
      out(list, lines.join('\n') || 'no deliveries');
      return EXIT.ok;
    }
    case 'retry': {
      const [id = '', deliveryId = ''] = exactly(2, 'a webhook ID and a DELIVERY_ID');
      const delivery = await client().retryDelivery(id, deliveryId);
      out(delivery, `${delivery.id} queued again (${delivery.status})`);
      return EXIT.ok;
    }
    default:
      throw new UsageError('webhooks needs list, create, delete, deliveries or retry');
  }
}

const wantsLink = () =>
  values.password !== undefined ||
  values['max-downloads'] !== undefined ||
  values.expires !== undefined ||
  values.label !== undefined;

/** An option's secret: as given, or with `-` the first line of stdin (one option only may read it). */
async function readSecret(name: 'password' | 'passphrase', value: string | undefined): Promise<string | undefined> {
  if (value !== '-') return value;
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const line = text.split(/\r?\n/)[0] ?? '';
  if (line === '') throw new UsageError(`--${name} - read an empty line from stdin`);
  return line;
}

const readPassword = (value: string | undefined) => readSecret('password', value);

/** Makes a link with the options given and prints its URL (never the password). */
async function share(fileId: string): Promise<number> {
  const link = await client().createLink(fileId, {
    password: await readPassword(values.password),
    maxDownloads: whole('max-downloads', values['max-downloads']),
    expiresIn: whole('expires', values.expires),
    label: values.label,
  });
  out(link, link.url);
  return EXIT.ok;
}

/** A new link to an encrypted file: a header for a new key (printed after #k= in the URL) or a passphrase. */
async function shareEncrypted(fileId: string): Promise<number> {
  const passphrase = await readSecret('passphrase', values.passphrase);
  const made = await client().createEncryptedLink(fileId, unlockOwn(), {
    passphrase,
    password: await readSecret('password', values.password),
    maxDownloads: whole('max-downloads', values['max-downloads']),
    expiresIn: whole('expires', values.expires),
    label: values.label,
  });
  out({ ...made.link, url: made.url }, made.url);
  return EXIT.ok;
}

async function keysCommand(): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'list' && rest.length === 0) {
    const keys = await client().listKeys();
    out(
      keys,
      keys
        .map((key) =>
          [
            key.id,
            key.status,
            `${key.prefix}…`,
            key.scopes.join(','),
            key.expiresAt ?? 'never',
            key.lastUsedAt ?? '-',
            key.name,
          ].join('\t'),
        )
        .join('\n'),
    );
    return EXIT.ok;
  }
  if (action === 'create' && rest.length === 1 && rest[0]) {
    const expiresIn = whole('expires', values.expires);
    const scopes = values.scope as NewApiKey['scopes'];
    const created = await client().createKey({ name: rest[0], scopes, expiresIn });
    out(
      created,
      `Created key ${created.id} (${created.scopes.join(', ')}). It is shown once; store it now:\n${created.key}`,
    );
    return EXIT.ok;
  }
  if (action === 'revoke' && rest.length === 1 && rest[0]) {
    const revoked = await client().revokeKey(rest[0]);
    out(revoked, `revoked ${revoked.id}`);
    return EXIT.ok;
  }
  throw new UsageError('keys needs list, create NAME or revoke ID');
}

function one(name: string): string {
  const [id, ...rest] = args;
  if (!id || rest.length > 0) throw new UsageError(`${name} needs exactly one ID`);
  return id;
}

if (values.help) {
  console.log(USAGE);
  process.exit(EXIT.ok);
}
try {
  process.exit(await run());
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`);
    process.exit(EXIT.usage);
  }
  if (error instanceof AgeError) {
    if (json) console.log(JSON.stringify({ error: error.message, code: `AGE_${error.kind.toUpperCase()}` }));
    console.error(`cannot decrypt: ${error.message}`);
    process.exit(EXIT.refused);
  }
  if (error instanceof EdgeshareError) {
    if (json) console.log(JSON.stringify({ error: error.message, code: error.code, status: error.status }));
    console.error(`${error.message} (${error.status} ${error.code})`);
    process.exit(error.status === 401 ? EXIT.unreachable : EXIT.refused);
  }
  console.error(`cannot reach ${process.env.EDGESHARE_URL ?? 'http://127.0.0.1:8787'}: ${String(error)}`);
  process.exit(EXIT.unreachable);
}

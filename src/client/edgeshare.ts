// A typed client for edgeshare's v2 API, for Node (20+) and browsers: a thin wrapper over
// fetch whose types come from the same zod schemas that validate the API, plus resumable
// uploads through tus (tus-js-client) for large files. Not part of the Worker.
import type { z } from '@hono/zod-openapi';
import { DetailedError, Upload, type UploadOptions } from 'tus-js-client';
import type { AccessEventSchema, AccessPageSchema } from '../access-log/schemas.ts';
import type { CollectionCreateSchema, CollectionRecordSchema, CollectionUpdateSchema } from '../collections/schemas.ts';
import type { IdentityPutSchema, IdentitySchema } from '../e2e/schemas.ts';
import type {
  BulkDeleteResultSchema,
  BulkUploadResultSchema,
  FileRecordV2,
  FileUpdateSchema,
  UploadRecordV2,
  UsageSchema,
} from '../files/schemas.ts';
import type { CreateKeySchema, KeyRecordSchema } from '../keys/schemas.ts';
import { isRecipient, recoverFileKey, sealMeta, type To, type Unlock } from '../lib/age/index.ts';
import { parseDigestField, reprDigest } from '../lib/digest.ts';
import { toHex } from '../lib/encoding.ts';
import type {
  CollectionLinkCreateSchema,
  LinkCreateSchema,
  LinkHeaderRecordSchema,
  LinkRecordSchema,
  LinkUpdateSchema,
} from '../links/schemas.ts';
import type { PolicySchema } from '../policy/schemas.ts';
import type { RequestCreateSchema, RequestRecordSchema, RequestUpdateSchema } from '../requests/schemas.ts';
import type { ErrorBody, PaginationSchema } from '../schemas.ts';
import type {
  CreatedWebhookSchema,
  DeliveryRecordSchema,
  WebhookCreateSchema,
  WebhookRecordSchema,
  WebhookUpdateSchema,
} from '../webhooks/schemas.ts';

import {
  dispositionName,
  EncryptedBlob,
  type EncryptionState,
  fragmentParam,
  keyedUrl,
  linkHeaders,
  neutralName,
  newEncryption,
  type Opened,
  openAgeStream,
  patchEnd,
  type ReadAt,
  sha256OfBlob,
} from './e2e.ts';
import { newSha256 } from './hash.ts';

export {
  dispositionName,
  EncryptedBlob,
  type EncryptionState,
  fragmentParam,
  keyedUrl,
  linkHeaders,
  newEncryption,
  type Opened,
  openAgeStream,
  type ReadAt,
  resumedEncryption,
  sha256OfBlob,
} from './e2e.ts';
export { type Hasher, useSha256 } from './hash.ts';

export type FileRecord = z.infer<typeof FileRecordV2>;
export type UploadRecord = z.infer<typeof UploadRecordV2>;
export type Pagination = z.infer<typeof PaginationSchema>;
export type FileList = { files: FileRecord[]; pagination: Pagination };
export type FileUpdate = z.input<typeof FileUpdateSchema>;
export type Usage = z.infer<typeof UsageSchema>;
export type ShareLink = z.infer<typeof LinkRecordSchema>;
export type ShareLinkCreate = z.input<typeof LinkCreateSchema>;
export type ShareLinkUpdate = z.input<typeof LinkUpdateSchema>;
/** One visit of a capability URL (a share link, a file request): see docs/access-log.md. */
export type AccessEvent = z.infer<typeof AccessEventSchema>;
export type AccessLogPage = z.infer<typeof AccessPageSchema>;
/** Whose access log: a made link's, a file's (its default link and every link to it), a file request's. */
export type AccessLogOf = { linkId: string } | { fileId: string } | { collectionId: string } | { requestId: string };
/** One of the account's API keys (never its secret, except `key` once at creation). */
export type ApiKey = z.infer<typeof KeyRecordSchema>;
export type NewApiKey = z.input<typeof CreateKeySchema>;
export type CreatedApiKey = ApiKey & { key: string };
export type BulkUploadResult = z.infer<typeof BulkUploadResultSchema>['data'];
export type BulkDeleteResult = z.infer<typeof BulkDeleteResultSchema>['data'];
export type FileRequest = z.infer<typeof RequestRecordSchema>;
export type FileRequestCreate = z.input<typeof RequestCreateSchema>;
export type FileRequestUpdate = z.input<typeof RequestUpdateSchema>;
export type FileRequestList = { requests: FileRequest[]; pagination: Pagination };
export type Webhook = z.infer<typeof WebhookRecordSchema>;
/** A new webhook: its record and its `secret` (whsec_…), shown only in this answer. */
export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;
export type WebhookInput = z.input<typeof WebhookCreateSchema>;
export type WebhookUpdate = z.input<typeof WebhookUpdateSchema>;
export type WebhookDelivery = z.infer<typeof DeliveryRecordSchema>;
/** Several of your files shared as one (one link, one ZIP). */
export type Collection = z.infer<typeof CollectionRecordSchema>;
export type CollectionCreate = z.input<typeof CollectionCreateSchema>;
export type CollectionUpdate = z.input<typeof CollectionUpdateSchema>;
export type CollectionList = { collections: Collection[]; pagination: Pagination };
export type CollectionLinkCreate = z.input<typeof CollectionLinkCreateSchema>;
/** The account's age recipient, and the passphrase backup of its identity (docs/e2e.md). */
export type E2eIdentity = z.infer<typeof IdentitySchema>;
export type E2eIdentityPut = z.input<typeof IdentityPutSchema>;
/** The age header a link keeps for one encrypted file. */
export type LinkHeader = z.infer<typeof LinkHeaderRecordSchema>;

export type EncryptedUploadOptions = Omit<ResumableOptions, 'filename' | 'sha256' | 'type' | 'size' | 'tus'> & {
  /** Whom it opens for: default the account's recipient (GET /e2e/identity). */
  to?: To;
  /** The real name and type, sealed in `meta` (the server sees a random `<hex>.age`); default the File's. */
  name?: string;
  type?: string;
  /** Through tus (resumable) rather than one raw PUT; default from RESUMABLE_THRESHOLD on. */
  resumable?: boolean;
  /**
   * The plaintext's SHA-256 (lowercase hex) for `meta`, when the caller has it (the CLI hashes with
   * node:crypto): `meta` goes with the upload's first request, so without it the file is read once
   * for its hash before it is read again to encrypt.
   */
  plaintextSha256?: string;
  /**
   * An earlier attempt's state (its header and nonce, the file key recovered with `resumedEncryption`):
   * the same age file is made again, so tus resumes it where the server's copy ends.
   */
  state?: EncryptionState;
  /** Called with the state before anything is sent: keep its header and nonce to resume after a crash. */
  onState?: (state: EncryptionState) => void | Promise<void>;
  /** Reads the file's bytes into one buffer reused (Node: a FileHandle's read) rather than Blob slices: see ReadAt. */
  readAt?: ReadAt;
  /** Passed through to tus-js-client (urlStorage, fingerprint, …). */
  tus?: Partial<UploadOptions>;
};

/** An encrypted upload's record, and its file key (for links' headers now; recoverable later with the identity). */
export type EncryptedUpload = { file: FileRecord; fileKey: Uint8Array };

export type EncryptedLinkOptions = Omit<ShareLinkCreate, 'e2eHeader'> & {
  /** A passphrase link (one scrypt stanza) instead of a key in the URL. */
  passphrase?: string;
  /** scrypt's work factor for `passphrase` (log₂ N, 10 … 18; default 18). */
  logN?: number;
};

/** A link to an encrypted file or collection: its record, and `url` with its key (`#k=…`) unless a passphrase opens it. */
export type EncryptedLink = { link: ShareLink; url: string };

export type ArchiveOptions = {
  /** One range, `bytes=<first>-[<last>]`: a 206 with those bytes of the archive (while it is rangeable). */
  range?: string;
  /** The ETag you hold: with `range`, the range applies only while the archive still has it. */
  ifRange?: string;
  signal?: AbortSignal;
};
/** The bounds the service sets on the key's account (null: none); see `policy()`. */
export type Policy = z.infer<typeof PolicySchema>;

export type ListOptions = {
  page?: number;
  limit?: number;
  /** Only files whose original name contains this text (ASCII letters ignore case). */
  q?: string;
  sort?: 'uploadedAt' | 'size' | 'name';
  order?: 'asc' | 'desc';
};

export type UploadOptionsBase = {
  /** The name to store (defaults to the File's own name, or `file`). */
  filename?: string;
  /** Whether the share link works (default true; false, and true refused, while a link bound of the policy applies). */
  isPublic?: boolean;
  /** Seconds until the file expires (60 … 31536000); default: never, or the server's default. */
  expiresIn?: number;
  /**
   * The SHA-256 (hex) the file must have: the server refuses other bytes with 400
   * DIGEST_MISMATCH and stores nothing (a form field, or Repr-Digest on a raw upload).
   */
  sha256?: string;
};

export type RawUploadOptions = Omit<UploadOptionsBase, 'filename'> & {
  /** The name to store (required: it is the last segment of the URL). */
  filename: string;
  /** The declared media type (Content-Type); the server decides from the content too. */
  type?: string;
  /** The body's length, when it is a stream whose length is known (sent as Content-Length). */
  size?: number;
  signal?: AbortSignal;
  /** `age`: the body is an age file (docs/e2e.md); `uploadEncrypted` makes one. */
  encryption?: 'age';
  /** With `encryption`: the opaque `meta` (Edgeshare-Meta). */
  meta?: string;
};

export type DownloadOptions = {
  range?: string;
  signal?: AbortSignal;
  /**
   * Check the bytes against the Repr-Digest the server sends (default true): the body stream
   * errors with an EdgeshareError (code DIGEST_MISMATCH) at its end if they differ. A range
   * (206) is not checked: Repr-Digest names the whole file.
   */
  verify?: boolean;
};

export type UploadOneOptions = UploadOptionsBase & {
  /**
   * Upload progress in bytes of the file. Where XMLHttpRequest exists (browsers) the request goes
   * through it, since fetch reports no upload progress there (the `fetch` option is then not used
   * for it); elsewhere (Node) fetch sends it and this reports only the start and the end.
   */
  onProgress?: (sent: number, total: number) => void;
  /** Aborts the upload; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
};

/** What a resumable upload can read: a Blob or File (browsers), a Buffer or a Node readable stream. */
export type ResumableInput = ConstructorParameters<typeof Upload>[0];

export type ResumableOptions = UploadOptionsBase & {
  /** Bytes per PATCH request: keep it under the platform's body limit (default 50 MiB). */
  chunkSize?: number;
  /** The input's size, required for a Node stream. */
  size?: number;
  /** The file's media type (Upload-Metadata filetype). */
  type?: string;
  onProgress?: (sent: number, total: number) => void;
  /** Aborts the upload (it stays resumable from where it stopped, unless `terminateOnAbort`). */
  signal?: AbortSignal;
  /** On abort, also deletes what the server holds of the upload (tus termination): nothing is left to resume. */
  terminateOnAbort?: boolean;
  /** Passed through to tus-js-client: fingerprint, urlStorage, retryDelays, uploadUrl, … */
  tus?: Partial<UploadOptions>;
  /** `age`: the input is an age file (tus metadata `encryption age`); `uploadEncrypted` makes one. */
  encryption?: 'age';
  /** With `encryption`: the opaque `meta` (tus metadata `meta`). */
  meta?: string;
};

/** Files larger than this go through tus by default in `uploadAuto` (well under the 100 MB body limit). */
export const RESUMABLE_THRESHOLD = 64 * 1024 * 1024;
export const DEFAULT_CHUNK_SIZE = 50 * 1024 * 1024;

/** An error answer of the API: its status, code and message, and what else it said. */
export class EdgeshareError extends Error {
  override name = 'EdgeshareError';
  readonly status: number;
  /** An `ErrorCode` of this server (a newer one may answer others). */
  readonly code: ErrorBody['code'] | (string & {});
  readonly details: ErrorBody['details'];
  readonly requestId: string | undefined;
  /** Seconds to wait, on a 429. */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    body: Partial<Record<string, unknown>>,
    headers?: Pick<Headers, 'get'>,
    options?: { cause?: unknown },
  ) {
    super(typeof body.error === 'string' ? body.error : `HTTP ${status}`, options);
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : 'HTTP_ERROR';
    this.details = Array.isArray(body.details) ? (body.details as EdgeshareError['details']) : undefined;
    this.requestId = typeof body.requestId === 'string' ? body.requestId : undefined;
    const retry = Number(headers?.get('retry-after') ?? Number.NaN);
    this.retryAfter = Number.isFinite(retry) ? retry : undefined;
  }
}

export type ClientOptions = {
  /** The service's origin, e.g. `https://files.example.com` or `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** An API key (`esk_…`). */
  apiKey: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /**
   * How many times a write (upload, delete, update, key calls) is sent again after a network
   * error, a 503 or a 409 IDEMPOTENCY_IN_PROGRESS (default 2). Each write carries an
   * `Idempotency-Key` (a random UUID) that its retries repeat, so a retry never stores twice.
   */
  retries?: number;
};

const WRITES = new Set(['POST', 'PATCH', 'DELETE']);
const RETRY_DELAYS_MS = [250, 1000, 3000, 5000];
/** A random UUID; crypto.randomUUID exists only in secure contexts (a page over plain http lacks it). */
function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return toHex(bytes);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Envelope<T> = { success: true; data: T; _perf?: number };

const JSON_TYPE = { 'Content-Type': 'application/json' };

export class EdgeshareClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #retries: number;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#retries = options.retries ?? 2;
  }

  /** The v2 address of a path: `api('/files')`. */
  api(path: string): string {
    return `${this.baseUrl}/api/v2${path}`;
  }

  /** Uploads one file in one request (multipart). For files over ~95 MB use `uploadResumable`. */
  async upload(file: Blob, options: UploadOneOptions = {}): Promise<UploadRecord> {
    const form = this.#form(options);
    form.append('file', file, options.filename ?? fileName(file));
    const { onProgress, signal } = options;
    const Xhr = (globalThis as { XMLHttpRequest?: new () => XhrLike }).XMLHttpRequest;
    if (onProgress && Xhr) return this.#uploadWithXhr(new Xhr(), form, file.size, onProgress, signal);
    onProgress?.(0, file.size);
    const record = await this.#json<UploadRecord>('POST', '/upload', { body: form, signal });
    onProgress?.(file.size, file.size);
    return record;
  }

  /** Uploads several files in one request; each gets its own result (see BulkUploadResult). */
  async uploadMany(files: { file: Blob; filename?: string }[], options: Omit<UploadOptionsBase, 'filename'> = {}) {
    const form = this.#form(options);
    for (const entry of files) form.append('files', entry.file, entry.filename ?? fileName(entry.file));
    return this.#json<BulkUploadResult>('POST', '/upload/bulk', { body: form });
  }

  /**
   * Uploads through tus, in `chunkSize` requests: survives dropped connections, and resumes
   * an earlier attempt when tus-js-client finds it (its fingerprint and URL storage). Resolves
   * with the stored file's record.
   */
  uploadResumable(input: ResumableInput | EncryptedBlob, options: ResumableOptions = {}): Promise<FileRecord> {
    const metadata: Record<string, string> = { filename: options.filename ?? fileName(input) };
    if (options.encryption) metadata.encryption = options.encryption;
    if (options.meta) metadata.meta = options.meta;
    if (options.type) metadata.filetype = options.type;
    else if (isBlob(input) && input.type) metadata.filetype = input.type;
    if (options.isPublic !== undefined) metadata.isPublic = String(options.isPublic);
    if (options.expiresIn !== undefined) metadata.expiresIn = String(options.expiresIn);
    return new Promise<FileRecord>((resolve, reject) => {
      let fileId: string | null = null;
      // One Idempotency-Key per creation: tus-js-client's retries of a lost POST repeat it, and a
      // creation that got its answer moves on to a new one (a later re-creation is another request).
      let creationKey = newIdempotencyKey();
      // An EncryptedBlob is read only through ENCRYPTED_READER (below), never by tus-js-client itself.
      const upload: Upload = new Upload(input as ResumableInput, {
        endpoint: this.api('/uploads'),
        chunkSize: options.chunkSize ?? DEFAULT_CHUNK_SIZE,
        retryDelays: [0, 1000, 3000, 5000],
        metadata,
        uploadSize: options.size,
        headers: { Authorization: `Bearer ${this.#apiKey}` },
        removeFingerprintOnSuccess: true,
        // tus-js-client's Node build reads only Buffers and streams: a Blob is read slice by slice.
        ...(isBlob(input) && isNode() ? { fileReader: BLOB_READER } : {}),
        // An age file made while it is read: any slice alone, so a PATCH resumes at any offset.
        ...(input instanceof EncryptedBlob ? { fileReader: ENCRYPTED_READER } : {}),
        ...options.tus,
        onProgress: (sent, total) => options.onProgress?.(sent, total),
        onBeforeRequest: (request) => {
          if (request.getMethod() === 'POST') request.setHeader('Idempotency-Key', creationKey);
          return options.tus?.onBeforeRequest?.(request);
        },
        onAfterResponse: (request, response) => {
          fileId = response.getHeader('X-File-Id') ?? fileId;
          if (request.getMethod() === 'POST' && response.getStatus() === 201) creationKey = newIdempotencyKey();
          return options.tus?.onAfterResponse?.(request, response);
        },
        onError: (error) => reject(tusError(error)),
        onSuccess: () => {
          const done = fileId ? this.get(fileId) : this.#fromUploadUrl(upload.url);
          done.then(resolve, reject);
        },
      });
      options.signal?.addEventListener('abort', () => {
        const stopped = upload.abort(options.terminateOnAbort === true).catch(() => {
          // Not terminated (the server could not be reached): its expiry sweeps it.
        });
        stopped.then(() => reject(options.signal?.reason ?? new Error('aborted')));
      });
      upload
        .findPreviousUploads()
        .then((previous) => {
          const last = previous[0];
          if (last && !options.tus?.uploadUrl) upload.resumeFromPreviousUpload(last);
          upload.start();
        })
        .catch(reject);
    });
  }

  /** `upload` for small files, `uploadResumable` from RESUMABLE_THRESHOLD on. */
  async uploadAuto(file: Blob, options: ResumableOptions = {}): Promise<UploadRecord | FileRecord> {
    return file.size >= RESUMABLE_THRESHOLD ? this.uploadResumable(file, options) : this.upload(file, options);
  }

  /** The account's age recipient and identity backup (null fields: none set). */
  getIdentity(): Promise<E2eIdentity> {
    return this.#json<E2eIdentity>('GET', '/e2e/identity');
  }

  /** Sets the account's recipient (and backup); changing another one needs `replace: true` (else 409 E2E_IDENTITY_EXISTS). */
  putIdentity(input: E2eIdentityPut): Promise<E2eIdentity> {
    return this.#json<E2eIdentity>('PUT', '/e2e/identity', { body: JSON.stringify(input), headers: JSON_TYPE });
  }

  /** Gives a link its header for an encrypted file (a collection member added after the link was made). */
  putLinkHeader(linkId: string, fileId: string, header: string): Promise<LinkHeader> {
    const path = `/links/${encodeURIComponent(linkId)}/headers/${encodeURIComponent(fileId)}`;
    return this.#json<LinkHeader>('PUT', path, { body: JSON.stringify({ header }), headers: JSON_TYPE });
  }

  async listLinkHeaders(linkId: string): Promise<LinkHeader[]> {
    return (await this.#json<{ headers: LinkHeader[] }>('GET', `/links/${encodeURIComponent(linkId)}/headers`)).headers;
  }

  /**
   * Encrypts a file on this side while it uploads (age, to the account's recipient unless `to` says
   * otherwise), with its real name, type, size and SHA-256 sealed in `meta`; the server stores a
   * random `<hex>.age`. One raw PUT, or tus from RESUMABLE_THRESHOLD on (or `resumable`): the age
   * file is made slice by slice, so tus resumes it at any offset. In Node, `fs.openAsBlob(path)`
   * gives a Blob read from disk, never whole.
   */
  async uploadEncrypted(file: Blob, options: EncryptedUploadOptions = {}): Promise<EncryptedUpload> {
    const state = options.state ?? (await newEncryption(options.to ?? (await this.#ownRecipient())));
    const meta = sealMeta(state.fileKey, {
      name: options.name ?? fileName(file),
      type: options.type ?? (file.type || 'application/octet-stream'),
      size: file.size,
      sha256: options.plaintextSha256 ?? (await sha256OfBlob(file)),
    });
    await options.onState?.(state);
    const encrypted = new EncryptedBlob(file, state, options.readAt);
    const common = { isPublic: options.isPublic, expiresIn: options.expiresIn, encryption: 'age' as const, meta };
    const resumable = options.resumable ?? file.size >= RESUMABLE_THRESHOLD;
    let record: FileRecord;
    if (resumable) {
      const {
        to: _to,
        name: _name,
        type: _type,
        resumable: _r,
        state: _s,
        onState: _o,
        plaintextSha256: _h,
        readAt: _read,
        ...rest
      } = options;
      record = await this.uploadResumable(encrypted, {
        ...rest,
        ...common,
        filename: neutralName(),
        size: encrypted.size,
      });
    } else {
      options.onProgress?.(0, encrypted.size);
      const uploaded = await this.uploadRaw(encrypted.stream(), {
        ...common,
        filename: neutralName(),
        size: encrypted.size,
        type: 'application/octet-stream',
        signal: options.signal,
      });
      options.onProgress?.(encrypted.size, encrypted.size);
      record = await this.get(uploaded.id);
    }
    return { file: record, fileKey: state.fileKey };
  }

  /** An encrypted file's key, from its owner's header and the account's identity. */
  async fileKey(fileOrId: string | FileRecord, unlock: Unlock): Promise<Uint8Array> {
    const file = typeof fileOrId === 'string' ? await this.get(fileOrId) : fileOrId;
    if (file.encryption !== 'age' || !file.e2eHeader) {
      throw new TypeError(`${file.id} is not end-to-end encrypted`);
    }
    return recoverFileKey(new TextEncoder().encode(file.e2eHeader), unlock);
  }

  /**
   * A share link to an encrypted file: a header for a fresh identity whose secret key ends the
   * returned `url` (`#k=AGE-SECRET-KEY-1…`, never sent to the server), or for `passphrase`.
   * `unlock` opens the owner's header (the account's identity), or pass the file key itself.
   */
  async createEncryptedLink(
    fileId: string,
    unlock: Unlock | { fileKey: Uint8Array },
    options: EncryptedLinkOptions = {},
  ): Promise<EncryptedLink> {
    const { passphrase, logN, ...link } = options;
    const fileKey = 'fileKey' in unlock ? unlock.fileKey : await this.fileKey(fileId, unlock);
    const made = await linkHeaders([fileKey], passphrase === undefined ? {} : { passphrase, logN });
    const created = await this.createLink(fileId, { ...link, e2eHeader: made.headers[0] });
    return { link: created, url: keyedUrl(created.url, made.secret) };
  }

  /**
   * A share link to a collection, with a header for each of its encrypted members (one key, or one
   * passphrase, opens them all); plain members need none. Members added later need `putLinkHeader`.
   * `unlock` may be a function, called only when there is an encrypted member.
   */
  async createEncryptedCollectionLink(
    collectionId: string,
    unlock: Unlock | (() => Unlock),
    options: EncryptedLinkOptions = {},
  ): Promise<EncryptedLink & { encryptedMembers: number }> {
    const { passphrase, logN, ...link } = options;
    const encrypted: FileRecord[] = [];
    for (let page = 1; ; page++) {
      const { files, pagination } = await this.collectionFiles(collectionId, { page, limit: 100 });
      encrypted.push(...files.filter((file) => file.encryption === 'age'));
      if (!pagination.hasMore) break;
    }
    // A function is called only when there is an encrypted member (a plain collection needs no identity).
    const opener = encrypted.length > 0 && typeof unlock === 'function' ? unlock() : unlock;
    const keys = await Promise.all(encrypted.map((file) => this.fileKey(file, opener as Unlock)));
    const made = await linkHeaders(keys, passphrase === undefined ? {} : { passphrase, logN });
    const e2eHeaders = Object.fromEntries(encrypted.map((file, i) => [file.id, made.headers[i] ?? '']));
    const created = await this.createCollectionLink(collectionId, {
      ...link,
      ...(encrypted.length > 0 ? { e2eHeaders } : {}),
    });
    return {
      link: created,
      url: keyedUrl(created.url, encrypted.length > 0 ? made.secret : undefined),
      encryptedMembers: encrypted.length,
    };
  }

  /**
   * An encrypted file of the account, decrypted as it downloads: the owner's header opened with
   * `unlock`, every chunk authenticated, and, when the file has `meta`, the plaintext checked
   * against its SHA-256 and size. `meta` gives its real name and type. Given the file's record
   * (rather than its id), it is not fetched again.
   */
  async downloadDecrypted(
    fileOrId: string | FileRecord,
    unlock: Unlock,
    options: { signal?: AbortSignal } = {},
  ): Promise<Opened> {
    const file = typeof fileOrId === 'string' ? await this.get(fileOrId) : fileOrId;
    if (file.encryption !== 'age') throw new TypeError(`${file.id} is not end-to-end encrypted`);
    const response = await this.download(file.id, { signal: options.signal });
    if (!response.body) throw new Error('the download has no body');
    return openAgeStream(response.body, unlock, file.meta);
  }

  async #ownRecipient(): Promise<To> {
    const { recipient } = await this.getIdentity();
    if (!recipient || !isRecipient(recipient)) {
      throw new EdgeshareError(409, {
        error: 'The account has no age recipient yet: set one (PUT /e2e/identity, `identity init`) or pass `to`',
        code: 'E2E_NO_IDENTITY',
      });
    }
    return { recipients: [recipient] };
  }

  /** A page of your files (newest first unless `sort`/`order` say otherwise). */
  list(options: ListOptions = {}): Promise<FileList> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options)) if (value !== undefined) query.set(name, String(value));
    const search = query.size > 0 ? `?${query}` : '';
    return this.#json<FileList>('GET', `/files${search}`);
  }

  /** Every file, page by page. */
  async *listAll(options: Omit<ListOptions, 'page'> = {}): AsyncGenerator<FileRecord> {
    for (let page = 1; ; page++) {
      const { files, pagination } = await this.list({ ...options, page, limit: options.limit ?? 100 });
      yield* files;
      if (!pagination.hasMore) return;
    }
  }

  get(id: string): Promise<FileRecord> {
    return this.#json<FileRecord>('GET', `/files/${encodeURIComponent(id)}`);
  }

  /** Changes visibility, expiry (`expiresIn`/`expiresAt`, null for never) or the original name. */
  update(id: string, changes: FileUpdate): Promise<FileRecord> {
    return this.#json<FileRecord>('PATCH', `/files/${encodeURIComponent(id)}`, {
      body: JSON.stringify(changes),
      headers: { 'Content-Type': 'application/json' },
    });
  }

  async delete(id: string): Promise<{ message: string }> {
    return this.#json<{ message: string }>('DELETE', `/files/${encodeURIComponent(id)}`);
  }

  deleteMany(ids: string[]): Promise<BulkDeleteResult> {
    return this.#json<BulkDeleteResult>('DELETE', '/files/bulk', {
      body: JSON.stringify({ ids }),
      headers: { 'Content-Type': 'application/json' },
    });
  }

  usage(): Promise<Usage> {
    return this.#json<Usage>('GET', '/usage');
  }

  /**
   * The bounds the service sets on this key's account: expiries, passwords, download caps,
   * file request sizes (null where none is set). A create or change that breaks one fails with
   * an EdgeshareError of code POLICY_VIOLATION whose `details` name each bound.
   */
  policy(): Promise<Policy> {
    return this.#json<Policy>('GET', '/policy');
  }

  /** Makes a file request: an upload link for people without a key (url, uploadUrl, tusUrl). */
  createRequest(request: FileRequestCreate = {}): Promise<FileRequest> {
    return this.#json<FileRequest>('POST', '/requests', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
    });
  }

  /** A page of your file requests, newest first. */
  listRequests(options: { page?: number; limit?: number } = {}): Promise<FileRequestList> {
    const query = new URLSearchParams();
    if (options.page !== undefined) query.set('page', String(options.page));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const search = query.size > 0 ? `?${query}` : '';
    return this.#json<FileRequestList>('GET', `/requests${search}`);
  }

  getRequest(id: string): Promise<FileRequest> {
    return this.#json<FileRequest>('GET', `/requests/${encodeURIComponent(id)}`);
  }

  /** Changes limits; `{ closed: true }` closes the request, `{ closed: false }` reopens it. */
  updateRequest(id: string, changes: FileRequestUpdate): Promise<FileRequest> {
    return this.#json<FileRequest>('PATCH', `/requests/${encodeURIComponent(id)}`, {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(changes),
    });
  }

  /** Closes the request; the files it received stay. */
  closeRequest(id: string): Promise<FileRequest> {
    return this.#json<FileRequest>('DELETE', `/requests/${encodeURIComponent(id)}`);
  }

  /** The files a request received that are still in the account, newest first. */
  requestFiles(id: string, options: { page?: number; limit?: number } = {}): Promise<FileList> {
    const query = new URLSearchParams();
    if (options.page !== undefined) query.set('page', String(options.page));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const search = query.size > 0 ? `?${query}` : '';
    return this.#json<FileList>('GET', `/requests/${encodeURIComponent(id)}/files${search}`);
  }

  /** Makes a share link to a file: `label`, `password`, `maxDownloads`, `expiresIn` or `expiresAt`. */
  createLink(fileId: string, options: ShareLinkCreate = {}): Promise<ShareLink> {
    return this.#json<ShareLink>('POST', `/files/${encodeURIComponent(fileId)}/links`, {
      body: JSON.stringify(options),
      headers: { 'Content-Type': 'application/json' },
    });
  }

  /** The links made to a file, newest first (revoked and expired ones too). */
  async listLinks(fileId: string): Promise<ShareLink[]> {
    return (await this.#json<{ links: ShareLink[] }>('GET', `/files/${encodeURIComponent(fileId)}/links`)).links;
  }

  getLink(linkId: string): Promise<ShareLink> {
    return this.#json<ShareLink>('GET', `/links/${encodeURIComponent(linkId)}`);
  }

  /** Changes a link; null clears the label, password, cap or expiry. */
  updateLink(linkId: string, changes: ShareLinkUpdate): Promise<ShareLink> {
    return this.#json<ShareLink>('PATCH', `/links/${encodeURIComponent(linkId)}`, {
      body: JSON.stringify(changes),
      headers: { 'Content-Type': 'application/json' },
    });
  }

  /** Revokes a link: its URL answers 404 from now on. */
  revokeLink(linkId: string): Promise<ShareLink> {
    return this.#json<ShareLink>('DELETE', `/links/${encodeURIComponent(linkId)}`);
  }

  /** Makes a collection: `name`, `note?`, and its first `fileIds?` (at most 100), in order. */
  createCollection(input: CollectionCreate): Promise<Collection> {
    return this.#json<Collection>('POST', '/collections', { body: JSON.stringify(input), headers: JSON_TYPE });
  }

  /** A page of your collections, newest first. */
  listCollections(options: { page?: number; limit?: number } = {}): Promise<CollectionList> {
    return this.#json<CollectionList>('GET', `/collections${pageQuery(options)}`);
  }

  getCollection(id: string): Promise<Collection> {
    return this.#json<Collection>('GET', `/collections/${encodeURIComponent(id)}`);
  }

  /** Renames a collection or changes its note (null removes it). */
  updateCollection(id: string, changes: CollectionUpdate): Promise<Collection> {
    return this.#json<Collection>('PATCH', `/collections/${encodeURIComponent(id)}`, {
      body: JSON.stringify(changes),
      headers: JSON_TYPE,
    });
  }

  /** Deletes a collection and its links; its files stay. */
  deleteCollection(id: string): Promise<{ message: string }> {
    return this.#json<{ message: string }>('DELETE', `/collections/${encodeURIComponent(id)}`);
  }

  /** A page of a collection's files, in collection order. */
  collectionFiles(id: string, options: { page?: number; limit?: number } = {}): Promise<FileList> {
    return this.#json<FileList>('GET', `/collections/${encodeURIComponent(id)}/files${pageQuery(options)}`);
  }

  /** Appends files (1 … 100 ids) in this order; ids already in it are ignored. All or nothing. */
  addToCollection(id: string, fileIds: string[]): Promise<Collection> {
    return this.#json<Collection>('POST', `/collections/${encodeURIComponent(id)}/files`, {
      body: JSON.stringify({ fileIds }),
      headers: JSON_TYPE,
    });
  }

  /** Takes a file out of a collection (the file stays). */
  removeFromCollection(id: string, fileId: string): Promise<Collection> {
    return this.#json<Collection>(
      'DELETE',
      `/collections/${encodeURIComponent(id)}/files/${encodeURIComponent(fileId)}`,
    );
  }

  /** A share link to a collection, with a file link's controls; its record has `collectionId`. */
  createCollectionLink(id: string, options: CollectionLinkCreate = {}): Promise<ShareLink> {
    return this.#json<ShareLink>('POST', `/collections/${encodeURIComponent(id)}/links`, {
      body: JSON.stringify(options),
      headers: JSON_TYPE,
    });
  }

  async listCollectionLinks(id: string): Promise<ShareLink[]> {
    return (await this.#json<{ links: ShareLink[] }>('GET', `/collections/${encodeURIComponent(id)}/links`)).links;
  }

  /**
   * A collection's ZIP archive as a Response (stream its body): exact Content-Length; `range`
   * (with `ifRange`, the ETag of the part you have) resumes it while Accept-Ranges is `bytes`.
   */
  downloadCollection(id: string, options: ArchiveOptions = {}): Promise<Response> {
    return this.#archive(`/collections/${encodeURIComponent(id)}/archive`, options);
  }

  /** Every file a file request received, oldest first, as one ZIP (as `downloadCollection`). */
  downloadRequestArchive(id: string, options: ArchiveOptions = {}): Promise<Response> {
    return this.#archive(`/requests/${encodeURIComponent(id)}/archive`, options);
  }

  async #archive(path: string, options: ArchiveOptions): Promise<Response> {
    const headers: Record<string, string> = {};
    if (options.range) headers.Range = options.range;
    if (options.range && options.ifRange) headers['If-Range'] = options.ifRange;
    const response = await this.#send('GET', path, { headers, signal: options.signal });
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  /**
   * A page of an access log, newest first (`limit` 1…100, default 20); pass the answer's
   * `nextCursor` as `cursor` for the next page (null at the end). Needs files:read.
   */
  accessLog(of: AccessLogOf, options: { limit?: number; cursor?: string } = {}): Promise<AccessLogPage> {
    const path =
      'linkId' in of
        ? `/links/${encodeURIComponent(of.linkId)}`
        : 'fileId' in of
          ? `/files/${encodeURIComponent(of.fileId)}`
          : 'collectionId' in of
            ? `/collections/${encodeURIComponent(of.collectionId)}`
            : `/requests/${encodeURIComponent(of.requestId)}`;
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    const search = query.size > 0 ? `?${query}` : '';
    return this.#json<AccessLogPage>('GET', `${path}/access${search}`);
  }

  /** The account's keys (needs keys:write). */
  async listKeys(): Promise<ApiKey[]> {
    return (await this.#json<{ keys: ApiKey[] }>('GET', '/keys')).keys;
  }

  /** A new key for the account: at most this key's scopes, expiring no later than it; `key` is shown once. */
  createKey(input: NewApiKey): Promise<CreatedApiKey> {
    return this.#json<CreatedApiKey>('POST', '/keys', {
      body: JSON.stringify(input),
      headers: { 'Content-Type': 'application/json' },
    });
  }

  renameKey(id: string, name: string): Promise<ApiKey> {
    return this.#json<ApiKey>('PATCH', `/keys/${encodeURIComponent(id)}`, {
      body: JSON.stringify({ name }),
      headers: { 'Content-Type': 'application/json' },
    });
  }

  /** Revokes one of the account's keys: refused from its next request (409 for the last keys:write key). */
  revokeKey(id: string): Promise<ApiKey> {
    return this.#json<ApiKey>('DELETE', `/keys/${encodeURIComponent(id)}`);
  }

  /**
   * The file's bytes as a Response (stream its body); `range` asks for part of it (206). A whole
   * download is verified against Repr-Digest as it streams (see DownloadOptions.verify).
   */
  async download(id: string, options: DownloadOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (options.range) headers.Range = options.range;
    const response = await this.#send('GET', `/files/${encodeURIComponent(id)}/download`, {
      headers,
      signal: options.signal,
    });
    if (!response.ok) throw await errorOf(response);
    if (options.verify === false || response.status !== 200) return response;
    return verifiedResponse(response);
  }

  /**
   * Uploads one file as the raw request body (PUT /upload/{filename}): no multipart framing, and
   * with a known length the server streams it into a single put. Any size up to MAX_FILE_SIZE
   * that the platform's body limit lets through.
   */
  async uploadRaw(body: Blob | Uint8Array | ReadableStream<Uint8Array>, options: RawUploadOptions) {
    const query = new URLSearchParams();
    if (options.isPublic !== undefined) query.set('isPublic', String(options.isPublic));
    if (options.expiresIn !== undefined) query.set('expiresIn', String(options.expiresIn));
    const headers: Record<string, string> = {};
    if (options.type) headers['Content-Type'] = options.type;
    if (options.size !== undefined) headers['Content-Length'] = String(options.size);
    if (options.sha256) headers['Repr-Digest'] = reprDigest(options.sha256);
    if (options.encryption) query.set('encryption', options.encryption);
    if (options.meta) headers['Edgeshare-Meta'] = options.meta;
    const search = query.toString();
    const path = `/upload/${encodeURIComponent(options.filename)}${search ? `?${search}` : ''}`;
    const init: RequestInit & { duplex?: 'half'; headers: Record<string, string> } = {
      body: body as BodyInit,
      headers,
      signal: options.signal,
    };
    // A stream body needs half-duplex in Node's fetch and in browsers.
    if (body instanceof ReadableStream) init.duplex = 'half';
    return this.#json<UploadRecord>('PUT', path, init);
  }

  /** Adds a webhook: `url` (https) and `events` (types, or ['*']). Keep the returned `secret`: it is not shown again. */
  createWebhook(input: WebhookInput): Promise<CreatedWebhook> {
    return this.#json<CreatedWebhook>('POST', '/webhooks', { body: JSON.stringify(input), headers: JSON_TYPE });
  }

  async listWebhooks(): Promise<Webhook[]> {
    return (await this.#json<{ webhooks: Webhook[] }>('GET', '/webhooks')).webhooks;
  }

  getWebhook(id: string): Promise<Webhook> {
    return this.#json<Webhook>('GET', `/webhooks/${encodeURIComponent(id)}`);
  }

  updateWebhook(id: string, changes: WebhookUpdate): Promise<Webhook> {
    return this.#json<Webhook>('PATCH', `/webhooks/${encodeURIComponent(id)}`, {
      body: JSON.stringify(changes),
      headers: JSON_TYPE,
    });
  }

  deleteWebhook(id: string): Promise<{ message: string }> {
    return this.#json<{ message: string }>('DELETE', `/webhooks/${encodeURIComponent(id)}`);
  }

  /** The webhook's recent deliveries, newest first (`limit` 1 … 100, default 20). */
  async webhookDeliveries(id: string, options: { limit?: number } = {}): Promise<WebhookDelivery[]> {
    const search = options.limit === undefined ? '' : `?limit=${options.limit}`;
    const path = `/webhooks/${encodeURIComponent(id)}/deliveries${search}`;
    return (await this.#json<{ deliveries: WebhookDelivery[] }>('GET', path)).deliveries;
  }

  /** Sends a delivery again (same webhook-id); it is pending until the receiver answers. */
  retryDelivery(webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    const path = `/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/retry`;
    return this.#json<WebhookDelivery>('POST', path);
  }

  /** The multipart POST through XMLHttpRequest, for its upload progress events. */
  #uploadWithXhr(
    xhr: XhrLike,
    form: FormData,
    size: number,
    onProgress: (sent: number, total: number) => void,
    signal: AbortSignal | undefined,
  ): Promise<UploadRecord> {
    return new Promise<UploadRecord>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const abort = () => xhr.abort();
      signal?.addEventListener('abort', abort, { once: true });
      const settle = () => signal?.removeEventListener('abort', abort);
      xhr.open('POST', this.api('/upload'));
      const headers = this.#headers({ 'Idempotency-Key': newIdempotencyKey() });
      for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
      // The events count the whole multipart body; the caller wants bytes of the file.
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable && event.total > 0)
          onProgress(Math.min(size, Math.round((event.loaded / event.total) * size)), size);
      };
      xhr.onload = () => {
        settle();
        let body: Partial<Record<string, unknown>> = {};
        try {
          body = JSON.parse(xhr.responseText) as Partial<Record<string, unknown>>;
        } catch {
          // Not our envelope: the status alone.
        }
        if (xhr.status >= 200 && xhr.status < 300 && body.success === true) {
          onProgress(size, size);
          resolve(body.data as UploadRecord);
        } else {
          reject(new EdgeshareError(xhr.status, body, { get: (name) => xhr.getResponseHeader(name) }));
        }
      };
      xhr.onerror = () => {
        settle();
        reject(new TypeError(`could not reach ${this.baseUrl}`));
      };
      xhr.onabort = () => {
        settle();
        reject(signal?.reason ?? new Error('aborted'));
      };
      onProgress(0, size);
      xhr.send(form);
    });
  }

  #form(options: UploadOptionsBase): FormData {
    const form = new FormData();
    if (options.isPublic !== undefined) form.append('isPublic', String(options.isPublic));
    if (options.expiresIn !== undefined) form.append('expiresIn', String(options.expiresIn));
    if (options.sha256 !== undefined) form.append('sha256', options.sha256);
    return form;
  }

  async #fromUploadUrl(url: string | null): Promise<FileRecord> {
    if (!url) throw new Error('the upload finished without an address');
    const response = await this.#fetch(url, { headers: this.#headers() });
    if (!response.ok) throw await errorOf(response);
    return ((await response.json()) as Envelope<FileRecord>).data;
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.#apiKey}`, ...extra };
  }

  #send(method: string, path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
    return this.#fetch(this.api(path), { ...init, method, headers: this.#headers(init.headers) });
  }

  /**
   * A write carries an Idempotency-Key and is sent again with it after a network error, a 503 or
   * a 409 IDEMPOTENCY_IN_PROGRESS: the server answers a retry of a request it already ran with
   * its first answer, so nothing is stored or deleted twice.
   */
  async #sendRetrying(method: string, path: string, init: RequestInit & { headers?: Record<string, string> }) {
    if (!WRITES.has(method)) return this.#send(method, path, init);
    const headers: Record<string, string> = {
      ...(init.headers as Record<string, string> | undefined),
      'Idempotency-Key': newIdempotencyKey(),
    };
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.#retries;
      let response: Response;
      try {
        response = await this.#send(method, path, { ...init, headers });
      } catch (error) {
        if (last || init.signal?.aborted || !(error instanceof TypeError)) throw error;
        await sleep(RETRY_DELAYS_MS[attempt] ?? 5000);
        continue;
      }
      if (last || !(await retryable(response))) return response;
      await response.body?.cancel();
      await sleep(RETRY_DELAYS_MS[attempt] ?? 5000);
    }
  }

  async #json<T>(method: string, path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
    const response = await this.#sendRetrying(method, path, init);
    if (!response.ok) throw await errorOf(response);
    return ((await response.json()) as Envelope<T>).data;
  }
}

/** `?page=…&limit=…` for the options given, or nothing. */
function pageQuery(options: { page?: number; limit?: number }): string {
  const query = new URLSearchParams();
  if (options.page !== undefined) query.set('page', String(options.page));
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  return query.size > 0 ? `?${query}` : '';
}

/** What a visitor opens a link with: its key (from the URL's `#k=`), or the link's passphrase; and the link's password. */
export type OpenLinkOptions = {
  passphrase?: string;
  /** The link's own password (HTTP Basic), when it has one. */
  password?: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
};

/**
 * Opens a share link to an encrypted file, no key needed: `url` as shared (`…/share/<token>#k=AGE-SECRET-KEY-1…`,
 * or without a fragment and a `passphrase`). Downloads `<link>/download` and decrypts it as it streams
 * (a wrong key is AgeError `no_match` before any plaintext; an altered or cut byte errors the stream).
 * `name` is the stored name without `.age`.
 */
export async function openLink(url: string, options: OpenLinkOptions = {}): Promise<Opened & { name?: string }> {
  const { url: bare, value: secret } = fragmentParam(url, 'k');
  const unlock: Unlock | undefined = secret
    ? { identity: secret }
    : options.passphrase !== undefined
      ? { passphrase: options.passphrase }
      : undefined;
  if (!unlock) throw new TypeError('the link has no key (#k=…): give its passphrase');
  const headers: Record<string, string> = {};
  if (options.password !== undefined) headers.Authorization = basic(options.password);
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const response = await doFetch(`${bare.replace(/\/+$/, '')}/download`, { headers, signal: options.signal });
  if (!response.ok || !response.body) throw await errorOf(response);
  const opened = await openAgeStream(verifiedResponse(response).body ?? response.body, unlock);
  return { ...opened, name: dispositionName(response.headers.get('content-disposition')) };
}

/**
 * Sends a file to an end-to-end encrypted file request, no key needed: `url` as shared
 * (`{site}/r/<token>#r=age1…`). Encrypts to the request's recipient while it uploads (one raw PUT
 * with `encryption=age`), the real name, type, size and SHA-256 sealed in `meta`.
 */
export async function uploadToRequest(
  url: string,
  file: Blob,
  options: { name?: string; type?: string; password?: string; fetch?: typeof fetch; signal?: AbortSignal } = {},
): Promise<{ name: string; size: number; sha256?: string }> {
  const { url: page, value: recipient } = fragmentParam(url, 'r');
  if (!recipient || !isRecipient(recipient)) throw new TypeError('the request link has no recipient (#r=age1…)');
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const headers: Record<string, string> = {};
  if (options.password !== undefined) headers.Authorization = basic(options.password);
  const target = new URL(page);
  const token = /\/r\/([^/?#]+)\/?$/.exec(target.pathname)?.[1];
  if (!token) throw new TypeError('not a file request link (…/r/<token>)');
  const described = await doFetch(`${target.origin}/api/v2/r/${token}`, { headers, signal: options.signal });
  if (!described.ok) throw await errorOf(described);
  const { uploadUrl } = ((await described.json()) as Envelope<{ uploadUrl: string }>).data;
  const state = await newEncryption({ recipients: [recipient] });
  const meta = sealMeta(state.fileKey, {
    name: options.name ?? fileName(file),
    type: options.type ?? (file.type || 'application/octet-stream'),
    size: file.size,
    sha256: await sha256OfBlob(file),
  });
  const encrypted = new EncryptedBlob(file, state);
  const init: RequestInit & { duplex: 'half' } = {
    method: 'PUT',
    body: encrypted.stream(),
    duplex: 'half',
    headers: {
      ...headers,
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(encrypted.size),
      'Edgeshare-Meta': meta,
    },
    signal: options.signal,
  };
  const response = await doFetch(`${uploadUrl}/${neutralName()}?encryption=age`, init);
  if (!response.ok) throw await errorOf(response);
  const received = ((await response.json()) as Envelope<{ files: { name: string; size: number; sha256?: string }[] }>)
    .data.files[0];
  if (!received) throw new Error('the request kept no file');
  return received;
}

/** HTTP Basic with an empty user name: a link's or a request's password. */
function basic(password: string): string {
  const bytes = new TextEncoder().encode(`:${password}`);
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return `Basic ${btoa(text)}`;
}

/** A file request's page URL with the recipient its uploads encrypt to, in the fragment (never sent to the server). */
export const requestUrlWithRecipient = (url: string, recipient: string): string => `${url}#r=${recipient}`;

/** A 503, or a 409 saying the first request with the key is still running. */
async function retryable(response: Response): Promise<boolean> {
  if (response.status === 503) return true;
  if (response.status !== 409) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => ({}))) as { code?: unknown };
  return body.code === 'IDEMPOTENCY_IN_PROGRESS';
}

async function errorOf(response: Response): Promise<EdgeshareError> {
  let body: Partial<Record<string, unknown>> = {};
  try {
    body = (await response.json()) as Partial<Record<string, unknown>>;
  } catch {
    // Not our envelope (a proxy's error page, say): the status alone.
  }
  return new EdgeshareError(response.status, body, response.headers);
}

/** A tus request the server refused, as the EdgeshareError of its answer; anything else as it is. */
function tusError(error: Error): Error {
  const response = error instanceof DetailedError ? error.originalResponse : null;
  if (!response || response.getStatus() < 400) return error;
  let body: Partial<Record<string, unknown>> = {};
  try {
    body = JSON.parse(response.getBody()) as Partial<Record<string, unknown>>;
  } catch {
    // Not our envelope (HEAD answers have no body): the status alone.
  }
  return new EdgeshareError(
    response.getStatus(),
    body,
    { get: (name) => response.getHeader(name) ?? null },
    {
      cause: error,
    },
  );
}

/** What `upload` uses of XMLHttpRequest (not in the Worker's or Node's type libraries). */
type XhrLike = {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: FormData): void;
  abort(): void;
  readonly status: number;
  readonly responseText: string;
  getResponseHeader(name: string): string | null;
  readonly upload: {
    onprogress: ((event: { loaded: number; total: number; lengthComputable: boolean }) => void) | null;
  };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
};

const isBlob = (value: unknown): value is Blob => typeof Blob !== 'undefined' && value instanceof Blob;

/** True in Node (and runtimes that say they are Node), where tus-js-client uses its Node build. */
const isNode = () =>
  typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string' &&
  typeof (globalThis as { document?: unknown }).document === 'undefined';

/**
 * A Blob as a tus-js-client file source, read one chunk at a time (never whole): Node's build of
 * tus-js-client takes only Buffers and streams, and a stream cannot be resumed in place.
 */
const BLOB_READER = {
  openFile: (input: unknown) => {
    const blob = input as Blob;
    return Promise.resolve({
      size: blob.size,
      slice: async (start: number, end: number) => {
        const value: Uint8Array & { size?: number } = new Uint8Array(await blob.slice(start, end).arrayBuffer());
        // The Node HTTP stack takes Content-Length from `size`.
        value.size = value.length;
        return { value, done: end >= blob.size };
      },
      close: () => undefined,
    });
  },
};

/**
 * An EncryptedBlob as a tus-js-client file source: each PATCH's bytes made from the plaintext it
 * covers. In Node, a stream encrypted as the request sends it (tus-js-client's Node build pipes a
 * `Readable` body, its Content-Length from `size`), so memory stays flat whatever the chunk size;
 * elsewhere (browsers send Blobs and arrays), the slice as one array.
 */
const ENCRYPTED_READER = {
  openFile: (input: unknown) => {
    const encrypted = input as EncryptedBlob;
    const nodeStream = isNode() ? nodeReadable() : undefined;
    return Promise.resolve({
      size: encrypted.size,
      slice: async (start: number, asked: number) => {
        const end = patchEnd(encrypted.state.header.length, start, asked);
        const size = Math.max(0, Math.min(end, encrypted.size) - start);
        const value: { size?: number } = nodeStream
          ? nodeStream.fromWeb(encrypted.sliceStream(start, end))
          : await encrypted.slice(start, end);
        value.size = size;
        return { value, done: end >= encrypted.size };
      },
      close: () => undefined,
    });
  },
};

/**
 * Node's `Readable` (node:stream), looked up at run time so the typed client imports nothing of
 * Node's and still bundles for browsers; undefined where the runtime has no getBuiltinModule.
 */
function nodeReadable(): { fromWeb(stream: ReadableStream<Uint8Array>): object } | undefined {
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const module = node?.getBuiltinModule?.('node:stream') as
    | { Readable?: { fromWeb(stream: ReadableStream<Uint8Array>): object } }
    | undefined;
  return module?.Readable;
}

function fileName(input: unknown): string {
  if (typeof File !== 'undefined' && input instanceof File && input.name) return input.name;
  const path = (input as { path?: unknown } | null)?.path;
  if (typeof path === 'string') return path.split(/[\\/]/).pop() || 'file';
  return 'file';
}

/**
 * The hex SHA-256 a Repr-Digest names, read by the server's own parser; undefined when it names
 * none or is malformed (the download is then not checked).
 */
export function sha256OfReprDigest(value: string | null): string | undefined {
  if (value === null) return undefined;
  try {
    return parseDigestField(value);
  } catch {
    return undefined;
  }
}

/**
 * The response with its body hashed as it is read; at its end, bytes that do not match the
 * Repr-Digest error the stream with an EdgeshareError (DIGEST_MISMATCH). The response's
 * `sha256` (hex) is what the server stated, or undefined when it sent none.
 */
function verifiedResponse(response: Response): Response & { sha256?: string } {
  const expected = sha256OfReprDigest(response.headers.get('repr-digest'));
  if (!expected || !response.body) return response;
  const hash = newSha256();
  const checked = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hash.update(chunk);
        controller.enqueue(chunk);
      },
      flush(controller) {
        const actual = toHex(hash.digest());
        if (actual === expected) return;
        controller.error(
          new EdgeshareError(
            response.status,
            {
              error: `The downloaded bytes hash to ${actual}, not the ${expected} the server stated (Repr-Digest)`,
              code: 'DIGEST_MISMATCH',
            },
            response.headers,
          ),
        );
      },
    }),
  );
  const verified = new Response(checked, { status: response.status, headers: response.headers });
  return Object.assign(verified, { sha256: expected });
}

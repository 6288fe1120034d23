// The tus upload object's contract: what the Worker sends its per-upload Durable Object and what
// it answers, with the lease and retention times both sides read. Types and constants only, so
// the routes, the service and the part writer share it without loading the class.
import type { Sha256State } from '../lib/sha256';

/** What the Worker decided from Upload-Metadata at creation (validated like the multipart form's fields). */
export type UploadMeta = {
  /** The cleaned original name (src/files/names.ts). */
  originalName: string;
  /** `filetype`, as declared. */
  declaredType: string | undefined;
  isPublic: boolean;
  expiresInSeconds: number | undefined;
  /** `sha256` from Upload-Metadata: the whole file's SHA-256 (hex) as the client asserts it. */
  sha256?: string | undefined;
  /**
   * An age file (metadata `encryption age`, src/e2e/): its header is split off as the bytes
   * arrive (kept in the upload's object until complete), its payload stored as the file's bytes.
   * Never on a partial upload: a final upload says it for the whole (src/tus/concat.ts).
   */
  e2e?: { meta: string | null };
};

export type CreateUpload = {
  id: string;
  /** The owner: any key of this account may resume the upload. */
  accountId: string;
  length: number;
  /** The raw Upload-Metadata header, echoed on HEAD. */
  metadata: string | undefined;
  meta: UploadMeta;
  r2Key: string;
  partSize: number;
  /** The account's reservation of `length` bytes and one file (AccountStorage). */
  holdId: string;
  expiresAt: number;
  /** The latest the upload may live, however often it is resumed (R2 aborts multipart uploads after 7 days). */
  deadline: number;
  /** `partial`: a tus partial upload (Upload-Concat: partial), whose object a final upload may take. */
  concat?: 'partial';
  now?: number;
};

export type UploadStatus = 'active' | 'completed' | 'terminated' | 'expired';

export type Tail = { key: string; size: number };

/** What a request may see of an upload. */
export type UploadView = {
  id: string;
  status: UploadStatus;
  length: number;
  offset: number;
  metadata: string | undefined;
  expiresAt: number;
  /** `partial` for a partial upload; `final;<urls>` for a final one (read from D1, see concat.ts). */
  concat?: string;
  /** A partial upload a final upload took. */
  claimed?: boolean;
};

/** Everything a PATCH needs to continue the upload. */
export type UploadSnapshot = UploadView & {
  accountId: string;
  r2Key: string;
  partSize: number;
  multipartId: string | null;
  partCount: number;
  tail: Tail | null;
  mimeType: string | null;
  hash: Sha256State | null;
  /** The CRC-32 of the bytes up to `offset` (tail included); null when the upload began without it. */
  crc32: number | null;
  meta: UploadMeta;
  holdId: string;
  deadline: number;
  /**
   * An age upload's header bytes received so far (ASCII text; all of it once complete), null
   * for any other upload and before the first byte.
   */
  e2eHeader: string | null;
};

export type BeginResult =
  | { status: 'ok'; lease: string; upload: UploadSnapshot }
  | { status: 'not-found' }
  | { status: 'gone' }
  | {
      status: 'completed' | 'conflict' | 'busy';
      offset: number;
      length: number;
      partial?: boolean;
      expiresAt?: number;
    };

/** A final upload asks for a partial: `ok` when it is complete and now the final's (see Claim). */
export type ClaimResult =
  | {
      status: 'ok';
      r2Key: string;
      length: number;
      etag: string;
      holdId: string;
      /** The partial's CRC-32; null for one completed before CRCs were kept. */
      crc32: number | null;
    }
  | { status: 'not-found' | 'not-partial' | 'gone' | 'claimed' }
  | { status: 'incomplete'; offset: number; length: number };

/** One R2 part that just landed, recorded at once (see recordPart). */
export type PartProgress = {
  lease: string;
  part: R2UploadedPart;
  /** The upload's offset at the part's end: this part and every one before it are stored. */
  offset: number;
  /** The part size the upload's first PATCH chose (part-writer.ts); kept only from that PATCH. */
  partSize: number;
  mimeType: string | null;
  /** The hash state of the bytes up to `offset`: the next PATCH goes on from there. */
  hash: Sha256State | null;
  /**
   * The CRC-32 of the bytes up to `offset`, taken in the same pass as the hash. Absent (from a
   * Worker deployed before CRCs) counts as null: not known.
   */
  crc32?: number | null;
  /** An age upload's header, complete (a part is payload, which comes after it). */
  e2eHeader?: string | null;
  expiresAt: number;
  now?: number;
};

export type Progress = {
  lease: string;
  offset: number;
  parts: R2UploadedPart[];
  tail: Tail | null;
  /** The part size the upload's first PATCH chose (part-writer.ts); kept only from that PATCH. */
  partSize?: number;
  mimeType: string | null;
  /** The hash state after this PATCH's bytes. */
  hash: Sha256State | null;
  /** The CRC-32 after this PATCH's bytes (absent counts as null, as in PartProgress). */
  crc32?: number | null;
  /** An age upload's header bytes received so far (the PATCH may have ended inside it). */
  e2eHeader?: string | null;
  expiresAt: number;
};

/**
 * A PATCH's lease lasts this long past its last sign of life: a renewal while bytes arrive, one
 * right before each R2 write, each part recorded. A PATCH whose Worker died therefore frees the
 * upload this soon; a part write (at most 32 MiB) takes far less (see docs/limits.md, tus).
 */
export const LEASE_TTL_MS = 15 * 1000;

/**
 * From a PATCH's last byte on (the last part, the object made whole, the file recorded) its lease
 * lasts this long: no other PATCH may touch the multipart upload while it becomes the file.
 */
export const COMMIT_LEASE_MS = 2 * 60 * 1000;

/** How long a finished upload is remembered: 410 for a terminated or expired one, then 404. */
export const RETAIN_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A final upload's request confirms its claims right after writing its row. A claim still
 * pending this long after it was made belongs to a request that died: the partial looks in D1,
 * and is the file's if its row got written, else free again.
 */
export const CLAIM_TIMEOUT_MS = 60 * 60 * 1000;

// A thing's standing: whether a file, a link (a file's or a collection's), a file request or an
// account may be served, decided here and nowhere else. Every way in asks: the visitors' doors
// (openForVisitor requires each door to say its subject's standing, src/visitors/service.ts), the
// owner's download, a collection's page, ZIP and members, the links an owner (or an agent over
// MCP) makes. No way in reads anything for it: each passes the facts its own lookup already
// carries (a file row's standing columns, the suspension and the disabled link its query joins).
//
// What wins, in order: the account's suspension, the link's disabling, the file's moderation
// (removed, quarantined), then, for visitors only, the scan gate (SCAN_MODE=gate: a file is served
// once its scan is clean, or once an operator released it).
import type { Config, ScanMode } from '../config';
import { ApiError, scanPending, unavailableForLegalReasons } from '../errors';
import type { FileStanding } from '../storage/files-repo';

/**
 * Who asks: a visitor (share links, collections, file requests: any URL handed out, MCP's
 * included), or the owner through the API (their own download, the links they make).
 */
export type Audience = 'visitor' | 'owner';

/** What a file's row says of its standing; `request_id` names the file request it came through (its scan mode). */
export type FileFacts = Pick<
  FileStanding,
  'moderation_state' | 'moderation_statement' | 'scan_status' | 'released_at'
> & {
  request_id?: string | null;
};

/**
 * What one lookup found: the account's suspension and the link's disabling (each the operator's
 * statement, or null: none), and the file it serves, if it serves one. Absent: not concerned.
 */
export type Facts = { suspension?: string | null; disabled?: string | null; file?: FileFacts | null };

/** What the scan gate reads of the configuration (the owner's side needs none). */
export type ScanSettings = Pick<Config, 'SCANNER' | 'SCAN_MODE' | 'SCAN_REQUEST_UPLOADS'>;

/** Why something may not be served: each refusal says what it is. */
export type Refused =
  | { reason: 'suspended' | 'disabled' | 'quarantined' | 'removed'; statement: string }
  /** SCAN_MODE=gate: a scan still running, or one that could not clear the file (held until released). */
  | { reason: 'scan-pending' | 'scan-held' };

/** `null`: in good standing, serve it; otherwise why not. */
export type Standing = Refused | null;

/** A visitor asked to wait for a scan tries again after this long. */
export const SCAN_RETRY_AFTER_SECONDS = 30;
/** A file its scan could not clear waits for an operator: asked again after an hour. */
export const SCAN_HELD_RETRY_AFTER_SECONDS = 3600;

/**
 * How files are scanned: SCAN_MODE for uploads with a key, SCAN_REQUEST_UPLOADS for files that
 * come through file requests (strangers' files); nothing without a SCANNER.
 */
export function scanModeOf(settings: ScanSettings, viaRequest: boolean): ScanMode {
  if (settings.SCANNER === undefined) return 'off';
  return viaRequest ? settings.SCAN_REQUEST_UPLOADS : settings.SCAN_MODE;
}

/**
 * The one answer: whether what `facts` describe may be served to `audience`. `scan` is the
 * configuration of the scan gate; without it (the owner's side) no scan is asked about, since the
 * owner can always download their own file (unless it is quarantined or removed: then it is
 * served to no one).
 */
export function standingOf(facts: Facts, audience: Audience, scan?: ScanSettings): Standing {
  if (facts.suspension) return { reason: 'suspended', statement: facts.suspension };
  if (facts.disabled) return { reason: 'disabled', statement: facts.disabled };
  const file = facts.file;
  if (!file) return null;
  if (file.moderation_state !== null) {
    return { reason: file.moderation_state, statement: file.moderation_statement ?? '' };
  }
  if (audience === 'owner' || !scan || file.released_at !== null) return null;
  if (file.scan_status === null || file.scan_status === 'clean' || file.scan_status === 'skipped') return null;
  if (scanModeOf(scan, file.request_id != null) !== 'gate') return null;
  return { reason: file.scan_status === 'pending' ? 'scan-pending' : 'scan-held' };
}

/** The error a refusal is answered with: 451 with the statement, or 409 SCAN_PENDING with Retry-After. */
export function refusalError(refused: Refused): ApiError {
  if ('statement' in refused) return unavailableForLegalReasons(refused.statement);
  if (refused.reason === 'scan-pending') return scanPending(SCAN_RETRY_AFTER_SECONDS);
  return scanPending(SCAN_HELD_RETRY_AFTER_SECONDS, true);
}

/** Throws the refusal's error unless what `facts` describe may be served to `audience`. */
export function assertServable(facts: Facts, audience: Audience, scan?: ScanSettings): void {
  const standing = standingOf(facts, audience, scan);
  if (standing) throw refusalError(standing);
}

/** Whether one file may be served to `audience`: a collection's page and ZIP leave out those that may not. */
export const servable = (file: FileFacts, audience: Audience, scan?: ScanSettings): boolean =>
  standingOf({ file }, audience, scan) === null;

/** Whether an error is a refusal of this module (the access log calls such visits `refused-moderated`). */
export const isStandingRefusal = (error: unknown): error is ApiError =>
  error instanceof ApiError && (error.code === 'UNAVAILABLE_FOR_LEGAL_REASONS' || error.code === 'SCAN_PENDING');

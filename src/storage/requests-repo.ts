// D1 access for file requests (migrations 0010, 0015). No HTTP here: callers get plain rows.
import { accountActive } from './files-repo';

export type RequestRow = {
  id: string;
  account_id: string;
  token: string;
  label: string | null;
  message: string | null;
  max_files: number;
  max_file_size: number | null;
  max_bytes: number | null;
  /**
   * The exact size of every file the request takes (migration 0015): set by MCP's
   * create_upload_url, NULL for every other request (max_file_size only bounds those).
   */
  exact_bytes: number | null;
  /** JSON array of media-type patterns, or null for the server's. */
  allowed_types: string | null;
  is_public: number;
  password_hash: string | null;
  file_count: number;
  bytes: number;
  created_at: string;
  updated_at: string;
  expires_at: string;
  closed_at: string | null;
  /** 1: the request takes only end-to-end encrypted (age) files (migration 0017); 0 for every other. */
  e2e: number;
};

/** A request found by its token, with its owning account's state, storage and policy overrides. */
export type RequestWithOwner = RequestRow & {
  /** 1 while the account has an active, unexpired key (any of them: rotation keeps requests alive). */
  owner_active: 0 | 1;
  owner_storage_quota_bytes: number | null;
  owner_max_files: number | null;
  /** The account's policy overrides (accounts.policy, JSON), or null: they decide received files' expiry. */
  owner_policy: string | null;
  /** The account's suspension statement (migration 0016), or null: a suspended account's requests answer 451. */
  owner_suspension: string | null;
};

const COLUMNS =
  'id, account_id, token, label, message, max_files, max_file_size, max_bytes, allowed_types, is_public, password_hash, file_count, bytes, created_at, updated_at, expires_at, closed_at, exact_bytes, e2e';
const R_COLUMNS = COLUMNS.split(', ')
  .map((column) => `r.${column}`)
  .join(', ');

export async function insertRequest(db: D1Database, row: RequestRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO file_requests (${COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)`,
    )
    .bind(
      row.id,
      row.account_id,
      row.token,
      row.label,
      row.message,
      row.max_files,
      row.max_file_size,
      row.max_bytes,
      row.allowed_types,
      row.is_public,
      row.password_hash,
      row.file_count,
      row.bytes,
      row.created_at,
      row.updated_at,
      row.expires_at,
      row.closed_at,
      row.exact_bytes,
      row.e2e,
    )
    .run();
}

export function findOwnedRequest(db: D1Database, id: string, accountId: string) {
  return db
    .prepare(`SELECT ${COLUMNS} FROM file_requests WHERE id = ?1 AND account_id = ?2`)
    .bind(id, accountId)
    .first<RequestRow>();
}

/**
 * The request behind a public URL, with its owning account's storage overrides, its suspension,
 * and whether the account still has an active, unexpired key (`now`, ISO), in one statement.
 */
export function findRequestByToken(db: D1Database, token: string, now: string) {
  return db
    .prepare(
      `SELECT ${R_COLUMNS},
              ${accountActive('r.account_id', '?2')} AS owner_active,
              a.storage_quota_bytes AS owner_storage_quota_bytes, a.max_files AS owner_max_files,
              a.policy AS owner_policy, a.suspension_statement AS owner_suspension
         FROM file_requests r JOIN accounts a ON a.id = r.account_id
        WHERE r.token = ?1`,
    )
    .bind(token, now)
    .first<RequestWithOwner>();
}

export async function listOwnedRequests(
  db: D1Database,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: RequestRow[]; total: number }> {
  const [rows, total] = await db.batch<RequestRow | { total: number }>([
    db
      .prepare(
        `SELECT ${COLUMNS} FROM file_requests WHERE account_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3`,
      )
      .bind(accountId, page.limit, page.offset),
    db.prepare('SELECT COUNT(*) AS total FROM file_requests WHERE account_id = ?1').bind(accountId),
  ]);
  return {
    rows: (rows?.results ?? []) as RequestRow[],
    total: ((total?.results[0] as { total: number } | undefined)?.total ?? 0) as number,
  };
}

/** What an owner may change; absent fields stay. `closed_at` undefined: unchanged. */
export type RequestChanges = Partial<
  Pick<
    RequestRow,
    | 'label'
    | 'message'
    | 'max_files'
    | 'max_file_size'
    | 'max_bytes'
    | 'allowed_types'
    | 'is_public'
    | 'password_hash'
    | 'expires_at'
    | 'closed_at'
  >
>;

const CHANGEABLE = [
  'label',
  'message',
  'max_files',
  'max_file_size',
  'max_bytes',
  'allowed_types',
  'is_public',
  'password_hash',
  'expires_at',
  'closed_at',
] as const;

/** Applies the changes to the account's request; returns it as it is after, or null when unknown. */
export function updateOwnedRequest(
  db: D1Database,
  id: string,
  accountId: string,
  now: string,
  changes: RequestChanges,
) {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const column of CHANGEABLE) {
    if (changes[column] === undefined) continue;
    values.push(changes[column]);
    sets.push(`${column} = ?${values.length + 3}`);
  }
  return db
    .prepare(
      `UPDATE file_requests SET ${[...sets, 'updated_at = ?3'].join(', ')} WHERE id = ?1 AND account_id = ?2 RETURNING ${COLUMNS}`,
    )
    .bind(id, accountId, now, ...values)
    .first<RequestRow>();
}

/** Closes the request unless it is closed already (the first close time stays). */
export function closeOwnedRequest(db: D1Database, id: string, accountId: string, now: string) {
  return db
    .prepare(
      `UPDATE file_requests SET closed_at = COALESCE(closed_at, ?3), updated_at = ?3
        WHERE id = ?1 AND account_id = ?2 RETURNING ${COLUMNS}`,
    )
    .bind(id, accountId, now)
    .first<RequestRow>();
}

/**
 * The counts as the request's object has them. They only grow, so a late write never sets
 * them back.
 */
export async function recordCounts(db: D1Database, id: string, counts: { files: number; bytes: number }) {
  await db
    .prepare('UPDATE file_requests SET file_count = MAX(file_count, ?2), bytes = MAX(bytes, ?3) WHERE id = ?1')
    .bind(id, counts.files, counts.bytes)
    .run();
}

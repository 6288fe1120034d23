-- File requests (upload links): an account asks people without a key to send it files.
-- The token is the capability of the request's public URLs (≥ 128 random bits, base64url). It is
-- kept as is, like a file's share_token, because the owner must be able to read the request's
-- url again (GET /api/v2/requests/{id}); see docs/storage.md. The password is a PBKDF2 hash.
CREATE TABLE file_requests (
  id            TEXT PRIMARY KEY,                  -- 128 random bits, base64url; never the token
  account_id    TEXT NOT NULL,                     -- the owning account (accounts.id, migration 0006)
  token         TEXT NOT NULL UNIQUE,
  label         TEXT,                              -- the owner's name for it; never shown to uploaders
  message       TEXT,                              -- shown to uploaders
  max_files     INTEGER NOT NULL CHECK (max_files >= 1),
  max_file_size INTEGER,                           -- NULL: MAX_FILE_SIZE
  max_bytes     INTEGER,                           -- NULL: only the account's quota
  allowed_types TEXT,                              -- JSON array of media-type patterns; NULL: the server's
  is_public     INTEGER NOT NULL DEFAULT 0 CHECK (is_public IN (0, 1)),
  password_hash TEXT,                              -- pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>
  file_count    INTEGER NOT NULL DEFAULT 0,        -- files received (the request's object is the authority)
  bytes         INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  expires_at    TEXT NOT NULL,
  closed_at     TEXT
);

CREATE INDEX file_requests_by_account ON file_requests (account_id, created_at DESC, id DESC);

-- The request a file came through (NULL for every file uploaded with a key, all files before this).
ALTER TABLE files ADD COLUMN request_id TEXT;
CREATE INDEX files_by_request ON files (request_id, uploaded_at DESC, id DESC) WHERE request_id IS NOT NULL;

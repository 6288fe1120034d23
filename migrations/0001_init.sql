-- API keys: only the SHA-256 of a key is stored, never the key itself.
CREATE TABLE api_keys (
  id                        TEXT PRIMARY KEY,            -- key_<random>, safe to show and log
  key_hash                  TEXT NOT NULL UNIQUE,        -- hex SHA-256 of the full key
  prefix                    TEXT NOT NULL,               -- first characters, for people to recognise a key
  name                      TEXT NOT NULL,
  status                    TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  rate_limit_requests       INTEGER,                     -- per-key overrides; NULL = configured default
  rate_limit_window_seconds INTEGER,
  storage_quota_bytes       INTEGER,
  created_at                TEXT NOT NULL,
  updated_at                TEXT NOT NULL,
  revoked_at                TEXT
);

-- One row per stored file; the bytes live in R2 under r2_key.
CREATE TABLE files (
  id             TEXT PRIMARY KEY,                       -- 128 random bits, base64url
  key_id         TEXT NOT NULL REFERENCES api_keys (id),
  filename       TEXT NOT NULL UNIQUE,                   -- safe stored name
  original_name  TEXT NOT NULL,
  size           INTEGER NOT NULL CHECK (size >= 0),
  mime_type      TEXT NOT NULL,
  r2_key         TEXT NOT NULL UNIQUE,
  etag           TEXT NOT NULL,                          -- HTTP ETag of the R2 object (quoted)
  share_token    TEXT NOT NULL UNIQUE,
  is_public      INTEGER NOT NULL DEFAULT 1 CHECK (is_public IN (0, 1)),
  download_count INTEGER NOT NULL DEFAULT 0,
  uploaded_at    TEXT NOT NULL,                          -- ISO 8601 UTC with milliseconds
  updated_at     TEXT NOT NULL,
  expires_at     TEXT
);

CREATE INDEX files_by_key_newest ON files (key_id, uploaded_at DESC, id DESC);
CREATE INDEX files_by_expiry ON files (expires_at) WHERE expires_at IS NOT NULL;

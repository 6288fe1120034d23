-- Share links an account makes to one of its files (issue 16), beside the file's default link
-- (files.share_token, governed by is_public). Nothing existing is read differently or rewritten.
CREATE TABLE share_links (
  id                  TEXT PRIMARY KEY,                  -- lnk_ + 128 random bits, base64url
  file_id             TEXT NOT NULL,                     -- files.id (no FK: the trigger below removes links)
  account_id          TEXT NOT NULL,                     -- the owning account (accounts.id)
  token               TEXT NOT NULL UNIQUE,              -- 256 random bits, base64url (43 chars); never from ids
  label               TEXT,
  password_hash       TEXT,                              -- base64url PBKDF2-SHA-256 output, NULL: no password
  password_salt       TEXT,                              -- base64url, 16 random bytes
  password_iterations INTEGER,                           -- the count the hash was made with
  max_downloads       INTEGER CHECK (max_downloads IS NULL OR max_downloads >= 1),
  download_count      INTEGER NOT NULL DEFAULT 0,        -- flushed from the link's LinkCounter object
  expires_at          TEXT,                              -- ISO 8601 UTC with milliseconds
  last_downloaded_at  TEXT,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL,
  revoked_at          TEXT
);

-- A file's links, newest first; an account's links.
CREATE INDEX share_links_by_file ON share_links (file_id, created_at DESC, id DESC);
CREATE INDEX share_links_by_account ON share_links (account_id);

-- A link dies with its file: every way a file row goes (delete, bulk delete, the expiry sweep,
-- the drift sweep) takes its links in the same statement.
CREATE TRIGGER files_take_links AFTER DELETE ON files BEGIN
  DELETE FROM share_links WHERE file_id = OLD.id;
END;

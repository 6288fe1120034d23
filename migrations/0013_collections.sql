-- Collections (issue 31): an ordered set of an account's files, shared as one (one link, one ZIP).
-- A collection holds references to files, never their bytes: a file may sit in several
-- collections, and deleting a collection deletes its links, never its files.
CREATE TABLE collections (
  id          TEXT PRIMARY KEY,                  -- col_ + 128 random bits, base64url
  account_id  TEXT NOT NULL,                     -- the owning account (accounts.id)
  name        TEXT NOT NULL,                     -- 1 … 200 characters, no control characters
  note        TEXT,                              -- at most 2,000 characters; NULL: none
  created_at  TEXT NOT NULL,                     -- ISO 8601 UTC with milliseconds
  updated_at  TEXT NOT NULL                      -- name, note or members changed (a member's file deleted too)
);

-- The owner's list, newest first.
CREATE INDEX collections_by_account ON collections (account_id, created_at DESC, id DESC);

-- Members, in order. No foreign keys (D1 enforces them): the triggers below say the same.
CREATE TABLE collection_files (
  collection_id TEXT NOT NULL,                   -- collections.id
  file_id       TEXT NOT NULL,                   -- files.id, of the collection's account
  position      INTEGER NOT NULL,                -- the order (gaps allowed: removals leave them)
  added_at      TEXT NOT NULL,
  PRIMARY KEY (collection_id, file_id)
);

CREATE UNIQUE INDEX collection_files_in_order ON collection_files (collection_id, position);
-- Which collections hold a file: what the trigger below reads when the file goes.
CREATE INDEX collection_files_by_file ON collection_files (file_id);

-- A file leaves every collection in the statement that deletes it, whichever path deletes it
-- (DELETE, bulk delete, the expiry sweep, the drift sweep). Those collections' bytes changed, so
-- their updated_at (the archive's Last-Modified) moves. An expired file not yet swept is already
-- out of every read (each read joins the file and checks its expiry).
CREATE TRIGGER files_leave_collections AFTER DELETE ON files BEGIN
  UPDATE collections SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    WHERE id IN (SELECT collection_id FROM collection_files WHERE file_id = OLD.id);
  DELETE FROM collection_files WHERE file_id = OLD.id;
END;

-- ---------------------------------------------------------------------------------------------
-- Share links to a collection: share_links gets collection_id, and file_id may be NULL (a link
-- shares exactly one of the two). SQLite cannot drop a NOT NULL in place, so the table is rebuilt:
-- every row copied as it is (collection_id NULL), then the indexes and the trigger of 0007 made
-- again. The trigger goes first, so nothing refers to the old table while it is replaced.
DROP TRIGGER files_take_links;

CREATE TABLE share_links_new (
  id                  TEXT PRIMARY KEY,                  -- lnk_ + 128 random bits, base64url
  file_id             TEXT,                              -- files.id, or NULL for a collection's link
  collection_id       TEXT,                              -- collections.id, or NULL for a file's link
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
  revoked_at          TEXT,
  CHECK ((file_id IS NULL) <> (collection_id IS NULL))
);

INSERT INTO share_links_new (id, file_id, collection_id, account_id, token, label, password_hash, password_salt,
    password_iterations, max_downloads, download_count, expires_at, last_downloaded_at, created_at, updated_at,
    revoked_at)
  SELECT id, file_id, NULL, account_id, token, label, password_hash, password_salt, password_iterations,
    max_downloads, download_count, expires_at, last_downloaded_at, created_at, updated_at, revoked_at
  FROM share_links;

DROP TABLE share_links;
ALTER TABLE share_links_new RENAME TO share_links;

-- 0007's indexes, and a collection's links newest first.
CREATE INDEX share_links_by_file ON share_links (file_id, created_at DESC, id DESC);
CREATE INDEX share_links_by_account ON share_links (account_id);
CREATE INDEX share_links_by_collection ON share_links (collection_id, created_at DESC, id DESC)
  WHERE collection_id IS NOT NULL;

-- 0007's trigger: a file's links die with it.
CREATE TRIGGER files_take_links AFTER DELETE ON files BEGIN
  DELETE FROM share_links WHERE file_id = OLD.id;
END;

-- A collection's members and links die with it (never its files).
CREATE TRIGGER collections_take_members AFTER DELETE ON collections BEGIN
  DELETE FROM collection_files WHERE collection_id = OLD.id;
  DELETE FROM share_links WHERE collection_id = OLD.id;
END;

-- End-to-end encryption in the age format (issue 40, docs/e2e.md): an encrypted file's R2 object
-- (or segments) holds only its age payload; its headers live here, one per way in: the owner's
-- (from the upload) on the file's row, and one per share link in link_headers, a collection link
-- holding one per encrypted member. Nothing existing is rewritten: every file stays plain
-- (encryption NULL), every request takes plain files (e2e 0), every segment starts at byte 0.

-- 'age' for an encrypted file (its bytes are an age payload), NULL for a plain one.
ALTER TABLE files ADD COLUMN encryption TEXT CHECK (encryption IS NULL OR encryption = 'age');
-- The client's opaque base64url `meta` (at most 4 KiB): stored and returned as it is.
ALTER TABLE files ADD COLUMN meta TEXT CHECK (meta IS NULL OR length(meta) <= 4096);
-- The owner's age header (ASCII text, at most 16 KiB) of an encrypted file: what the owner's
-- download and the file's default link serve in front of the payload. NULL for a plain file.
ALTER TABLE files ADD COLUMN e2e_header TEXT CHECK (e2e_header IS NULL OR length(e2e_header) <= 16384);

-- One age header per (share link, encrypted file): a file's link has one, a collection's link one
-- per encrypted member it serves (a member without one is left out of that link's page and ZIP).
-- No foreign keys (D1 enforces them): the triggers below say the same.
CREATE TABLE link_headers (
  link_id     TEXT NOT NULL,                   -- share_links.id
  file_id     TEXT NOT NULL,                   -- files.id (an encrypted file of the link's account)
  header      TEXT NOT NULL CHECK (length(header) <= 16384),
  created_at  TEXT NOT NULL,                   -- ISO 8601 UTC with milliseconds
  updated_at  TEXT NOT NULL,                   -- the header last replaced (PUT /links/{id}/headers/{fileId})
  PRIMARY KEY (link_id, file_id)
);
-- What the file triggers below read when a file goes.
CREATE INDEX link_headers_by_file ON link_headers (file_id);

-- A header dies with its file, whichever path deletes the row.
CREATE TRIGGER files_take_link_headers AFTER DELETE ON files BEGIN
  DELETE FROM link_headers WHERE file_id = OLD.id;
END;
-- ... with its link (a collection deleted takes its links, migration 0013) ...
CREATE TRIGGER share_links_take_headers AFTER DELETE ON share_links BEGIN
  DELETE FROM link_headers WHERE link_id = OLD.id;
END;
-- ... when its link is revoked (the payload is never rewritten, only this header goes) ...
CREATE TRIGGER revoked_links_drop_headers AFTER UPDATE OF revoked_at ON share_links
  WHEN NEW.revoked_at IS NOT NULL BEGIN
  DELETE FROM link_headers WHERE link_id = NEW.id;
END;
-- ... and when its file leaves the collection its link shares (added again, it needs a new one).
CREATE TRIGGER collection_files_drop_headers AFTER DELETE ON collection_files BEGIN
  DELETE FROM link_headers WHERE file_id = OLD.file_id
    AND link_id IN (SELECT id FROM share_links WHERE collection_id = OLD.collection_id);
END;

-- An account's age identity: its public recipient (age1…), which uploads encrypt to, and an
-- optional passphrase backup of its secret identity (an armored age file, one scrypt stanza), so
-- a second device restores it. The server never holds the identity itself.
CREATE TABLE e2e_identities (
  account_id  TEXT PRIMARY KEY,                -- accounts.id
  recipient   TEXT NOT NULL,                   -- age1… (bech32, an X25519 public key)
  backup      TEXT,                            -- armored age file; NULL: none kept
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

-- A file request that takes only age files (POST /api/v2/requests {"e2e": true}).
ALTER TABLE file_requests ADD COLUMN e2e INTEGER NOT NULL DEFAULT 0 CHECK (e2e IN (0, 1));

-- A tus final upload of an age file: its first segment(s) begin with the age header, which is
-- not part of the file's bytes. `start` is where a segment's bytes begin in its R2 object (the
-- header's length in the first partial; 0 for every other segment and every existing one), and
-- `size` counts the bytes from there (0 for a partial that held only header bytes).
ALTER TABLE file_segments ADD COLUMN start INTEGER NOT NULL DEFAULT 0 CHECK (start >= 0);

-- Files stored in segments (tus concatenation, src/tus/concat.ts): a final upload's bytes stay
-- in the R2 objects its partial uploads wrote (R2 cannot join objects, and nothing is copied).
-- Such a file's row has r2_key `concat/<accountId>/<fileId>`, which names no object; its bytes
-- are these segments, read in `seq` order (src/storage/segments.ts). Every other file has no
-- segment and is read from its r2_key as before. No existing row is rewritten here.
CREATE TABLE file_segments (
  file_id    TEXT NOT NULL,                  -- files.id of the final upload
  seq        INTEGER NOT NULL CHECK (seq >= 0),
  r2_key     TEXT NOT NULL UNIQUE,           -- segments/<accountId>/<partial upload id>
  size       INTEGER NOT NULL CHECK (size >= 0),
  upload_id  TEXT NOT NULL,                  -- the partial upload that wrote it
  upload_url TEXT NOT NULL,                  -- the partial as Upload-Concat named it (echoed on HEAD)
  PRIMARY KEY (file_id, seq)
);

-- Segments die with their file, whichever way its row goes (delete, bulk delete, the expiry
-- sweep): in the same statement their keys join blob_deletions, so no object can be forgotten;
-- the deleting request removes them from R2 at once, and the sweep retries what it could not.
CREATE TRIGGER files_drop_segments AFTER DELETE ON files WHEN OLD.r2_key LIKE 'concat/%' BEGIN
  INSERT OR IGNORE INTO blob_deletions (r2_key, key_id, failed_at, attempts)
    SELECT r2_key, OLD.account_id, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0 FROM file_segments WHERE file_id = OLD.id;
  DELETE FROM file_segments WHERE file_id = OLD.id;
END;

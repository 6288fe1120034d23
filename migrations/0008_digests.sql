-- SHA-256 of each file's bytes (lowercase hex), computed while the upload streamed. NULL for
-- files stored before this migration until the scheduled sweep's bounded backfill hashes them
-- (src/maintenance/digest-backfill.ts). No existing row is rewritten here.
ALTER TABLE files ADD COLUMN sha256 TEXT CHECK (sha256 IS NULL OR (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'));

-- The backfill's work list: only rows still without a digest, oldest first.
CREATE INDEX files_without_sha256 ON files (uploaded_at, id) WHERE sha256 IS NULL;

-- CRC-32 of each file's bytes (the unsigned 32-bit value), computed in the same pass as the
-- SHA-256 while the upload streamed: a collection's ZIP archive carries it in every local header,
-- so the archive's every byte follows from the records (exact length, any range). NULL for files
-- stored before this migration until the scheduled sweep's bounded backfill reads them once
-- (src/maintenance/). No existing row is rewritten here.
ALTER TABLE files ADD COLUMN crc32 INTEGER CHECK (crc32 IS NULL OR (crc32 >= 0 AND crc32 <= 4294967295));

-- The backfill's work list: only rows still without a CRC-32, oldest first.
CREATE INDEX files_without_crc32 ON files (uploaded_at, id) WHERE crc32 IS NULL;

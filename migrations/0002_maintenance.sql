-- Blobs whose delete failed after their row was removed: retried by the scheduled sweep.
CREATE TABLE blob_deletions (
  r2_key     TEXT PRIMARY KEY,
  key_id     TEXT NOT NULL,
  failed_at  TEXT NOT NULL,
  attempts   INTEGER NOT NULL DEFAULT 1
);

-- Small named values the scheduled sweep keeps between runs (e.g. its R2 listing cursor).
CREATE TABLE sweep_state (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

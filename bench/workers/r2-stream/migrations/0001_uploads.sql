-- The bare Worker's own record of an upload (the /recorded route): one row per stored object.
CREATE TABLE uploads (
  key TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

-- Files belong to an account; API keys are an account's credentials. Every existing key becomes
-- an account of its own whose id is the key's id, so no file row is rewritten: files.key_id is
-- renamed account_id in place and keeps its values (and its foreign key to api_keys: an
-- account's id is always the id of its first key, and keys are revoked, never deleted).

CREATE TABLE accounts (
  id                  TEXT PRIMARY KEY,               -- the id of the account's first key
  name                TEXT NOT NULL,
  storage_quota_bytes INTEGER,                        -- per-account overrides; NULL = configured default
  max_files           INTEGER,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL
);

-- A key's storage overrides become its account's: migrated keys keep the limits they had.
INSERT INTO accounts (id, name, storage_quota_bytes, max_files, created_at, updated_at)
  SELECT id, name, storage_quota_bytes, max_files, created_at, updated_at FROM api_keys;

ALTER TABLE api_keys ADD COLUMN account_id TEXT REFERENCES accounts (id);
UPDATE api_keys SET account_id = id;
-- JSON array of scopes; NULL = every scope (keys made before scopes existed).
ALTER TABLE api_keys ADD COLUMN scopes TEXT;
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
-- Written by the key's Durable Object, at most once a minute per key.
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at, id);

-- A key inserted without an account (tools written before accounts) founds one of its own.
CREATE TRIGGER api_keys_own_account AFTER INSERT ON api_keys WHEN NEW.account_id IS NULL BEGIN
  INSERT OR IGNORE INTO accounts (id, name, storage_quota_bytes, max_files, created_at, updated_at)
    VALUES (NEW.id, NEW.name, NEW.storage_quota_bytes, NEW.max_files, NEW.created_at, NEW.updated_at);
  UPDATE api_keys SET account_id = NEW.id WHERE id = NEW.id;
END;

-- A key's storage_quota_bytes and max_files are aliases of its account's from here on: a change
-- made through them (the admin API's or the CLI's per-key overrides) is the account's change.
CREATE TRIGGER api_keys_limits_to_account AFTER UPDATE OF storage_quota_bytes, max_files ON api_keys
  WHEN NEW.storage_quota_bytes IS NOT OLD.storage_quota_bytes OR NEW.max_files IS NOT OLD.max_files BEGIN
  UPDATE accounts SET
    storage_quota_bytes = CASE WHEN NEW.storage_quota_bytes IS NOT OLD.storage_quota_bytes
      THEN NEW.storage_quota_bytes ELSE storage_quota_bytes END,
    max_files = CASE WHEN NEW.max_files IS NOT OLD.max_files THEN NEW.max_files ELSE max_files END,
    updated_at = NEW.updated_at
  WHERE id = NEW.account_id;
END;

-- In place: SQLite rewrites the indexes (files_by_key_*) and the counting triggers with them.
ALTER TABLE files RENAME COLUMN key_id TO account_id;
ALTER TABLE key_stats RENAME COLUMN key_id TO account_id;

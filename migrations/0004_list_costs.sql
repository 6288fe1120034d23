-- A list page must not cost in proportion to the key's file count.

-- Files per key, kept by triggers in the same transaction as every insert and delete, so a
-- list reads its total instead of counting rows. Expired rows still count here until the sweep
-- deletes them; a list subtracts them (few, and found through files_by_key_expiry).
CREATE TABLE key_stats (
  key_id TEXT PRIMARY KEY,
  files  INTEGER NOT NULL DEFAULT 0
);
INSERT INTO key_stats (key_id, files) SELECT key_id, COUNT(*) FROM files GROUP BY key_id;

CREATE TRIGGER files_counted AFTER INSERT ON files BEGIN
  INSERT OR IGNORE INTO key_stats (key_id, files) VALUES (NEW.key_id, 0);
  UPDATE key_stats SET files = files + 1 WHERE key_id = NEW.key_id;
END;

CREATE TRIGGER files_uncounted AFTER DELETE ON files BEGIN
  UPDATE key_stats SET files = files - 1 WHERE key_id = OLD.key_id;
END;

-- The listing order, with expires_at inside: skipping to a page reads only the index.
DROP INDEX files_by_key_newest;
CREATE INDEX files_by_key_newest ON files (key_id, uploaded_at DESC, id DESC, expires_at);

-- A key's files that expire, by time: counts its expired-but-not-yet-swept rows.
CREATE INDEX files_by_key_expiry ON files (key_id, expires_at) WHERE expires_at IS NOT NULL;

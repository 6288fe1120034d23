-- v2 lists sorted by size or by name cost what the newest-first list costs: one index per
-- order, with expires_at inside, so skipping to a page reads index entries, not rows. Ties go
-- by id. The name order folds case for ASCII letters only (NOCASE, what SQLite offers).
CREATE INDEX files_by_key_size ON files (key_id, size, id, expires_at);

-- Also what a name search (`q`) reads: each of the key's names and expiries, without its rows.
CREATE INDEX files_by_key_name ON files (key_id, original_name COLLATE NOCASE, id, expires_at);

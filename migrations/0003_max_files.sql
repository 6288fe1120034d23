-- Per-key override of MAX_FILES_PER_KEY (NULL = the configured default).
ALTER TABLE api_keys ADD COLUMN max_files INTEGER;

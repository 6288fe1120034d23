-- The exact size of every file a request takes: set by MCP's create_upload_url (a URL for exactly
-- one file of the stated size, issue 33), NULL for every other request (every existing one
-- included), whose maxFileSize is only an upper bound. Not part of the request's REST record.
-- No existing row is rewritten here.
ALTER TABLE file_requests ADD COLUMN exact_bytes INTEGER CHECK (exact_bytes IS NULL OR exact_bytes >= 1);

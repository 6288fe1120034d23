-- Abuse handling (issue 39): the whole round's data, in one migration. What stands between a thing
-- and its visitors (a file quarantined or removed, a link disabled, an account suspended, a file
-- not yet scanned), the hashes that never get in, and the reports people send. Who decides from
-- these columns is one module, src/moderation/standing.ts. Every new column is NULL for every
-- existing row (in good standing, never scanned); no existing row is rewritten here.

-- A file's moderation: NULL (good standing), 'quarantined' (served to no one, kept: bytes and
-- quota stay) or 'removed' (a tombstone: the bytes are deleted for good and the quota given back,
-- the row stays so that every URL that named it answers 451; the owner may delete it). The
-- statement is the operator's reasoned decision, shown to visitors in the 451 and to the owner.
ALTER TABLE files ADD COLUMN moderation_state TEXT CHECK (moderation_state IN ('quarantined', 'removed'));
ALTER TABLE files ADD COLUMN moderation_statement TEXT;
ALTER TABLE files ADD COLUMN moderated_at TEXT;
-- A file's scan (SCANNER, SCAN_MODE): NULL when it was never to be scanned (scanning off when it
-- arrived), else where its scan stands. `scan_signature` names what clamd found (infected only).
ALTER TABLE files ADD COLUMN scan_status TEXT
  CHECK (scan_status IN ('pending', 'clean', 'infected', 'too_large', 'error', 'skipped'));
ALTER TABLE files ADD COLUMN scan_signature TEXT;
ALTER TABLE files ADD COLUMN scanned_at TEXT;
-- When an operator last released the file (POST /admin/files/{id}/release): served to visitors
-- whatever its scan says (a gated file that could not be scanned, or an infected one judged safe).
ALTER TABLE files ADD COLUMN released_at TEXT;

-- An account's suspension: every key answers 403 ACCOUNT_SUSPENDED, every link and file request
-- 451; nothing is deleted. Both NULL: not suspended. The statement is set whenever suspended_at is.
ALTER TABLE accounts ADD COLUMN suspended_at TEXT;
ALTER TABLE accounts ADD COLUMN suspension_statement TEXT;

-- Disabled links (a file's or a collection's): each answers 451 with its statement; the file and
-- its other links are untouched. A table of its own, not columns of share_links: disabling is
-- rare, so a link's row stays as it is and the share door's one statement reads this by primary
-- key (a LEFT JOIN). A link that goes takes its row with it.
CREATE TABLE disabled_links (
  link_id     TEXT PRIMARY KEY,                  -- share_links.id
  statement   TEXT NOT NULL,
  disabled_at TEXT NOT NULL
);
CREATE TRIGGER share_links_drop_disabled AFTER DELETE ON share_links BEGIN
  DELETE FROM disabled_links WHERE link_id = OLD.id;
END;

-- Hashes that never get in (PUT /admin/blocklist/{sha256}, POST /admin/blocklist, a removal with
-- blockHash): an upload whose SHA-256 is here is 451 CONTENT_BLOCKED. "Is this SHA-256 blocked"
-- is one read of the primary key's index.
CREATE TABLE blocklist (
  sha256      TEXT PRIMARY KEY CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),  -- lowercase hex
  reason      TEXT,
  created_at  TEXT NOT NULL
);
-- The operator's paged list, newest first.
CREATE INDEX blocklist_by_age ON blocklist (created_at DESC, sha256 DESC);

-- Reports (POST /api/v2/reports, the form at /report): what the URL named (its target, or NULL
-- when it named nothing), why, and who sent it, as the access log's visitor id: never an address.
CREATE TABLE reports (
  id                   TEXT PRIMARY KEY,        -- rpt_ + 128 random bits, base64url
  target_type          TEXT CHECK (target_type IN ('file', 'link', 'collection', 'request')),
  target_id            TEXT,
  target_account_id    TEXT,                    -- the target's account (accounts.id)
  reason               TEXT NOT NULL
    CHECK (reason IN ('malware', 'phishing', 'csam', 'copyright', 'illegal', 'spam', 'other')),
  details              TEXT,                    -- at most 2,000 characters
  contact              TEXT,                    -- at most 200 characters
  visitor              TEXT,                    -- the reporter's visitor id (src/access-log/visitor-id.ts)
  link_with_key        TEXT,                    -- an end-to-end link with its key, given so the operator can look
  status               TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  resolution_action    TEXT CHECK (resolution_action IN ('dismiss', 'quarantine', 'remove', 'suspend')),
  resolution_statement TEXT,
  created_at           TEXT NOT NULL,
  resolved_at          TEXT,
  CHECK ((target_type IS NULL) = (target_id IS NULL))
);
-- The operator's review: open (or resolved) reports, newest first, a page at a time.
CREATE INDEX reports_by_status ON reports (status, created_at DESC, id DESC);
-- Per target: its reports in time (the 24-hour threshold, the daily bound) and its distinct reporters.
CREATE INDEX reports_by_target ON reports (target_type, target_id, created_at, visitor) WHERE target_id IS NOT NULL;

-- Reports past the daily bound per target are counted, not stored again: one row per target and
-- UTC day.
CREATE TABLE report_tallies (
  target_type TEXT NOT NULL,
  target_id   TEXT NOT NULL,
  day         TEXT NOT NULL,                     -- YYYY-MM-DD, UTC
  received    INTEGER NOT NULL DEFAULT 0,        -- every well-formed report of the target that day
  PRIMARY KEY (target_type, target_id, day)
);

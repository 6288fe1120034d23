-- Webhooks (issue 19): endpoints per account, the events sent to them, and each delivery.
-- account_id is the owning account (accounts.id): webhooks outlive the key that made them.

CREATE TABLE webhooks (
  id          TEXT PRIMARY KEY,              -- wh_<random>
  account_id  TEXT NOT NULL,
  url         TEXT NOT NULL,                 -- https, or http on a loopback host
  events      TEXT NOT NULL,                 -- JSON array of event types, or ["*"]
  secret      TEXT NOT NULL,                 -- whsec_…: kept to sign deliveries; shown only at creation
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX webhooks_by_account ON webhooks (account_id, created_at);

-- An event that at least one webhook subscribed to: the JSON body its deliveries send.
CREATE TABLE webhook_events (
  id          TEXT PRIMARY KEY,              -- evt_<random>
  account_id  TEXT NOT NULL,
  type        TEXT NOT NULL,
  payload     TEXT NOT NULL,                 -- {"type","timestamp","data"}, exactly as signed and sent
  created_at  TEXT NOT NULL
);
CREATE INDEX webhook_events_by_age ON webhook_events (created_at);

-- One event to one webhook. Its id is the Standard Webhooks message id (webhook-id header),
-- the same on every retry and resend.
CREATE TABLE webhook_deliveries (
  id               TEXT PRIMARY KEY,         -- msg_<random>
  webhook_id       TEXT NOT NULL,
  event_id         TEXT NOT NULL,
  type             TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,                  -- the receiver's last HTTP status; NULL: none (timeout, no connection)
  last_error       TEXT,                     -- why the last attempt failed, in a few words
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  next_attempt_at  TEXT,                     -- when the queue tries again; NULL when none is planned
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_by_age ON webhook_deliveries (created_at);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);

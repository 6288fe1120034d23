// The event types webhooks subscribe to. No imports: the typed client and the CLI read it too.

export const EVENT_TYPES = [
  'file.uploaded',
  'file.deleted',
  'file.expired',
  'file.downloaded',
  'link.exhausted',
  'request.received',
  'request.full',
  'collection.downloaded',
  // Abuse handling (docs/abuse.md): the operator's decisions reach the owner, each with its statement.
  'file.quarantined',
  'file.released',
  'file.removed',
  'link.disabled',
  'account.suspended',
  'account.unsuspended',
  // Scanning and the blocklist (SCANNER, /admin/blocklist).
  'file.scanned',
  'upload.blocked',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/**
 * What the operator hears of (OPERATOR_WEBHOOK_URL): a report received, a file the scanner found
 * infected. Delivered and signed like an account's events, to the operator's one receiver.
 */
export const OPERATOR_EVENT_TYPES = ['report.received', 'file.scanned'] as const;

export type OperatorEventType = (typeof OPERATOR_EVENT_TYPES)[number];

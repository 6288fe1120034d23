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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

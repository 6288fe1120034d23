// How long a file may live, in seconds from now: one range for uploads (expiresIn), updates,
// the configured default (DEFAULT_EXPIRY_SECONDS) and the documents.
export const MIN_EXPIRY_SECONDS = 60;
/** 365 days. */
export const MAX_EXPIRY_SECONDS = 31_536_000;
/** The range as the documents and messages write it. */
export const EXPIRY_RANGE = `${MIN_EXPIRY_SECONDS} to ${MAX_EXPIRY_SECONDS}`;
export const TOO_SHORT = `must be at least ${MIN_EXPIRY_SECONDS}`;
export const TOO_LONG = `must be at most ${MAX_EXPIRY_SECONDS}`;

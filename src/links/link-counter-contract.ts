// The types the LinkCounter object and its client share (so neither imports the other's code).

export type ClaimRequest = {
  linkId: string;
  /** The link's cap as D1 has it now (a PATCH may change it), null: no cap. */
  max: number | null;
  /** D1's count: where a new object starts counting. */
  seed: number;
  now?: number;
};
export type ClaimResult = { ok: boolean; count: number };
export type CountView = { count: number; lastDownloadedAt: string | null };

export type WindowRequest = { limit: number; windowSeconds: number; now?: number };
/** `reset`: when the window ends, Unix seconds. */
export type WindowResult = { blocked: boolean; reset: number };

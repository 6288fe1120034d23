// The auth guard's contract: what the Worker sends its per-address Durable Object.

export type FailureRequest = { scope: 'api' | 'admin'; limit: number; windowSeconds: number; now?: number };
/** `blocked` once the address has failed more than `limit` times in the window; `reset` in Unix seconds. */
export type FailureResult = { blocked: boolean; failures: number; reset: number };

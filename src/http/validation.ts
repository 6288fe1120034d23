import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { ApiError, validationError } from '../errors';

/** Throws our VALIDATION_ERROR envelope instead of zod's raw result. */
export function validationHook(result: { success: boolean; error?: z.ZodError; data?: unknown; target?: string }) {
  if (result.success || !result.error) return;
  const input =
    result.target === 'query' && typeof result.data === 'object' ? (result.data as Record<string, unknown>) : {};
  const details = result.error.issues.map((issue) => {
    const field = issue.path.join('.') || 'body';
    // A repeated query parameter arrives as an array: say so, not "expected string".
    const repeated = issue.path.length === 1 && Array.isArray(input[field]);
    return { field, message: repeated ? `${field} was given more than once` : issue.message };
  });
  const first = details[0];
  throw new ApiError('VALIDATION_ERROR', first ? `Invalid ${first.field}: ${first.message}` : undefined, { details });
}

// A JSON request (50 ids, a few fields) fits in a few KiB; a larger body is not one of ours.
const MAX_JSON_BODY = 64 * 1024;

/** Refuses a JSON body over 64 KiB (400 VALIDATION_ERROR naming the body) before it is read. */
export const jsonBodyLimit = () =>
  bodyLimit({
    maxSize: MAX_JSON_BODY,
    onError: () => {
      throw validationError('body', `must be at most ${MAX_JSON_BODY} bytes`);
    },
  });

import type { z } from 'zod';
import { ApiError } from '../errors';

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

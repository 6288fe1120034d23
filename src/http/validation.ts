import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { MAX_JSON_BODY } from '../config';
import type { AppEnv } from '../env';
import { validationError, validationErrors } from '../errors';
import { issueDetails } from '../lib/validation-messages';

/** Throws our VALIDATION_ERROR envelope instead of zod's raw result, each detail naming its field. */
export function validationHook(result: { success: boolean; error?: z.ZodError; data?: unknown; target?: string }) {
  if (result.success || !result.error) return;
  const input =
    result.target === 'query' && typeof result.data === 'object' ? (result.data as Record<string, unknown>) : {};
  const details = issueDetails(result.error.issues).map((detail) =>
    // A repeated query parameter arrives as an array: say so, not "must be a string".
    !detail.field.includes('.') && Array.isArray(input[detail.field])
      ? { field: detail.field, message: `${detail.field} was given more than once` }
      : detail,
  );
  throw validationErrors(details);
}

/** Refuses a JSON body over 64 KiB, or `maxSize` (400 VALIDATION_ERROR naming the body) before it is read. */
export const jsonBodyLimit = (maxSize = MAX_JSON_BODY) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw validationError('body', `must be at most ${maxSize} bytes`);
    },
  });

/** A version's router (v1, v2): a request that fails its route's schema answers with the error envelope. */
export const versionRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

export { MAX_JSON_BODY };

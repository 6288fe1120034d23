import type { z } from 'zod';

/** An OpenAPI response whose body is JSON of this schema. */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

// zod's default wording replaced by ours (src/lib/validation-messages.ts): every message names its
// field and says what it must be; a schema's own words are kept, and prefixed with the field.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issueDetails, namedMessage } from '../../src/lib/validation-messages';

const detailsOf = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a failure');
  return issueDetails(result.error.issues);
};

describe('issueDetails', () => {
  it.each([
    ['name is required', z.object({ name: z.string() }), {}, 'name'],
    ['name must be a string', z.object({ name: z.string() }), { name: 7 }, 'name'],
    ['name must be a string', z.object({ name: z.string() }), { name: null }, 'name'],
    ['n must be a number', z.object({ n: z.number() }), { n: 'x' }, 'n'],
    ['n must be a whole number', z.object({ n: z.number().int() }), { n: 1.5 }, 'n'],
    ['on must be true or false', z.object({ on: z.boolean() }), { on: 'yes' }, 'on'],
    ['ids must be an array', z.object({ ids: z.array(z.string()) }), { ids: 'x' }, 'ids'],
    ['ids.1 must be a string', z.object({ ids: z.array(z.string()) }), { ids: ['a', 2] }, 'ids.1'],
    ['s must not be empty', z.object({ s: z.string().min(1) }), { s: '' }, 's'],
    ['s must be at least 3 characters', z.object({ s: z.string().min(3) }), { s: 'ab' }, 's'],
    ['s must be at most 2 characters', z.object({ s: z.string().max(2) }), { s: 'abc' }, 's'],
    ['n must be at least 60', z.object({ n: z.number().min(60) }), { n: 5 }, 'n'],
    ['n must be at most 10', z.object({ n: z.number().max(10) }), { n: 50 }, 'n'],
    ['n must be more than 0', z.object({ n: z.number().positive() }), { n: 0 }, 'n'],
    ['ids must hold at least 1 item', z.object({ ids: z.array(z.string()).min(1) }), { ids: [] }, 'ids'],
    ['ids must hold at most 1 item', z.object({ ids: z.array(z.string()).max(1) }), { ids: ['a', 'b'] }, 'ids'],
    ['at must be an ISO 8601 date-time', z.object({ at: z.iso.datetime() }), { at: 'soon' }, 'at'],
    ['url must be a URL', z.object({ url: z.url() }), { url: 'nope' }, 'url'],
    ['o must be one of asc, desc', z.object({ o: z.enum(['asc', 'desc']) }), { o: 'up' }, 'o'],
    ['v must be "yes"', z.object({ v: z.literal('yes') }), { v: 'no' }, 'v'],
    ['body has a field this request does not take: b', z.strictObject({ a: z.string() }), { a: 'x', b: 1 }, 'body'],
    ['body must be an object', z.object({ a: z.string() }), 'text', 'body'],
    // A schema's own words are kept, with the field before a predicate.
    [
      'n must be at least 60 seconds',
      z.object({ n: z.number().min(60, 'must be at least 60 seconds') }),
      { n: 1 },
      'n',
    ],
    [
      'give a or b, not both',
      z.object({ a: z.string().optional(), b: z.string().optional() }).refine((v) => !(v.a && v.b), {
        message: 'give a or b, not both',
        path: ['b'],
      }),
      { a: 'x', b: 'y' },
      'b',
    ],
  ])('"%s"', (message, schema, input, field) => {
    expect(detailsOf(schema, input)).toEqual([{ field, message }]);
  });
});

describe('namedMessage', () => {
  it('puts the field before a predicate and leaves a sentence as it is', () => {
    expect(namedMessage('expiresAt', 'must be in the future')).toBe('expiresAt must be in the future');
    expect(namedMessage('order', 'was given more than once')).toBe('order was given more than once');
    expect(namedMessage('file', 'the file part is required')).toBe('the file part is required');
  });
});

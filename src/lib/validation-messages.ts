// What a validation failure says: each message names its field and what the field must be
// ("name is required", "expiresIn must be a whole number"), never zod's stock wording
// ("Invalid input: expected string, received undefined"). Schemas that word a rule themselves
// ("must be at least 60") keep their words; this only replaces zod's defaults.
import { z } from 'zod';

type Issue = z.core.$ZodRawIssue;

const TYPES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'an array',
  tuple: 'an array',
  object: 'an object',
  record: 'an object',
  date: 'a date',
  null: 'null',
};

const FORMATS: Record<string, string> = {
  datetime: 'an ISO 8601 date-time',
  date: 'an ISO 8601 date',
  time: 'an ISO 8601 time',
  duration: 'an ISO 8601 duration',
  url: 'a URL',
  email: 'an email address',
  uuid: 'a UUID',
  base64: 'Base64',
  base64url: 'Base64url',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

type SizeIssue = { origin: string; inclusive?: boolean | undefined; exact?: boolean | undefined };

function sizeRule(issue: SizeIssue, bound: number, big: boolean) {
  const word = issue.exact ? 'exactly' : big ? 'at most' : 'at least';
  if (issue.origin === 'string') {
    return !big && bound === 1 && !issue.exact ? 'must not be empty' : `must be ${word} ${plural(bound, 'character')}`;
  }
  if (issue.origin === 'array' || issue.origin === 'set') return `must hold ${word} ${plural(bound, 'item')}`;
  if (issue.inclusive === false) return `must be ${big ? 'less' : 'more'} than ${bound}`;
  return `must be ${word} ${bound}`;
}

/** zod's default message for an issue, in our words: a predicate the field's name goes before. */
function stockMessage(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${TYPES[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return sizeRule(issue, Number(issue.minimum), false);
    case 'too_big':
      return sizeRule(issue, Number(issue.maximum), true);
    case 'invalid_format':
      if (issue.format === 'starts_with') return `must start with ${JSON.stringify(issue.prefix)}`;
      if (issue.format === 'ends_with') return `must end with ${JSON.stringify(issue.suffix)}`;
      if (issue.format === 'includes') return `must contain ${JSON.stringify(issue.includes)}`;
      return FORMATS[issue.format] ? `must be ${FORMATS[issue.format]}` : 'is not in the expected format';
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((value) => String(value)).join(', ')}`;
    case 'unrecognized_keys':
      return `has ${issue.keys.length === 1 ? 'a field' : 'fields'} this request does not take: ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return 'does not match any of the accepted forms';
    case 'invalid_key':
      return 'has a key that is not valid';
    case 'invalid_element':
      return 'has an item that is not valid';
    default:
      return 'is not valid';
  }
}

// Where a schema words a rule itself, zod uses those words; everywhere else, these. Set once for
// the whole Worker: every module that reports validation errors imports this one (errors.ts).
z.config({ customError: stockMessage });

/** A message that is a predicate ("must be…", "is required") starts with the field it is about. */
const PREDICATE = /^(must|is|was|are|has|does|may|cannot)\b/;

/** The message naming its field: `expiresAt` + `must be in the future` → `expiresAt must be in the future`. */
export const namedMessage = (field: string, message: string) =>
  PREDICATE.test(message) ? `${field} ${message}` : message;

export type FieldDetail = { field: string; message: string };

/** One detail per problem, each naming its field: a dotted path, `body` for the body as a whole. */
export const issueDetails = (issues: readonly z.core.$ZodIssue[]): FieldDetail[] =>
  issues.map((issue) => {
    const field = issue.path.join('.') || 'body';
    return { field, message: namedMessage(field, issue.message) };
  });

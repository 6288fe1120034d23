// The non-file fields of an upload (isPublic, expiresIn, sha256): read from the form, validated once.
import { validationError, zodValidationError } from '../errors';
import type { MultipartReader, PartInfo } from '../lib/multipart';
import type { UploadRules } from '../policy/service';
import { UploadFieldsSchema } from './upload-fields-schema';

export type RecordOptions = {
  isPublic: boolean;
  expiresInSeconds: number | undefined;
  /** The SHA-256 (lowercase hex) the client says the file has; checked before anything is committed. */
  sha256?: string | undefined;
  now?: number;
  /** The file request the file came through (src/requests/), if any. */
  requestId?: string;
};

const FIELD_NAMES = new Set(['isPublic', 'expiresIn', 'sha256']);
const MAX_FIELD_BYTES = 1024;

/** Reads a known text field into fields (once each); other parts are skipped. */
export async function readFormField(
  reader: MultipartReader,
  part: PartInfo,
  fields: Record<string, string>,
  rules?: UploadRules,
) {
  if (!FIELD_NAMES.has(part.name)) return;
  if (part.name in fields) throw validationError(part.name, 'was given more than once');
  const value = (await reader.readText(MAX_FIELD_BYTES)).trim();
  fields[part.name] = value;
  // Judged as soon as read: a field the policy refuses stops the form before its file is stored.
  if (rules) rules.judge(parseFields({ [part.name]: value }));
}

function parseFields(fields: Record<string, string>) {
  const parsed = UploadFieldsSchema.safeParse(fields);
  if (!parsed.success) throw zodValidationError(parsed.error.issues.slice(0, 1));
  return parsed.data;
}

/**
 * isPublic, expiresIn (and a client's sha256), validated once the whole form has been read. The
 * one place an upload's expiry and visibility are decided: `rules` (src/policy/) take what was
 * asked (or give the defaults when nothing was) and refuse what the account's policy does not
 * allow (422 POLICY_VIOLATION), before anything is committed.
 */
export function recordOptions(fields: Record<string, string>, rules: UploadRules): RecordOptions {
  const { sha256, ...asked } = parseFields(fields);
  return { ...rules.decide(asked), sha256 };
}

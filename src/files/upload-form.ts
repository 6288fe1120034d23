// POST /upload: one `file` part plus optional fields, streamed part by part.
import { validationError } from '../errors';
import type { UploadRules } from '../policy/service';
import type { FileRow } from '../storage/files-repo';
import { checkDigest, recordFile } from './upload';
import { fileTooLarge } from './upload-errors';
import { readFormField, recordOptions } from './upload-fields';
import { type PartRules, readFileParts } from './upload-parts';
import type { UploadDeps } from './upload-session';

const MAX_PARTS = 20;
const FILE_FIELDS = new Set(['file']);
// Room for the multipart framing and the small fields around the file.
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** `policyRules`: how the file's expiry and visibility are decided (the account's policy; see recordOptions). */
export async function uploadSingleFile(deps: UploadDeps, request: Request, policyRules: UploadRules): Promise<FileRow> {
  const declaredLength = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declaredLength > deps.config.MAX_FILE_SIZE + FORM_OVERHEAD_BYTES) throw fileTooLarge(deps.config.MAX_FILE_SIZE);
  const fields: Record<string, string> = {};
  const rules: PartRules = {
    maxParts: MAX_PARTS,
    fileFields: FILE_FIELDS,
    field: (reader, part) => readFormField(reader, part, fields, policyRules),
    admit: (_part, files) => {
      if (files.length > 0) throw validationError('file', 'send exactly one file part');
    },
  };
  return readFileParts(deps, request, rules, async ([part]) => {
    const file = part?.file;
    if (!file) throw validationError('file', 'the file part is required');
    const options = recordOptions(fields, policyRules);
    // The sha256 field may come after the file: checked now, before the quota commit and the row.
    checkDigest(file, options.sha256, 'sha256');
    return recordFile(deps, file, options);
  });
}

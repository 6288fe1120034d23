// POST /upload: one `file` part plus optional fields, streamed part by part.
import { validationError } from '../errors';
import type { FileRow } from '../storage/files-repo';
import { checkDigest, type PendingFile, readFilePart, recordFile } from './upload';
import { fileTooLarge, openMultipart, uploadError } from './upload-errors';
import { readFormField, recordOptions } from './upload-fields';
import type { UploadDeps } from './upload-session';

const MAX_PARTS = 20;
// Room for the multipart framing and the small fields around the file.
const FORM_OVERHEAD_BYTES = 64 * 1024;

export async function uploadSingleFile(deps: UploadDeps, request: Request): Promise<FileRow> {
  const declaredLength = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declaredLength > deps.config.MAX_FILE_SIZE + FORM_OVERHEAD_BYTES) throw fileTooLarge(deps.config.MAX_FILE_SIZE);
  const reader = openMultipart(request);
  const fields: Record<string, string> = {};
  let file: PendingFile | undefined;
  try {
    let parts = 0;
    for (let part = await reader.nextPart(); part; part = await reader.nextPart()) {
      if (++parts > MAX_PARTS) throw validationError('body', `at most ${MAX_PARTS} form parts are accepted`);
      deps.session.check();
      if (part.name === 'file') {
        if (file) throw validationError('file', 'send exactly one file part');
        if (part.filename === undefined) throw validationError('file', 'must be a file, not a text field');
        // What a browser sends for a file input left empty: no file was chosen.
        if (part.filename === '') continue;
        file = await readFilePart(deps, reader, part);
      } else {
        await readFormField(reader, part, fields);
      }
    }
    if (!file) throw validationError('file', 'the file part is required');
    const options = recordOptions(fields);
    // The sha256 field may come after the file: checked now, before the quota commit and the row.
    checkDigest(file, options.sha256, 'sha256');
    return await recordFile(deps, file, options);
  } catch (error) {
    await reader.cancel();
    // A write still finishing ends before the session deletes what this request owns.
    await file?.stored.catch(() => undefined);
    throw uploadError(error);
  }
}

// The one part loop of every multipart upload (POST /upload, POST /upload/bulk, a file request's
// uploadUrl): reads the body part by part, each file part into R2 as it comes, and hands the files
// read to the caller, which records them. What differs between the three is in PartRules.
import { admitUpload, type E2eUpload, META_MAX_CHARS, parseMeta } from '../e2e/age-checks';
import { type ApiError, validationError } from '../errors';
import { MultipartError, type MultipartReader, type PartInfo } from '../lib/multipart';
import { cleanOriginalName } from './names';
import { type PendingFile, readFilePart } from './upload';
import { openMultipart, uploadError } from './upload-errors';
import type { UploadDeps } from './upload-session';

// Finishing writes (a small file's put, a large one's last part) that may run while the next
// file is read: with the part being uploaded, this stays under the Workers limit of six
// simultaneous connections.
const MAX_FINISHING = 3;

/** One file part of the body, in part order: read (`file`), or refused on its own (`error`). */
export type FilePart = {
  /** The part's filename, cleaned (its field name when it came as text). */
  name: string;
  /** Sent as a text field under a file field's name: no file at all. */
  text?: true;
  file?: PendingFile;
  error?: ApiError;
};

export type PartRules = {
  /** At most this many parts (files and fields) per body. */
  maxParts: number;
  /** The names of the parts that carry files. */
  fileFields: ReadonlySet<string>;
  /** Reads a part that is no file field (the upload's own fields); without it such parts are skipped. */
  field?: (reader: MultipartReader, part: PartInfo) => Promise<void>;
  /**
   * Called for each file field before anything of it is read, with the file parts so far: may
   * refuse it by throwing (one file too many), or hold what it will need (a file request's slot).
   */
  admit?: (part: PartInfo, files: readonly FilePart[]) => void | Promise<void>;
  /**
   * A file fails alone (bulk): a refused file, or a file field sent as text, is a FilePart with
   * its error and the body goes on. Otherwise the first failure fails the whole body.
   */
  eachFileAlone?: boolean;
};

/**
 * Reads the body's parts: each file into R2 (its type checked from its first bytes, its bytes
 * counted against the session's quota as they arrive), each field through `rules.field`, with
 * each file's final write overlapping the reading of the next. Then `record` makes the files
 * permanent. A file input left empty (filename "") is no file. If anything throws (`record`
 * included), the body is cancelled and every write is let finish before the error goes on, so
 * the session deletes what this request owns.
 */
export async function readFileParts<T>(
  deps: UploadDeps,
  request: Request,
  rules: PartRules,
  record: (files: FilePart[]) => Promise<T>,
): Promise<T> {
  const reader = openMultipart(request);
  const files: FilePart[] = [];
  const finishing = new Set<Promise<unknown>>();
  const age = new AgeFields();
  try {
    let parts = 0;
    for (let part = await reader.nextPart(); part; part = await reader.nextPart()) {
      if (++parts > rules.maxParts) throw validationError('body', `at most ${rules.maxParts} form parts are accepted`);
      deps.session.check();
      if (!rules.fileFields.has(part.name)) {
        if (!(await age.read(reader, part, files.length > 0))) await rules.field?.(reader, part);
        continue;
      }
      // Judged before the file holds anything: an age file where none is taken, a plain one where
      // only age files are (an e2e file request).
      const e2e = age.admit(deps);
      await rules.admit?.(part, files);
      if (part.filename === undefined) {
        const error = validationError(part.name, 'must be a file, not a text field');
        if (!rules.eachFileAlone) throw error;
        files.push({ name: cleanOriginalName(part.name), text: true, error });
        continue;
      }
      if (part.filename === '') continue;
      const name = cleanOriginalName(part.filename);
      while (finishing.size >= MAX_FINISHING) await Promise.race(finishing);
      try {
        const file = await readFilePart(deps, reader, { ...part, e2e });
        const settled = file.stored.catch(() => undefined);
        finishing.add(settled);
        void settled.then(() => finishing.delete(settled));
        files.push({ name, file });
      } catch (error) {
        // A broken body makes the whole request unusable; anything else fails this file only.
        if (!rules.eachFileAlone || error instanceof MultipartError) throw error;
        files.push({ name, error: uploadError(error) });
      }
    }
    age.pairMeta(files);
    return await record(files);
  } catch (error) {
    await reader.cancel();
    // Writes still finishing end before the session deletes what this request owns.
    await Promise.all(files.map((part) => part.file?.stored.catch(() => undefined)));
    throw uploadError(error);
  }
}

/**
 * Every multipart upload's end-to-end encryption fields (docs/e2e.md): `encryption` ("age"), sent
 * before the first file part, makes every file of the body an age file; `meta`, one per file in
 * the files' order (or one for a lone file), anywhere in the body, is each file's opaque meta.
 */
class AgeFields {
  #encryption: string | undefined;
  readonly #metas: string[] = [];
  #admitted: E2eUpload | null = null;

  /** Reads the part if it is one of these fields (true), else leaves it to the caller. */
  async read(reader: MultipartReader, part: PartInfo, afterFiles: boolean): Promise<boolean> {
    if (part.name === 'encryption') {
      if (this.#encryption !== undefined) throw validationError('encryption', 'was given more than once');
      if (afterFiles) throw validationError('encryption', 'must come before the file parts');
      this.#encryption = (await reader.readText(64)).trim();
      return true;
    }
    if (part.name !== 'meta') return false;
    this.#metas.push((await reader.readText(META_MAX_CHARS + 64)).trim());
    return true;
  }

  /** Whether the body's files are age files, judged once at its first file (see admitUpload). */
  admit(deps: UploadDeps): { meta: string | null } | undefined {
    if (this.#admitted === null) this.#admitted = admitUpload(deps.e2e, { encryption: this.#encryption });
    return this.#admitted && { meta: null };
  }

  /** Gives each age file its `meta`: the n-th meta field is the n-th file part's ('' for none). */
  pairMeta(files: FilePart[]): void {
    if (this.#metas.length === 0) return;
    if (!this.#admitted) throw validationError('meta', 'is only taken with encryption "age"');
    const fileParts = files.filter((part) => !part.text);
    if (this.#metas.length !== fileParts.length) {
      throw validationError(
        'meta',
        `give one meta field per file, in the files' order (${fileParts.length} files, ${this.#metas.length} meta fields)`,
      );
    }
    fileParts.forEach((part, index) => {
      const meta = parseMeta(this.#metas[index]);
      if (part.file?.e2e) part.file.e2e = { ...part.file.e2e, meta };
    });
  }
}

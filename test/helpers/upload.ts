// Uploads through the API (the one `upload` helper every test uses, any version) and multipart
// bodies, built by FormData or byte by byte.
import { concat } from '../../src/lib/bytes';
import type { UploadRecordOf } from './records';
import { type ApiVersion, api, readJson } from './responses';
import { call } from './worker';

export type Auth = Record<string, string>;
export type EnvOverrides = Partial<Record<string, unknown>>;

/** One file of a multipart form: its part name (`file` unless given), filename, declared type and bytes. */
export type FilePart = { name?: string; filename: string; type?: string; content: BodyInit };

/** A multipart form: fields first, then the files (part name `defaultName` unless a file names its own). */
export function form(files: FilePart[], fields: Record<string, string> = {}, defaultName = 'file'): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const file of files) {
    data.append(file.name ?? defaultName, new File([file.content as Blob], file.filename, { type: file.type ?? '' }));
  }
  return data;
}

/** A bulk upload's form: as `form`, with the part name `files`. */
export const filesForm = (files: FilePart[], fields: Record<string, string> = {}, defaultName = 'files') =>
  form(files, fields, defaultName);

/** A text file declared as text/plain. */
export const textFile = (filename: string, content = `content of ${filename}`): FilePart => ({
  filename,
  type: 'text/plain',
  content,
});

/** An ELF header: an executable, refused whatever it is called or declared as. */
export const ELF = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, ...new Array(56).fill(0)]);
/** Markup declared as a PNG: the content contradicts the declared type. */
export const HTML_AS_PNG: FilePart = {
  filename: 'photo.png',
  type: 'image/png',
  content: '<!doctype html><html><script>alert(1)</script></html>',
};

/** What `upload` sends besides the file: form fields, extra headers, env overrides for the Worker. */
export type UploadOptions = { fields?: Record<string, string>; headers?: Record<string, string>; env?: EnvOverrides };

/**
 * Uploads one file (a small text file unless given) through `version`'s POST /upload. Returns the
 * response with its body unread, and that body as JSON (with `_perf` checked and taken out, see
 * readJson) when it is JSON.
 */
export async function upload(
  version: ApiVersion,
  auth: Auth,
  file: Partial<FilePart> = {},
  options: UploadOptions = {},
) {
  const part: FilePart = {
    filename: file.filename ?? 'hello.txt',
    type: file.type ?? 'text/plain',
    content: file.content ?? 'hello world',
  };
  if (file.name !== undefined) part.name = file.name;
  const init = { method: 'POST', headers: { ...auth, ...options.headers }, body: form([part], options.fields) };
  const response = await call(api(version, '/upload'), init, options.env);
  const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
  // biome-ignore lint/suspicious/noExplicitAny: callers read whichever answer they expect
  const body: any = isJson ? await readJson(version, response.clone()) : undefined;
  return { response, body };
}

/** Uploads a file (as `upload`) and returns its upload record; fails the test unless 201. */
export async function uploadOk<V extends ApiVersion>(
  version: V,
  auth: Auth,
  file: Partial<FilePart> = {},
  options: UploadOptions = {},
): Promise<UploadRecordOf<V>> {
  const { response, body } = await upload(version, auth, file, options);
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}

const encoder = new TextEncoder();

/** One part of a hand-built multipart body: its header lines exactly as given, then its bytes. */
export type RawPart = { headers: string[]; content: string | Uint8Array };

export const TEST_BOUNDARY = '----edgeshare-test-boundary-7MA4YWxkTrZu0gW';

/**
 * A multipart/form-data body built byte by byte, so a test controls every header
 * (and can truncate or corrupt the framing). `end: false` leaves out the closing delimiter.
 */
export function rawMultipart(parts: RawPart[], options: { boundary?: string; end?: boolean } = {}): Uint8Array {
  const boundary = options.boundary ?? TEST_BOUNDARY;
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    chunks.push(encoder.encode(`--${boundary}\r\n${part.headers.map((line) => `${line}\r\n`).join('')}\r\n`));
    chunks.push(typeof part.content === 'string' ? encoder.encode(part.content) : part.content);
    chunks.push(encoder.encode('\r\n'));
  }
  if (options.end !== false) chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return concat(chunks);
}

/** Header lines of a file part; the filename goes between the quotes exactly as given. */
export function filePartHeaders(filename: string, type?: string, name = 'file'): string[] {
  const lines = [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`];
  if (type !== undefined) lines.push(`Content-Type: ${type}`);
  return lines;
}

export const fieldPart = (name: string, value: string): RawPart => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  content: value,
});

/** POSTs a hand-built multipart body with exactly the headers given (Content-Type defaults to the test boundary). */
export function postRaw(
  auth: Record<string, string>,
  body: BodyInit,
  headers: Record<string, string> = {},
  envOverrides: Partial<Record<string, unknown>> = {},
  path = '/api/v1/upload',
) {
  return call(
    path,
    {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${TEST_BOUNDARY}`, ...auth, ...headers },
      body,
    },
    envOverrides,
  );
}

/** A valid 1×1 PNG. */
export const PNG_1X1 = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
  (char) => char.charCodeAt(0),
);

/** The Content-Type of a body built by rawMultipart with the test boundary. */
export const MULTIPART = { 'Content-Type': `multipart/form-data; boundary=${TEST_BOUNDARY}` };

/** A text file part of a hand-built body (part name `files` unless given). */
export const rawFilePart = (filename: string, content: string | Uint8Array, name = 'files'): RawPart => ({
  headers: [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`, 'Content-Type: text/plain'],
  content,
});

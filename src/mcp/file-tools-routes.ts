// The MCP tools over the account's files: list, read, delete, usage, and the two uploads whose
// bytes never pass through the model (a short text, or a URL the service fetches). Each calls
// what its REST route calls, with its schemas; none returns a file's bytes.
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { uploadTimeoutMs } from '../config';
import type { AppEnv } from '../env';
import { ApiError, validationError } from '../errors';
import { usageOf } from '../files/manage-routes';
import { FilenameParamSchema } from '../files/raw-upload-routes';
import { fileRecord, uploadRecord } from '../files/records';
import { uploadDeps } from '../files/routes';
import { FileIdParamSchema, ListQuerySchemaV2, RawUploadQuerySchema } from '../files/schemas';
import { deleteFile, getOwnedFile, listFiles } from '../files/service';
import { fileTooLarge } from '../files/upload-errors';
import { type RecordOptions, recordOptions } from '../files/upload-fields';
import { inSession } from '../files/upload-session';
import { type FileStream, type StreamSource, storeStream } from '../files/upload-stream';
import { accountId, origins, storage } from '../http/request-deps';
import { log } from '../log';
import { uploadRules } from '../policy/routes';
import { fetchChecked, MAX_REDIRECTS, timedOut } from './fetch-url';
import { type McpTool, tool } from './tool';

/** upload_text takes at most this many bytes of text (UTF-8): anything longer goes through a URL. */
export const MAX_TEXT_BYTES = 64 * 1024;

const listFilesTool = tool({
  name: 'list_files',
  description:
    'List your files (records, never contents): newest first, or searched by name (q) and sorted. ' +
    'Pages of `limit` (default 10, at most 100).',
  scope: 'files:read',
  operations: ['listFiles'],
  input: { query: ListQuerySchemaV2 },
  async run(c, { query }) {
    const { rows, pagination } = await listFiles(storage(c), accountId(c), query);
    const base = origins(c);
    return { files: rows.map((row) => fileRecord(row, 'v2', base)), pagination };
  },
});

const FileIdArgs = z.object({ fileId: FileIdParamSchema.shape.id.openapi({ description: 'The file’s id' }) });

const getFileTool = tool({
  name: 'get_file',
  description:
    'One file’s record: name, size, type, SHA-256, expiry, its downloadUrl and shareUrl, and what stands between ' +
    'it and its visitors: moderation (null, or the operator’s quarantine or removal with its statement) and scan ' +
    '(null when not scanned; else its status: pending, clean, infected with its signature, too_large, error or skipped).',
  scope: 'files:read',
  operations: ['getFile'],
  input: { params: FileIdArgs },
  async run(c, { params }) {
    const row = await getOwnedFile(storage(c), params.fileId, accountId(c));
    return fileRecord(row, 'v2', origins(c));
  },
});

const deleteFileTool = tool({
  name: 'delete_file',
  description: 'Delete one of your files for good (its links stop working).',
  scope: 'files:delete',
  operations: ['deleteFile'],
  input: { params: FileIdArgs },
  async run(c, { params }) {
    const row = await deleteFile(storage(c), params.fileId, accountId(c));
    return { message: `File ${row.id} deleted` };
  },
});

const getUsageTool = tool({
  name: 'get_usage',
  description: 'What your account stores and holds, against its quota, file limit and rate limit.',
  scope: 'files:read',
  operations: ['getUsage'],
  input: {},
  run: (c) => usageOf(c),
});

/** The upload's isPublic and expiresIn (the raw upload's query), judged by the account's policy. */
function uploadOptions(c: Context<AppEnv>, query: z.output<typeof RawUploadQuerySchema>): RecordOptions {
  const fields = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
  const { sha256: _none, ...options } = recordOptions(fields as Record<string, string>, uploadRules(c));
  return options;
}

/** Stores one stream as one file of the key's account, in its own upload session (as PUT /upload/{filename}). */
async function store(c: Context<AppEnv>, stream: FileStream, options: RecordOptions) {
  const deps = uploadDeps(c);
  const row = await inSession(deps.session, () => storeStream(deps, stream, options));
  return uploadRecord(row, 'v2', origins(c));
}

const filename = FilenameParamSchema.shape.filename;

const uploadTextTool = tool({
  name: 'upload_text',
  description:
    `Store a short text (at most ${MAX_TEXT_BYTES} bytes of UTF-8) as a file. Anything longer, or binary, ` +
    'goes through upload_from_url or create_upload_url. Answers the upload record with its sha256.',
  scope: 'files:write',
  operations: ['uploadRawFile'],
  input: {
    params: z.object({
      filename: filename.openapi({ description: 'The file’s name, e.g. notes.md (cleaned like an upload’s)' }),
      text: z.string().openapi({ description: `The content, at most ${MAX_TEXT_BYTES} bytes as UTF-8` }),
      contentType: z
        .string()
        .max(255, 'must be at most 255 characters')
        .optional()
        .openapi({ description: 'Its media type; default text/plain; charset=utf-8 (the content decides)' }),
    }),
    query: RawUploadQuerySchema,
  },
  async run(c, { params, query }) {
    const bytes = new TextEncoder().encode(params.text);
    if (bytes.length > MAX_TEXT_BYTES) {
      throw validationError('text', `must be at most ${MAX_TEXT_BYTES} bytes as UTF-8 (use upload_from_url)`);
    }
    if (params.filename.trim() === '') throw validationError('filename', 'must name the file');
    const options = uploadOptions(c, query);
    let pending: Uint8Array | null = bytes.length > 0 ? bytes : null;
    const source: StreamSource = {
      read: async () => {
        const chunk = pending;
        pending = null;
        return chunk;
      },
      cancel: async () => undefined,
    };
    const contentType = params.contentType ?? 'text/plain; charset=utf-8';
    return store(c, { source, filename: params.filename, contentType, length: bytes.length || undefined }, options);
  },
});

const uploadFromUrlTool = tool({
  name: 'upload_from_url',
  description:
    'The service fetches an http(s) URL and stores its body as a file: the bytes never pass through you. ' +
    'Private, link-local, carrier-grade-NAT and metadata addresses, local names (.local, .internal, single ' +
    'labels such as metadata) and names that embed such an address (10.0.0.1.nip.io) are refused, and loopback ' +
    `outside development; at most ${MAX_REDIRECTS} redirects, each checked. A URL that does not answer reads ` +
    '"could not be fetched", whatever the cause. MAX_FILE_SIZE, your quota and the type rules hold while it ' +
    'streams. Answers the upload record with its sha256.',
  scope: 'files:write',
  operations: ['uploadRawFile'],
  input: {
    params: z.object({
      url: z.string().openapi({ description: 'An http or https URL', example: 'https://example.com/report.pdf' }),
      filename: filename
        .optional()
        .openapi({ description: 'The file’s name; default: the last segment of the URL’s path' }),
    }),
    query: RawUploadQuerySchema,
  },
  async run(c, { params, query }) {
    const options = uploadOptions(c, query);
    const config = c.get('config');
    // One deadline for the fetch and the whole body: a slow server is cut off, and nothing is kept.
    const seconds = config.UPLOAD_TIMEOUT_SECONDS;
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new ApiError('REQUEST_TIMEOUT', `The URL took longer than ${seconds} seconds to send; nothing was stored`),
        ),
      uploadTimeoutMs(config),
    );
    const signal = AbortSignal.any([deadline.signal, c.req.raw.signal]);
    try {
      const response = await fetchChecked(params.url, 'url', signal, { allowLoopback: config.ALLOW_LOOPBACK_TARGETS });
      const length = declaredLength(response);
      if (length !== undefined && length > config.MAX_FILE_SIZE) {
        await response.body?.cancel();
        throw fileTooLarge(config.MAX_FILE_SIZE);
      }
      const stream = {
        source: bodySource(response.body, signal),
        filename: params.filename ?? nameInUrl(response.url || params.url),
        contentType: response.headers.get('content-type') ?? undefined,
        length,
      };
      return await store(c, stream, options);
    } finally {
      clearTimeout(timer);
    }
  },
});

/**
 * The body's length, when its Content-Length states the bytes the body will have: not when it is
 * encoded (the runtime decodes it, so the length is the encoded one's).
 */
function declaredLength(response: Response): number | undefined {
  const header = response.headers.get('content-length');
  if (header === null || response.headers.has('content-encoding') || !/^\d+$/.test(header.trim())) return undefined;
  const length = Number(header);
  return Number.isSafeInteger(length) && length > 0 ? length : undefined;
}

/** The last segment of the URL's path, decoded: the file's name when the caller gave none. */
function nameInUrl(url: string): string {
  const segment = new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? '';
  try {
    return decodeURIComponent(segment) || 'download';
  } catch {
    return segment || 'download';
  }
}

/** A fetched body as chunks; a read that outlives `signal` fails with the signal's reason. */
function bodySource(body: ReadableStream<Uint8Array> | null, signal: AbortSignal): StreamSource {
  const reader = body?.getReader();
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(timedOut(signal));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => undefined);
  return {
    async read() {
      if (!reader) return null;
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await Promise.race([reader.read(), aborted]);
      } catch (error) {
        if (signal.aborted) throw timedOut(signal);
        log('info', 'upload_from_url: body broke off', { error: String(error) });
        throw validationError('url', 'its body broke off before its end');
      }
      return next.done ? null : next.value;
    },
    cancel: async () => {
      await reader?.cancel().catch(() => undefined);
    },
  };
}

export const FILE_TOOLS: McpTool[] = [
  listFilesTool,
  getFileTool,
  deleteFileTool,
  uploadTextTool,
  uploadFromUrlTool,
  getUsageTool,
];

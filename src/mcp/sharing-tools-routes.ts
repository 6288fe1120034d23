// The MCP tools that share: links (to a file or a collection), collections and their members, file
// requests (and the one-file upload URL made of one), and the access logs. Each calls what its
// REST route calls, with its schemas, under the account's policy.
import { z } from '@hono/zod-openapi';
import { AccessQuerySchema } from '../access-log/schemas';
import { collectionDeps } from '../collections/routes';
import { CollectionCreateSchema, CollectionFilesAddSchema, CollectionIdParamSchema } from '../collections/schemas';
import { addCollectionFiles, collectionLinks, createCollection, createCollectionLink } from '../collections/service';
import { zodValidationError } from '../errors';
import { FilenameParamSchema } from '../files/raw-upload-routes';
import { FileIdParamSchema } from '../files/schemas';
import { accountId, origins, storage } from '../http/request-deps';
import { accessOfLinks, fileAccessLog, linkAccessLog } from '../links/access-log';
import { linkDeps } from '../links/routes';
import { LinkCreateSchema, LinkIdParamSchema } from '../links/schemas';
import { createLink } from '../links/service';
import { policy } from '../policy/routes';
import { requestAccessLog } from '../requests/access-log-routes';
import { accountIdOf } from '../requests/owner';
import { requestRecord } from '../requests/records';
import { REQUESTS_SCOPE } from '../requests/routes';
import { RequestCreateSchema, RequestIdParamSchema } from '../requests/schemas';
import { createRequest } from '../requests/service';
import { type McpTool, oneOf, tool } from './tool';

const fileId = FileIdParamSchema.shape.id;
const collectionId = CollectionIdParamSchema.shape.id;

const createShareLinkTool = tool({
  name: 'create_share_link',
  description:
    'Make a share link to one of your files (fileId) or collections (collectionId): optional label, password, ' +
    'download cap and expiry, within your account’s policy. Answers the link with its url (share it; the ' +
    'password is never shown again).',
  scope: 'links:write',
  operations: ['createShareLink', 'createCollectionLink'],
  input: {
    params: z.object({
      fileId: fileId.optional().openapi({ description: 'The file to share (or collectionId)' }),
      collectionId: collectionId.optional().openapi({ description: 'The collection to share (or fileId)' }),
    }),
    body: LinkCreateSchema,
  },
  async run(c, { params, body }) {
    if (oneOf(params, ['fileId', 'collectionId']) === 'fileId') {
      return createLink(linkDeps(c), params.fileId ?? '', accountId(c), body);
    }
    return createCollectionLink(collectionDeps(c), params.collectionId ?? '', accountId(c), body);
  },
});

const createCollectionTool = tool({
  name: 'create_collection',
  description: 'Make a collection of your files (shared as one: one link, one ZIP), with its first members in order.',
  scope: 'links:write',
  operations: ['createCollection'],
  input: { body: CollectionCreateSchema },
  run: (c, { body }) => createCollection(collectionDeps(c), accountId(c), body),
});

const addToCollectionTool = tool({
  name: 'add_to_collection',
  description: 'Append files to a collection, in the order given (ids already in it are ignored).',
  scope: 'links:write',
  operations: ['addCollectionFiles'],
  input: {
    params: z.object({ collectionId: collectionId.openapi({ description: 'The collection' }) }),
    body: CollectionFilesAddSchema,
  },
  run: (c, { params, body }) => addCollectionFiles(collectionDeps(c), params.collectionId, accountId(c), body.fileIds),
});

const createFileRequestTool = tool({
  name: 'create_file_request',
  description:
    'Ask people without a key to send you files: answers url (a page for people), uploadUrl and tusUrl, ' +
    'with the limits asked for, within your account’s policy.',
  scope: REQUESTS_SCOPE,
  operations: ['createFileRequest'],
  input: { body: RequestCreateSchema },
  async run(c, { body }) {
    const row = await createRequest(storage(c).db, c.get('config'), policy(c), accountIdOf(c), body);
    return requestRecord(row, origins(c));
  },
});

/**
 * The request's label when the agent gives none: the file it expects (its name, type and size),
 * so the owner's list of requests says what each URL was for.
 */
function expectedFile(file: { filename?: string; contentType: string; size: number }): string {
  const what = `${file.contentType}, ${file.size} ${file.size === 1 ? 'byte' : 'bytes'}`;
  const name = file.filename?.trim();
  if (!name) return `Upload URL: ${what}`;
  const suffix = ` (${what})`;
  let kept = '';
  // Whole characters, within the label's length as zod counts it (UTF-16 code units).
  for (const character of name) {
    if (kept.length + character.length + suffix.length > MAX_LABEL) break;
    kept += character;
  }
  return `${kept}${suffix}`;
}

/** A request's label is at most this long (RequestCreateSchema). */
const MAX_LABEL = 200;

// A single media type: the file request's pattern without its wildcards.
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;

const createUploadUrlTool = tool({
  name: 'create_upload_url',
  description:
    'A URL that takes exactly one file of exactly the stated size and type, without a key: PUT the bytes to ' +
    'uploadUrl (e.g. `curl -T file <uploadUrl>`), or use tusUrl (tus 1.0) for a resumable upload, before ' +
    'expiresAt. It is a one-file file request (requestId) named after the file unless label says otherwise, ' +
    'closed once the file has arrived; the file lands in your account.',
  scope: REQUESTS_SCOPE,
  operations: ['createFileRequest'],
  input: {
    params: z.object({
      size: z
        .number()
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .openapi({ description: 'The file’s size in bytes: the URL takes a file of exactly this size' }),
      contentType: z
        .string()
        .regex(MEDIA_TYPE, 'must be a media type like application/pdf')
        .openapi({ description: 'The file’s media type: the URL takes no other', example: 'application/pdf' }),
      filename: FilenameParamSchema.shape.filename
        .optional()
        .openapi({ description: 'The file’s name, put at the end of uploadUrl; default: upload' }),
    }),
    body: z.strictObject({
      label: RequestCreateSchema.shape.label,
      expiresIn: RequestCreateSchema.shape.expiresIn,
      expiresAt: RequestCreateSchema.shape.expiresAt,
      isPublic: RequestCreateSchema.shape.isPublic,
    }),
  },
  async run(c, { params, body }) {
    // The file request the REST route would make of these limits, validated as it would be.
    const parsed = RequestCreateSchema.safeParse({
      ...body,
      label: body.label ?? expectedFile(params),
      maxFiles: 1,
      maxFileSize: params.size,
      maxBytes: params.size,
      allowedTypes: [params.contentType],
    });
    if (!parsed.success) throw zodValidationError(parsed.error.issues);
    const request = parsed.data;
    // The request keeps the exact size too: maxFileSize alone would take a smaller file.
    const row = await createRequest(storage(c).db, c.get('config'), policy(c), accountIdOf(c), request, {
      exactBytes: params.size,
    });
    const record = requestRecord(row, origins(c));
    return {
      requestId: record.id,
      uploadUrl: `${record.uploadUrl}/${encodeURIComponent(params.filename ?? 'upload')}`,
      tusUrl: record.tusUrl,
      expiresAt: record.expiresAt,
      size: params.size,
      contentType: params.contentType,
    };
  },
});

const getAccessLogTool = tool({
  name: 'get_access_log',
  description:
    'Who fetched what: the access log of a link (linkId), a file (fileId: its default link and every link to ' +
    'it), a collection (collectionId: its links) or a file request (requestId). Newest first; pass nextCursor ' +
    'back as cursor for the next page. Visitors are opaque ids, never addresses.',
  scope: 'files:read',
  operations: ['getShareLinkAccessLog', 'getFileAccessLog', 'getFileRequestAccessLog'],
  input: {
    params: z.object({
      linkId: LinkIdParamSchema.shape.linkId.optional(),
      fileId: fileId.optional(),
      collectionId: collectionId.optional(),
      requestId: RequestIdParamSchema.shape.id.optional(),
    }),
    query: AccessQuerySchema,
  },
  async run(c, { params, query }) {
    const logs = { db: storage(c).db, counters: c.env.LINK_COUNTERS };
    const account = accountId(c);
    switch (oneOf(params, ['linkId', 'fileId', 'collectionId', 'requestId'])) {
      case 'linkId':
        return linkAccessLog(logs, params.linkId ?? '', account, query);
      case 'fileId':
        return fileAccessLog(logs, params.fileId ?? '', account, query);
      case 'collectionId': {
        const links = await collectionLinks(collectionDeps(c), params.collectionId ?? '', account);
        return accessOfLinks(
          logs.counters,
          links.map((link) => link.id),
          query,
        );
      }
      default:
        return requestAccessLog(c, params.requestId ?? '', query);
    }
  },
});

export const SHARING_TOOLS: McpTool[] = [
  createShareLinkTool,
  createCollectionTool,
  addToCollectionTool,
  createFileRequestTool,
  createUploadUrlTool,
  getAccessLogTool,
];

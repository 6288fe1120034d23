// The MCP tools that find and undo what the others make: an account's links (a file's or a
// collection's) and their revocation, its collections and their members, its file requests and
// their closing. Each calls what its REST route calls, with its schemas, scope and deps.
import { z } from '@hono/zod-openapi';
import { collectionDeps } from '../collections/routes';
import { CollectionFileParamSchema, CollectionIdParamSchema } from '../collections/schemas';
import { collectionLinks, listCollections, removeCollectionFile } from '../collections/service';
import { FileIdParamSchema, ListQuerySchema } from '../files/schemas';
import { accountId } from '../http/request-deps';
import { linkDeps } from '../links/routes';
import { LinkIdParamSchema } from '../links/schemas';
import { listLinks, revokeLink } from '../links/service';
import { closeOwnRequest, REQUESTS_SCOPE, requestsPage } from '../requests/routes';
import { RequestIdParamSchema, RequestListQuerySchema } from '../requests/schemas';
import { type McpTool, oneOf, tool } from './tool';

const collectionId = CollectionIdParamSchema.shape.id;

const listLinksTool = tool({
  name: 'list_links',
  description:
    'The share links made to one of your files (fileId) or collections (collectionId), newest first, revoked ' +
    'and expired ones included: each with its id, url, status, label, cap, expiry and counts. Revoke one with ' +
    'revoke_share_link.',
  scope: 'files:read',
  operations: ['listShareLinks', 'listCollectionLinks'],
  input: {
    params: z.object({
      fileId: FileIdParamSchema.shape.id.optional().openapi({ description: 'The file whose links (or collectionId)' }),
      collectionId: collectionId.optional().openapi({ description: 'The collection whose links (or fileId)' }),
    }),
  },
  async run(c, { params }) {
    if (oneOf(params, ['fileId', 'collectionId']) === 'fileId') {
      return { links: await listLinks(linkDeps(c), params.fileId ?? '', accountId(c)) };
    }
    return { links: await collectionLinks(collectionDeps(c), params.collectionId ?? '', accountId(c)) };
  },
});

const revokeShareLinkTool = tool({
  name: 'revoke_share_link',
  description:
    'Revoke a share link (a file’s or a collection’s): every path of its URL is 404 from then on. The record ' +
    'stays, status revoked, with its counts; revoking again is no error. Answers the link.',
  scope: 'links:write',
  operations: ['revokeShareLink'],
  input: { params: z.object({ linkId: LinkIdParamSchema.shape.linkId.openapi({ description: 'The link’s id' }) }) },
  run: (c, { params }) => revokeLink(linkDeps(c), params.linkId, accountId(c)),
});

const listCollectionsTool = tool({
  name: 'list_collections',
  description: 'Your collections, newest first, each with its members’ count and bytes. Pages of `limit` (default 10).',
  scope: 'files:read',
  operations: ['listCollections'],
  input: { query: ListQuerySchema },
  run: (c, { query }) => listCollections(collectionDeps(c), accountId(c), query),
});

const removeFromCollectionTool = tool({
  name: 'remove_from_collection',
  description:
    'Take a file out of a collection (the file itself stays, and so do the collection’s links). Answers the ' +
    'collection as it is now.',
  scope: 'links:write',
  operations: ['removeCollectionFile'],
  input: {
    params: z.object({
      collectionId: collectionId.openapi({ description: 'The collection' }),
      fileId: CollectionFileParamSchema.shape.fileId.openapi({ description: 'The file to take out of it' }),
    }),
  },
  run: (c, { params }) => removeCollectionFile(collectionDeps(c), params.collectionId, accountId(c), params.fileId),
});

const listFileRequestsTool = tool({
  name: 'list_file_requests',
  description:
    'Your file requests (create_file_request and create_upload_url make them), newest first: each with its ' +
    'status (open, closed, expired, full), counts and URLs. Pages of `limit` (default 20). Close one with ' +
    'close_file_request.',
  scope: REQUESTS_SCOPE,
  operations: ['listFileRequests'],
  input: { query: RequestListQuerySchema },
  run: (c, { query }) => requestsPage(c, query),
});

const closeFileRequestTool = tool({
  name: 'close_file_request',
  description:
    'Close a file request: its URLs take nothing more (410) and its unfinished resumable uploads end; the ' +
    'files it received stay. Answers the request.',
  scope: REQUESTS_SCOPE,
  operations: ['closeFileRequest'],
  input: {
    params: z.object({ requestId: RequestIdParamSchema.shape.id.openapi({ description: 'The request’s id' }) }),
  },
  run: (c, { params }) => closeOwnRequest(c, params.requestId),
});

export const UNDO_TOOLS: McpTool[] = [
  listLinksTool,
  revokeShareLinkTool,
  listCollectionsTool,
  removeFromCollectionTool,
  listFileRequestsTool,
  closeFileRequestTool,
];

// tus through a request's tusUrl: the uploads of the shared tus code (src/tus/), charged to the
// owner, each holding a slot of the request (a hold named by the upload's id) from its creation
// to its last byte. A request that closes or expires ends its unfinished uploads: at the next
// request to one of them, and at once when the owner closes it.
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError, validationError } from '../errors';
import { FILE_ID_PATTERN } from '../files/ids';
import { events, origins, storage } from '../http/request-deps';
import { toBase64 } from '../lib/encoding';
import { log } from '../log';
import { type FileRow, findOwnedFile } from '../storage/files-repo';
import type { RequestRow, RequestWithOwner } from '../storage/requests-repo';
import { isoNow } from '../time';
import { appendHeaders, created, creationRequest, patchBody, statusHeaders, untilDone } from '../tus/messages';
import { parseMetadata } from '../tus/protocol';
import {
  type AppendOutcome,
  appendToOwnUpload,
  createUpload,
  type UploadsDeps,
  uploadNotFound,
  uploadStatus,
} from '../tus/service';
import { uploadObject } from '../tus/tus-upload-client';
import { onRequestReceived } from './hooks';
import { checkExactSize, requestConfig, requestLimits } from './limits';
import { receivedExpiry, receivedPublic, requestE2e, requestOwner } from './owner';
import { requestTusUrl } from './records';
import { type CounterStub, counterOf, onCounter, overRequestBytes, releaseSlot } from './request-counter-client';
import { requestGone, requestStatus } from './service';

// A slot outlives its upload's expiry a little: the upload ends (and gives it back) first.
const SLOT_MARGIN_MS = 60 * 60 * 1000;

function tusDeps(c: Context<AppEnv>, request: RequestWithOwner): UploadsDeps {
  const config = c.get('config');
  return {
    ...storage(c),
    uploads: c.env.TUS_UPLOADS,
    config: requestConfig(config, request),
    owner: requestOwner(config, request),
    e2e: requestE2e(config, request),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    requestId: request.id,
  };
}

const slotUntil = (c: Context<AppEnv>) => Date.now() + c.get('config').TUS_EXPIRY_SECONDS * 1000 + SLOT_MARGIN_MS;

const encode = (value: string) => toBase64(new TextEncoder().encode(value));

/**
 * The uploader’s Upload-Metadata with only what is theirs to say (the name, the declared type, and
 * an age file’s `encryption` and `meta`): whether the file is public is the request’s, its expiry
 * the owner’s policy’s.
 */
function uploaderMetadata(
  header: string | undefined,
  options: { isPublic: boolean; expiresIn: number | undefined },
): string {
  const pairs = parseMetadata(header);
  const kept = ['filename', 'filetype', 'encryption', 'meta'].flatMap((name) => {
    const value = pairs.get(name);
    return value === undefined ? [] : [`${name} ${encode(value)}`];
  });
  const { isPublic, expiresIn } = options;
  const expiry = expiresIn === undefined ? [] : [`expiresIn ${encode(String(expiresIn))}`];
  return [...kept, `isPublic ${encode(String(isPublic))}`, ...expiry].join(',');
}

/**
 * POST tusUrl: a new upload, held in the owner's quota and in the request before any byte is kept.
 * Its Upload-Length is the file's size (a deferred length is refused): a request's exact size is
 * checked on it here, once, before the upload exists.
 */
export async function createRequestUpload(c: Context<AppEnv>, request: RequestWithOwner): Promise<Response> {
  // Each upload here holds one of the request's slots for one file: partial uploads would not.
  if (c.req.header('upload-concat') !== undefined) {
    throw validationError('Upload-Concat', 'file requests take no concatenation: send each file as one upload');
  }
  const { length, metadata, first } = creationRequest(c);
  checkExactSize(request, length);
  const deps = tusDeps(c, request);
  const received = {
    isPublic: receivedPublic(c.get('config'), request),
    expiresIn: receivedExpiry(c.get('config'), request),
  };
  const upload = await createUpload(deps, { length, metadata: uploaderMetadata(metadata, received) });
  const stub = counterOf(c.env.FILE_REQUESTS, request.id);
  const held = await onCounter(stub, (counter) =>
    counter.reserve({
      holdId: upload.id,
      files: 1,
      bytes: length,
      aheadBytes: 0,
      limits: requestLimits(request),
      until: slotUntil(c),
    }),
  ).catch(async (error: unknown) => {
    await endUpload(deps, stub, upload.id);
    throw error;
  });
  if (!held.grant) {
    await endUpload(deps, stub, upload.id);
    throw slotRefused(held.full, request);
  }
  const location = `${requestTusUrl(origins(c), request.token)}/${upload.id}`;
  const append = first && (() => appendToRequestUpload(c, deps, request, stub, upload.id, first));
  return created(c, upload, location, append);
}

const slotRefused = (full: 'files' | 'bytes' | null, request: RequestWithOwner) =>
  full === 'files' ? new ApiError('REQUEST_FULL') : overRequestBytes(request.max_bytes);

/**
 * The upload must be one of this request's (held, or a file it received): else 404. One that
 * ended unfinished is 410: the request's reason when it is closed or expired, else UPLOAD_GONE.
 */
async function requireOwnUpload(
  stub: CounterStub,
  request: RequestWithOwner,
  id: string,
): Promise<'held' | 'received'> {
  if (!FILE_ID_PATTERN.test(id)) throw uploadNotFound();
  const known = await onCounter(stub, (counter) => counter.knows(id));
  if (!known) throw uploadNotFound();
  if (known === 'ended') {
    const status = requestStatus(request);
    throw status === 'closed' || status === 'expired' ? requestGone(status) : new ApiError('UPLOAD_GONE');
  }
  return known;
}

/**
 * Any request to an upload of a request that no longer takes files (closed, expired) ends the
 * upload and frees all it held; answered 410. A full request lets its held uploads finish:
 * each holds its own slot.
 */
async function refuseIfEnded(deps: UploadsDeps, stub: CounterStub, request: RequestWithOwner, id: string) {
  const status = requestStatus(request);
  if (status !== 'closed' && status !== 'expired') return;
  await endUpload(deps, stub, id);
  throw requestGone(status);
}

/** Ends an unfinished upload (R2 parts, the owner's reservation) and gives its slot back. */
async function endUpload(
  deps: { uploads: UploadsDeps['uploads']; owner: { accountId: string } },
  stub: CounterStub,
  id: string,
) {
  await uploadObject(deps.uploads, id)
    .terminate({ accountId: deps.owner.accountId })
    .catch((error: unknown) => log('error', 'request upload not terminated', { uploadId: id, error: String(error) }));
  await releaseSlot(stub, id, true);
}

/** PATCH on an upload of the request. */
export async function patchRequestUpload(c: Context<AppEnv>, request: RequestWithOwner, id: string) {
  const deps = tusDeps(c, request);
  const stub = counterOf(c.env.FILE_REQUESTS, request.id);
  const known = await requireOwnUpload(stub, request, id);
  if (known === 'held') await refuseIfEnded(deps, stub, request, id);
  const outcome = await appendToRequestUpload(c, deps, request, stub, id, patchBody(c));
  return c.body(null, 204, appendHeaders(outcome));
}

async function appendToRequestUpload(
  c: Context<AppEnv>,
  deps: UploadsDeps,
  request: RequestWithOwner,
  stub: CounterStub,
  id: string,
  body: Parameters<typeof appendToOwnUpload>[2],
): Promise<AppendOutcome> {
  const until = slotUntil(c);
  if (!(await onCounter(stub, (counter) => counter.renew({ holdId: id, until })))) {
    // The slot lapsed (a long pause): the upload takes one again, if the request has room.
    const status = await uploadStatus(deps, id);
    const limits = requestLimits(request);
    const held = await onCounter(stub, (counter) =>
      counter.reserve({ holdId: id, files: 1, bytes: status.length, aheadBytes: 0, limits, until }),
    );
    if (!held.grant) {
      await endUpload(deps, stub, id);
      throw slotRefused(held.full, request);
    }
  }
  let outcome: AppendOutcome;
  try {
    outcome = await untilDone(c, appendToOwnUpload(deps, id, body));
  } catch (error) {
    // An upload the error ended (a refused type, a failed commit) gives its slot back.
    const status = await uploadStatus(deps, id).catch(() => undefined);
    if (status && status.status !== 'active' && status.status !== 'completed') await releaseSlot(stub, id, true);
    throw error;
  }
  if (outcome.complete) await received(c, deps, request, stub, id);
  return outcome;
}

/** The upload became a file: it counts for the request now. */
async function received(
  c: Context<AppEnv>,
  deps: UploadsDeps,
  request: RequestWithOwner,
  stub: CounterStub,
  id: string,
) {
  const status = await uploadStatus(deps, id);
  const counts = await onCounter(stub, (counter) =>
    counter.commit({ holdId: id, files: [{ id, size: status.length }] }),
  );
  const row = await findOwnedFile(deps.db, id, deps.owner.accountId, isoNow());
  // A finished upload resumed with nothing left to send completes again: its commit adds nothing, no event.
  const files = row && counts.added > 0 ? [row] : [];
  await onRequestReceived({ db: deps.db, events: events(c), request, files, counts });
}

/** HEAD on an upload of the request: where it stands. */
export async function headRequestUpload(c: Context<AppEnv>, request: RequestWithOwner, id: string) {
  const deps = tusDeps(c, request);
  const stub = counterOf(c.env.FILE_REQUESTS, request.id);
  if ((await requireOwnUpload(stub, request, id)) === 'held') await refuseIfEnded(deps, stub, request, id);
  return c.body(null, 204, statusHeaders(await uploadStatus(deps, id)));
}

/** DELETE on an unfinished upload of the request: ends it. A received file is the owner's: 404. */
export async function terminateRequestUpload(c: Context<AppEnv>, request: RequestWithOwner, id: string) {
  const deps = tusDeps(c, request);
  const stub = counterOf(c.env.FILE_REQUESTS, request.id);
  if ((await requireOwnUpload(stub, request, id)) === 'received') throw uploadNotFound();
  await endUpload(deps, stub, id);
  return c.body(null, 204);
}

/**
 * The owner closed the request: its unfinished tus uploads end now (after the answer), freeing
 * their R2 parts, reservations and slots. Multipart uploads in flight find the request closed
 * at their commit only if their slot is gone: they hold one, and finish.
 */
export function endOpenUploads(c: Context<AppEnv>, request: RequestRow): void {
  const stub = counterOf(c.env.FILE_REQUESTS, request.id);
  const deps = { uploads: c.env.TUS_UPLOADS, owner: { accountId: request.account_id } };
  const work = stub
    .openHolds()
    .then((ids) => Promise.all(ids.filter((id) => FILE_ID_PATTERN.test(id)).map((id) => endUpload(deps, stub, id))))
    .catch((error: unknown) => log('error', 'closed request uploads not ended', { error: String(error) }));
  c.executionCtx.waitUntil(work);
}

/** The file an upload of the request became (409 while bytes are missing, 404 once the owner deleted it). */
export async function receivedFile(c: Context<AppEnv>, request: RequestWithOwner, id: string): Promise<FileRow> {
  const stub = counterOf(c.env.FILE_REQUESTS, request.id);
  if ((await requireOwnUpload(stub, request, id)) === 'held') {
    throw new ApiError('UPLOAD_INCOMPLETE');
  }
  const row = await findOwnedFile(storage(c).db, id, request.account_id, isoNow());
  if (!row) throw uploadNotFound();
  return row;
}

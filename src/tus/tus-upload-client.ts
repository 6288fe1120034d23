// The only way to a tus upload's Durable Object: the tus service and the sweep go through here.
import type { TusUpload } from './tus-upload-object';

export type UploadNamespace = DurableObjectNamespace<TusUpload>;

/** An upload is named by its id, which is also the id of the file it becomes. */
export const uploadObject = (namespace: UploadNamespace, id: string) => namespace.getByName(id);

/** R2 aborts unfinished multipart uploads 7 days after they start: an upload must end before. */
export const MAX_UPLOAD_LIFETIME_MS = 6 * 24 * 60 * 60 * 1000;

// What the baseline Workers share: storing a body by R2 multipart, as edgeshare stores a large upload.

const PART_SIZE = 8 * 1024 * 1024;

/** `body` cut into PART_SIZE parts of an R2 multipart upload, one at a time. */
export async function putMultipart(bucket: R2Bucket, key: string, body: ReadableStream<Uint8Array>): Promise<R2Object> {
  const upload = await bucket.createMultipartUpload(key);
  const parts: R2UploadedPart[] = [];
  let part = new Uint8Array(PART_SIZE);
  let filled = 0;
  try {
    for await (const chunk of body) {
      let offset = 0;
      while (offset < chunk.length) {
        const take = Math.min(PART_SIZE - filled, chunk.length - offset);
        part.set(chunk.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === PART_SIZE) {
          parts.push(await upload.uploadPart(parts.length + 1, part));
          part = new Uint8Array(PART_SIZE);
          filled = 0;
        }
      }
    }
    if (filled > 0 || parts.length === 0)
      parts.push(await upload.uploadPart(parts.length + 1, part.subarray(0, filled)));
    return await upload.complete(parts);
  } catch (error) {
    await upload.abort();
    throw error;
  }
}

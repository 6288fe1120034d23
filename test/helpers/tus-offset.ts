// Reading a tus upload's offset after a client aborted a PATCH, for the e2e resume tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The upload's offset (HEAD), as the server reports it now. */
export async function offsetOf(url: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { method: 'HEAD', headers: { ...headers, 'Tus-Resumable': '1.0.0' } });
  if (response.status !== 204) throw new Error(`HEAD ${url}: ${response.status}`);
  return Number(response.headers.get('upload-offset'));
}

/**
 * The offset once it has held still for `quietMs`: the bytes of an aborted PATCH that were already
 * on their way (through wrangler dev's proxy) keep arriving for a while, longer on a loaded machine,
 * and a new client resumes from wherever they end.
 */
export async function settledOffset(url: string, headers: Record<string, string>, quietMs = 500): Promise<number> {
  const deadline = Date.now() + 30_000;
  let offset = await offsetOf(url, headers);
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await offsetOf(url, headers);
    if (now !== offset) [offset, since] = [now, Date.now()];
  }
  return offset;
}

/** The upload the CLI keeps to resume (its `uploads.json` in `dir`, one entry): its URL. */
export function savedUploadUrl(dir: string): string {
  const saved = JSON.parse(readFileSync(join(dir, 'uploads.json'), 'utf8')) as Record<string, { uploadUrl: string }>;
  return Object.values(saved)[0]?.uploadUrl ?? '';
}

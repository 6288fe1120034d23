// An age upload's header as it arrives over several requests (a tus upload's PATCHes, which may
// end anywhere): the AgeHeader of src/e2e/age-checks.ts, started from what the upload's object
// kept. See src/tus/part-writer.ts.
import { AgeHeader } from './age-checks';

export { AgeHeader };

/**
 * The header of an upload that is an age file (metadata `encryption age`, never a partial: a final
 * upload splits its own), from what its object kept; undefined for any other upload.
 */
export function ageHeaderOf(upload: {
  meta: { e2e?: unknown };
  concat?: string;
  e2eHeader: string | null;
}): AgeHeader | undefined {
  if (!upload.meta.e2e || upload.concat) return undefined;
  return new AgeHeader(upload.e2eHeader ?? '');
}

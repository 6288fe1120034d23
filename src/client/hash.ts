// The SHA-256 the typed client checks downloads and hashes files with: the portable one of
// src/lib/sha256.ts everywhere, unless the runtime offers a faster one (the CLI gives node:crypto's,
// ten times faster in Node: the check then costs little beside the download it checks).
import { Sha256 } from '../lib/sha256.ts';

/** A running SHA-256: node:crypto's Hash and our Sha256 both fit. */
export type Hasher = { update(data: Uint8Array): unknown; digest(): Uint8Array };

const portable = (): Hasher => new Sha256();
let make: () => Hasher = portable;

/** A new running SHA-256. */
export const newSha256 = (): Hasher => make();

/** Hashes with `factory` from now on (e.g. `() => createHash('sha256')` in Node); without one, the portable one. */
export function useSha256(factory: () => Hasher = portable): void {
  make = factory;
}

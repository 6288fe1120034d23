// A seekable ZIP writer: the layout of an archive from its members' records, and the bytes of any
// range of it streamed from storage reads. Ours because no library can answer a range of an
// archive it has not produced. docs/zip.md tells how it is made and why.
export { membersTouched, type ZipLayout, type ZipMember, zipEtagInput, zipLayout } from './zip-layout.ts';
export { zipMemberName, zipMemberNames } from './zip-names.ts';
export { type ReadMember, zipArchive, zipRange } from './zip-stream.ts';

import { type ZipLayout, zipLayout } from './zip-layout.ts';
import { zipMemberNames } from './zip-names.ts';

/** One file of an archive, as its record has it: named after its original name. */
export type ZipFile = { originalName: string; size: number; crc32: number | null; modified: Date };

/**
 * The layout of an archive of these files, in order, each named by zipMemberNames: what every
 * archive's bytes, length and ETag follow from (an archive's answer, and a link's byte budget).
 */
export function zipLayoutOfFiles(files: readonly ZipFile[]): ZipLayout {
  const names = zipMemberNames(files.map((file) => file.originalName));
  return zipLayout(
    files.map((file, index) => ({
      name: names[index] as string,
      size: file.size,
      crc32: file.crc32,
      modified: file.modified,
    })),
  );
}

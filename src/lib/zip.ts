// A seekable ZIP writer: the layout of an archive from its members' records, and the bytes of any
// range of it streamed from storage reads. Ours because no library can answer a range of an
// archive it has not produced. docs/zip.md tells how it is made and why.
export { membersTouched, type ZipLayout, type ZipMember, zipEtagInput, zipLayout } from './zip-layout.ts';
export { zipMemberName, zipMemberNames } from './zip-names.ts';
export { type ReadMember, zipArchive, zipRange } from './zip-stream.ts';

// Byte arrays joined: one helper for every place that gathers chunks into one buffer (a form's
// parts, an upload's writes, a ZIP's central directory, the tests' read bodies).

/** The chunks as one array of `size` bytes (their total by default); a lone chunk of that size is itself. */
export function concat(
  chunks: readonly Uint8Array[],
  size = chunks.reduce((sum, chunk) => sum + chunk.length, 0),
): Uint8Array {
  if (chunks.length === 1 && chunks[0]?.length === size) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

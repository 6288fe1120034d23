// The floor of the share page's decrypting download (bench/cases/browser.ts): the same code the page
// runs (src/web/e2e-open.ts), opening the same `header ‖ payload` from a Blob in the page, with no
// network and nothing saved. Bundled by the case with esbuild and put into the page; never shipped.
import { metaOf, openDownload, unlockHeader } from '../../src/web/e2e-open.ts';

type Floor = {
  /** Decrypts the age file `file` (a File from an input) to the end; its plaintext's length and the time. */
  decrypt: (file: Blob, header: string, identity: string, sealed: string) => Promise<{ bytes: number; ms: number }>;
};

const floor: Floor = {
  async decrypt(file, header, identity, sealed) {
    const started = performance.now();
    const fileKey = await unlockHeader(header, { identity });
    const url = URL.createObjectURL(file);
    try {
      const reader = (await openDownload(url, header, fileKey, metaOf(fileKey, sealed))).getReader();
      let bytes = 0;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.length;
      return { bytes, ms: performance.now() - started };
    } finally {
      URL.revokeObjectURL(url);
    }
  },
};
(globalThis as unknown as { benchFloor: Floor }).benchFloor = floor;

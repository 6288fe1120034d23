// The typed client's encryption helpers (src/client/e2e.ts) in Node: an upload's age file made
// slice by slice equals the one made in order (so tus resumes at any offset), opens with the
// owner's identity and with `age`'s format rules, and a download decrypts in flat memory.
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  dispositionName,
  EncryptedBlob,
  fragmentParam,
  linkHeaders,
  newEncryption,
  openAgeStream,
  resumedEncryption,
} from '../../src/client/e2e.ts';
import {
  decrypt,
  encryptFile,
  generateIdentity,
  identityToRecipient,
  readAll,
  sealMeta,
  streamOf,
} from '../../src/lib/age/index.ts';

// A full garbage collection on demand, to measure what is live (not what is not collected yet).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function bytesOf(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed + Math.floor(i / 997)) % 251;
  return bytes;
}

describe('EncryptedBlob', () => {
  it('gives any slice equal to the same bytes of the whole age file, which opens with the identity', async () => {
    const identity = await generateIdentity();
    const plain = bytesOf(3 * 65_536 + 1234, 7);
    const state = await newEncryption({ recipients: [await identityToRecipient(identity)] });
    const encrypted = new EncryptedBlob(new Blob([plain]), state);
    const whole = await readAll(encrypted.stream());
    expect(whole.length).toBe(encrypted.size);
    for (let i = 0; i < 40; i++) {
      const start = Math.floor(Math.random() * whole.length);
      const end = start + Math.floor(Math.random() * (whole.length - start + 1));
      expect(sha256(await encrypted.slice(start, end))).toBe(sha256(whole.subarray(start, end)));
    }
    // The boundaries tus cuts at: header end, nonce end, each chunk's edges, the very end.
    const edges = [0, state.header.length, state.header.length + 16, state.header.length + 16 + 65_552, whole.length];
    for (const edge of edges) {
      expect(sha256(await encrypted.slice(Math.max(0, edge - 5), edge + 5))).toBe(
        sha256(whole.subarray(Math.max(0, edge - 5), edge + 5)),
      );
    }
    const { plaintext } = await decrypt(streamOf(whole), { identity });
    expect(sha256(await readAll(plaintext))).toBe(sha256(plain));
  });

  it('streams a slice (a tus PATCH body) a chunk at a time, equal to the same bytes, across the reads of the file', async () => {
    const identity = await generateIdentity();
    // 40 chunks: the Blob is read 16 chunks at a time, so slices cross those reads too.
    const plain = bytesOf(40 * 65_536 - 77, 11);
    const state = await newEncryption({ recipients: [await identityToRecipient(identity)] });
    const encrypted = new EncryptedBlob(new Blob([plain]), state);
    const whole = await readAll(encrypted.stream());
    const at = (chunk: number) => state.header.length + 16 + chunk * 65_552;
    const ranges = [
      [0, whole.length],
      [3, at(16) + 1],
      [at(15) - 9, at(33) + 4],
      [at(16), at(32)],
      [at(39) + 2, whole.length + 100],
      [whole.length, whole.length + 5],
    ];
    for (let i = 0; i < 10; i++) {
      const start = Math.floor(Math.random() * whole.length);
      ranges.push([start, start + Math.floor(Math.random() * 3_000_000)]);
    }
    for (const [start = 0, end = 0] of ranges) {
      const reader = encrypted.sliceStream(start, end).getReader();
      const pieces: Uint8Array[] = [];
      for (let read = await reader.read(); !read.done; read = await reader.read()) pieces.push(read.value);
      // Never more than one encrypted chunk (or the header and nonce) in a piece.
      expect(Math.max(0, ...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(
        Math.max(65_552, state.header.length + 16),
      );
      const got = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
      let offset = 0;
      for (const piece of pieces) {
        got.set(piece, offset);
        offset += piece.length;
      }
      expect(sha256(got), `${start}-${end}`).toBe(sha256(whole.subarray(start, end)));
    }
  });

  it('reads the plaintext through readAt into one buffer again and again, making the same bytes', async () => {
    const identity = await generateIdentity();
    const plain = bytesOf(40 * 65_536 - 77, 12);
    const state = await newEncryption({ recipients: [await identityToRecipient(identity)] });
    const blob = new Blob([plain]);
    const whole = await readAll(new EncryptedBlob(blob, state).stream());
    const buffers = new Set<ArrayBufferLike>();
    let reads = 0;
    const readAt = async (into: Uint8Array, position: number) => {
      buffers.add(into.buffer);
      reads++;
      // Short reads, as a file may give: the rest is asked for again.
      const count = Math.min(into.length, 100_000, plain.length - position);
      into.set(plain.subarray(position, position + count));
      return count;
    };
    const viaRead = new EncryptedBlob(blob, state, readAt);
    // (Compared by digest: toEqual walks 2.6 MB element by element, 13 s here.)
    expect(sha256(await readAll(viaRead.stream()))).toBe(sha256(whole));
    const at = (chunk: number) => state.header.length + 16 + chunk * 65_552;
    for (const [start, end] of [
      [0, 10],
      [at(15) - 9, at(33) + 4],
      [at(39) + 2, whole.length],
    ] as const) {
      expect(sha256(await viaRead.slice(start, end)), `${start}-${end}`).toBe(sha256(whole.subarray(start, end)));
    }
    // One buffer per stream that reads the file (the whole, two slices; not the header's), read many
    // times: no new array per read.
    expect(buffers.size).toBe(3);
    expect(reads).toBeGreaterThan(30);
    // A file that ends early (it changed after its size was taken) fails the stream, never short bytes.
    const cut = new EncryptedBlob(blob, state, async (into, position) =>
      position < 65_536 ? readAt(into, position) : 0,
    );
    await expect(readAll(cut.stream())).rejects.toThrow(/ended at byte/);
  });

  it('makes the same bytes again from the saved header and nonce, the key recovered with the identity', async () => {
    const identity = await generateIdentity();
    const plain = new Blob([bytesOf(100_000, 8)]);
    const first = await newEncryption({ recipients: [await identityToRecipient(identity)] });
    const again = await resumedEncryption({ header: first.header, nonce: first.nonce }, { identity });
    expect(await readAll(new EncryptedBlob(plain, again).stream())).toEqual(
      await readAll(new EncryptedBlob(plain, first).stream()),
    );
  });

  it('encrypts an empty file to the one empty chunk age makes', async () => {
    const identity = await generateIdentity();
    const state = await newEncryption({ recipients: [await identityToRecipient(identity)] });
    const encrypted = new EncryptedBlob(new Blob([]), state);
    expect(encrypted.size).toBe(state.header.length + 32);
    const whole = await encrypted.slice(0, encrypted.size);
    const { plaintext } = await decrypt(streamOf(whole), { identity });
    expect((await readAll(plaintext)).length).toBe(0);
  });
});

describe('links and downloads', () => {
  it('wraps several files’ keys for one new link key, which opens each', async () => {
    const files = await Promise.all([1, 2].map(() => newEncryption({ passphrase: 'x', logN: 10 })));
    const { headers, secret } = await linkHeaders(files.map((file) => file.fileKey));
    expect(secret).toMatch(/^AGE-SECRET-KEY-1/);
    for (const [i, header] of headers.entries()) {
      const again = await resumedEncryption(
        { header: new TextEncoder().encode(header), nonce: new Uint8Array(16) },
        { identity: secret ?? '' },
      );
      expect(again.fileKey).toEqual(files[i]?.fileKey);
    }
  });

  it('reads keys from fragments and names from Content-Disposition', () => {
    expect(fragmentParam('https://x.test/share/abc#k=AGE-SECRET-KEY-1ZZ', 'k')).toEqual({
      url: 'https://x.test/share/abc',
      value: 'AGE-SECRET-KEY-1ZZ',
    });
    expect(fragmentParam('https://x.test/r/abc#r=age1qq', 'r').value).toBe('age1qq');
    expect(fragmentParam('https://x.test/share/abc', 'k').value).toBeUndefined();
    expect(dispositionName(`attachment; filename="a.age"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf.age`)).toBe(
      'résumé.pdf',
    );
    expect(dispositionName('attachment; filename="../x.age"')).toBe('.._x');
    expect(dispositionName(null)).toBeUndefined();
  });

  it('fails a download whose plaintext does not match its meta, at the end', async () => {
    const identity = await generateIdentity();
    const plain = bytesOf(1000, 9);
    const made = await encryptFile(streamOf(plain), { recipients: [await identityToRecipient(identity)] });
    const file = new Uint8Array([...made.header, ...(await readAll(made.payload))]);
    const good = sealMeta(made.fileKey, { name: 'a', type: 't', size: 1000, sha256: sha256(plain) });
    const opened = await openAgeStream(streamOf(file), { identity }, good);
    expect(opened.meta?.name).toBe('a');
    expect(sha256(await readAll(opened.plaintext))).toBe(sha256(plain));
    const lying = sealMeta(made.fileKey, { name: 'a', type: 't', size: 1000, sha256: '0'.repeat(64) });
    const bad = await openAgeStream(streamOf(file), { identity }, lying);
    await expect(readAll(bad.plaintext)).rejects.toThrow(/meta says/);
  });

  it('decrypts 96 MiB as it streams, in flat memory', async () => {
    const identity = await generateIdentity();
    const size = 96 * 1024 * 1024;
    const piece = bytesOf(1024 * 1024, 10);
    let sent = 0;
    const source = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent >= size) return controller.close();
          controller.enqueue(piece.slice());
          sent += piece.length;
        },
      },
      { highWaterMark: 0 },
    );
    const made = await encryptFile(source, { recipients: [await identityToRecipient(identity)] });
    const file = made.payload.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({ start: (controller) => controller.enqueue(made.header) }),
    );
    // Flat: what is live after a garbage collection (heap and ArrayBuffers) does not grow with the
    // bytes read.
    const live = () => {
      gc();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const opened = await openAgeStream(file, { identity });
    const reader = opened.plaintext.getReader();
    let received = 0;
    const samples: number[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      received += read.value.length;
      if (received % (16 * 1024 * 1024) === 0) samples.push(live());
    }
    expect(received).toBe(size);
    // Samples are every 16 MiB; a collection may lag one, so the lower of each end's two is taken.
    // Holding what was read would grow it by 64 MiB between them.
    const early = Math.min(samples[0] ?? 0, samples[1] ?? 0);
    const late = Math.min(...samples.slice(-2));
    expect(late - early).toBeLessThan(24 * 1024 * 1024);
  }, 120_000);
});

// The scanner's client against a real clamd (test/helpers/clamd-global-setup.ts) through connect():
// what clamd answers for the project's test signatures, wherever they fall among the chunks, a
// stream past clamd's own StreamMaxLength (2 MiB here), an empty file, and a clamd that is stopped.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { MAX_CHUNK_BYTES, scannerAddress, scanStream } from '../../src/scanning/scanner-client';
import { clamdRunning, EICAR, MARKER, streamOf } from './scanning-helpers';

const MIB = 1024 * 1024;
const live = () => {
  const address = scannerAddress(env.SCANNER);
  if (!address) throw new Error('no SCANNER');
  return address;
};

describe.skipIf(!clamdRunning())('scanning a stream with clamd (INSTREAM over connect())', () => {
  it('finds the EICAR test string and names it as clamd does, .UNOFFICIAL included', async () => {
    expect(await scanStream(live(), streamOf([EICAR]))).toEqual({
      status: 'infected',
      signature: 'Edgeshare.Test.EICAR.UNOFFICIAL',
    });
  });

  it('calls bytes without a signature clean, an empty file included', async () => {
    expect(await scanStream(live(), streamOf([new TextEncoder().encode('just some text\n')]))).toEqual({
      status: 'clean',
    });
    expect(await scanStream(live(), streamOf([]))).toEqual({ status: 'clean' });
  });

  it('finds a signature that straddles the boundary between two chunks it sends', async () => {
    // One piece from the source, larger than a chunk: the client cuts it, and the marker lies across the cut.
    const bytes = new Uint8Array(MAX_CHUNK_BYTES + 4096).fill(0x61);
    bytes.set(MARKER, MAX_CHUNK_BYTES - 10);
    expect(await scanStream(live(), streamOf([bytes]))).toEqual({
      status: 'infected',
      signature: 'Edgeshare.Test.Marker.UNOFFICIAL',
    });
  });

  it('reads an R2 body in large pieces into one buffer, every byte sent as it was (signatures at each seam)', async () => {
    // R2 hands a body over in pieces of a few KiB; the client reads it a chunk at a time into one
    // reused buffer. Signatures across each seam of that buffer are found only if no byte is lost or
    // overwritten; a clean copy of the same size stays clean.
    const size = MAX_CHUNK_BYTES + MAX_CHUNK_BYTES / 2;
    const clean = new Uint8Array(size).fill(0x63);
    const key = `scan-test/${crypto.randomUUID()}`;
    await env.FILES.put(`${key}/clean`, clean);
    expect(await scanStream(live(), (await env.FILES.get(`${key}/clean`))?.body ?? streamOf([]))).toEqual({
      status: 'clean',
    });
    for (const at of [MAX_CHUNK_BYTES - 7, MAX_CHUNK_BYTES - MARKER.length, MAX_CHUNK_BYTES, size - MARKER.length]) {
      const bytes = clean.slice();
      bytes.set(MARKER, at);
      await env.FILES.put(`${key}/${at}`, bytes);
      const body = (await env.FILES.get(`${key}/${at}`))?.body ?? streamOf([]);
      expect(await scanStream(live(), body), `marker at ${at}`).toEqual({
        status: 'infected',
        signature: 'Edgeshare.Test.Marker.UNOFFICIAL',
      });
    }
  });

  it('finds a signature split between two pieces of the source', async () => {
    const head = new Uint8Array(70_000).fill(0x62);
    expect(await scanStream(live(), streamOf([head, EICAR.subarray(0, 30), EICAR.subarray(30), head]))).toEqual({
      status: 'infected',
      signature: 'Edgeshare.Test.EICAR.UNOFFICIAL',
    });
  });

  it('is too_large when clamd refuses a stream past its StreamMaxLength, and stops reading the file', async () => {
    // clamd answers and closes while bytes are still coming; now and then workerd drops the
    // connection (and the answer in it) on the next write. That is an error, never clean, and the
    // scan is retried; so here too, a few times, until clamd's answer is read.
    for (let attempt = 1; ; attempt++) {
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 256 * 1024;
          if (pulled > 8 * MIB) controller.close();
          else controller.enqueue(new Uint8Array(256 * 1024));
        },
      });
      const verdict = await scanStream(live(), body);
      expect(pulled).toBeLessThan(8 * MIB);
      if (attempt < 5 && verdict.status === 'error' && /connection lost/i.test(verdict.reason)) continue;
      expect(verdict).toMatchObject({ status: 'too_large', reason: expect.stringMatching(/size limit exceeded/i) });
      break;
    }
  });

  it('is an error, not clean, when clamd is stopped', async () => {
    const stopped = scannerAddress(env.STOPPED_SCANNER);
    if (!stopped) throw new Error('no STOPPED_SCANNER');
    const verdict = await scanStream(stopped, streamOf([EICAR]));
    expect(verdict.status).toBe('error');
  });
});

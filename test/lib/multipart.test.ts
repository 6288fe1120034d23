import { describe, expect, it } from 'vitest';
import { concat } from '../../src/lib/bytes';
import {
  BytePattern,
  MultipartError,
  MultipartReader,
  multipartBoundary,
  type PartInfo,
} from '../../src/lib/multipart';

const BOUNDARY = '----edgeshareBoundary7MA4YWxkTrZu0gW';
const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

type Part = { headers: string[]; body: Uint8Array };
type ReadPart = PartInfo & { body: Uint8Array };

const join = (chunks: Uint8Array[]) => concat(chunks);

/** A multipart body built by hand: every byte of the framing is under the test's control. */
function build(parts: Part[], { preamble = '', epilogue = '', boundary = BOUNDARY, close = true } = {}): Uint8Array {
  const chunks: Uint8Array[] = [bytes(preamble)];
  for (const part of parts) {
    chunks.push(
      bytes(`--${boundary}\r\n${part.headers.map((h) => `${h}\r\n`).join('')}\r\n`),
      part.body,
      bytes('\r\n'),
    );
  }
  if (close) chunks.push(bytes(`--${boundary}--\r\n${epilogue}`));
  return join(chunks);
}

const field = (name: string, value: string): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  body: bytes(value),
});
const file = (filename: string, body: Uint8Array, type = 'application/octet-stream'): Part => ({
  headers: [`Content-Disposition: form-data; name="file"; filename="${filename}"`, `Content-Type: ${type}`],
  body,
});

/** A stream that hands out the body cut at the given offsets. */
function streamAt(body: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const edges = [0, ...cuts.filter((cut) => cut > 0 && cut < body.length).sort((a, b) => a - b), body.length];
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index >= edges.length - 1) {
        controller.close();
        return;
      }
      // A fresh copy per chunk: the reader must not depend on chunks sharing one buffer.
      controller.enqueue(body.slice(edges[index], edges[index + 1]));
      index++;
    },
  });
}

const everyByte = (body: Uint8Array) =>
  streamAt(
    body,
    Array.from({ length: body.length }, (_, i) => i),
  );
const whole = (body: Uint8Array) => streamAt(body, []);

async function readAll(stream: ReadableStream<Uint8Array>, boundary = BOUNDARY): Promise<ReadPart[]> {
  const reader = new MultipartReader(stream, boundary);
  const parts: ReadPart[] = [];
  for (let part = await reader.nextPart(); part; part = await reader.nextPart()) {
    const chunks: Uint8Array[] = [];
    for (let chunk = await reader.read(); chunk; chunk = await reader.read()) chunks.push(chunk.slice());
    parts.push({ ...part, body: join(chunks) });
  }
  return parts;
}

/** The first index where two byte arrays differ, or -1 when they are equal (cheaper than a deep equal). */
function firstDifference(a: Uint8Array | undefined, b: Uint8Array): number {
  if (!a) return 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

const text = (part: ReadPart | undefined) => new TextDecoder().decode(part?.body);

const allBytes = () => Uint8Array.from({ length: 512 }, (_, i) => i % 256);

describe('MultipartReader', () => {
  const parts = [field('isPublic', 'false'), file('photo.bin', allBytes()), field('expiresIn', '3600')];
  const body = build(parts);

  it('reads fields and a binary file exactly', async () => {
    const read = await readAll(whole(body));
    expect(read.map((p) => [p.name, p.filename, p.contentType])).toEqual([
      ['isPublic', undefined, undefined],
      ['file', 'photo.bin', 'application/octet-stream'],
      ['expiresIn', undefined, undefined],
    ]);
    expect(text(read[0])).toBe('false');
    expect(read[1]?.body).toEqual(allBytes());
    expect(text(read[2])).toBe('3600');
  });

  it('reads the same parts when the body arrives one byte at a time', async () => {
    const read = await readAll(everyByte(body));
    expect(read.map((p) => p.name)).toEqual(['isPublic', 'file', 'expiresIn']);
    expect(read[1]?.body).toEqual(allBytes());
    expect(text(read[2])).toBe('3600');
  });

  it('reads the same parts whatever single point the body is cut at', async () => {
    const short = build([
      field('isPublic', 'false'),
      file('photo.bin', allBytes().subarray(0, 40)),
      field('expiresIn', '3600'),
    ]);
    const expected = await readAll(whole(short));
    expect(expected).toHaveLength(3);
    for (let cut = 1; cut < short.length; cut++) {
      const read = await readAll(streamAt(short, [cut]));
      expect(read, `cut at ${cut}`).toEqual(expected);
    }
  });

  it('reads the same parts when every delimiter is cut into three at every pair of offsets', async () => {
    const small = build([field('a', 'x'), file('f.bin', bytes('0123456789'))]);
    const expected = await readAll(whole(small));
    const delimiter = bytes(`\r\n--${BOUNDARY}`);
    // The delimiter that ends the file part.
    const source = new TextDecoder().decode(small);
    const start = source.indexOf(`\r\n--${BOUNDARY}`, source.indexOf('0123456789'));
    expect(start).toBeGreaterThan(0);
    for (let i = start; i <= start + delimiter.length; i++) {
      for (let j = i + 1; j <= start + delimiter.length + 2; j++) {
        expect(await readAll(streamAt(small, [i, j])), `cuts ${i}, ${j}`).toEqual(expected);
      }
    }
  });

  it('ignores a preamble and an epilogue', async () => {
    const framed = build([field('a', 'one'), file('b.txt', bytes('two'))], {
      preamble: 'This is a preamble.\r\nIt mentions --not-the-boundary.\r\n',
      epilogue: `This is an epilogue with --${BOUNDARY} in it.\r\n`,
    });
    for (const stream of [whole(framed), everyByte(framed)]) {
      const read = await readAll(stream);
      expect(read.map((p) => [p.name, text(p)])).toEqual([
        ['a', 'one'],
        ['file', 'two'],
      ]);
    }
  });

  it('accepts transport padding after a boundary', async () => {
    const padded = bytes(
      `--${BOUNDARY}  \t\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue\r\n--${BOUNDARY}--`,
    );
    const read = await readAll(whole(padded));
    expect(text(read[0])).toBe('value');
  });

  it('reads a part whose only header is Content-Disposition', async () => {
    const read = await readAll(
      whole(build([{ headers: ['content-disposition: form-data; name=plain'], body: bytes('v') }])),
    );
    expect(read).toHaveLength(1);
    expect(read[0]).toMatchObject({ name: 'plain', filename: undefined, contentType: undefined });
    expect(text(read[0])).toBe('v');
  });

  it('reads an empty file part', async () => {
    const read = await readAll(everyByte(build([file('empty.txt', new Uint8Array()), field('after', 'x')])));
    expect(read.map((p) => [p.name, p.body.length])).toEqual([
      ['file', 0],
      ['after', 1],
    ]);
  });

  it('unquotes a filename with escaped quotes, backslashes and semicolons', async () => {
    const read = await readAll(
      whole(
        build([
          {
            headers: ['Content-Disposition: form-data; filename="a \\"quoted\\"; name=evil.txt"; name="file"'],
            body: bytes('x'),
          },
        ]),
      ),
    );
    expect(read[0]?.name).toBe('file');
    expect(read[0]?.filename).toBe('a "quoted"; name=evil.txt');
  });

  it("prefers filename*=UTF-8'' over filename and decodes it", async () => {
    const read = await readAll(
      whole(
        build([
          {
            headers: [
              `Content-Disposition: form-data; name="file"; filename="caf_.txt"; filename*=UTF-8''caf%C3%A9%20%E6%97%A5.txt`,
            ],
            body: bytes('x'),
          },
        ]),
      ),
    );
    expect(read[0]?.filename).toBe('café 日.txt');
  });

  it('falls back to filename when filename* cannot be decoded', async () => {
    const read = await readAll(
      whole(
        build([
          {
            headers: [`Content-Disposition: form-data; name="file"; filename="plain.txt"; filename*=UTF-8''%E0%A4%A`],
            body: bytes('x'),
          },
        ]),
      ),
    );
    expect(read[0]?.filename).toBe('plain.txt');
  });

  it('passes through file bytes that look almost like the boundary', async () => {
    const tricky = join([
      bytes(`\r\n--${BOUNDARY.slice(0, -1)}X`),
      bytes(`\r\n--${BOUNDARY.slice(0, 10)}`),
      bytes(`\r\n-`),
      bytes(`\n--${BOUNDARY}`), // a boundary without its CR is not a delimiter
      bytes(`\r--${BOUNDARY}`),
      bytes(`--${BOUNDARY}`),
      bytes('\r\n\r\n\r\n'),
      bytes(`\r\n--${BOUNDARY.slice(0, -1)}`), // ends the part right before the real delimiter
    ]);
    const framed = build([file('tricky.bin', tricky), field('after', 'ok')]);
    const runs = [whole(framed), everyByte(framed), streamAt(framed, [7, 100, 101, 150, 151, 152, 200])];
    for (const stream of runs) {
      const read = await readAll(stream);
      expect(read.map((p) => p.name)).toEqual(['file', 'after']);
      expect(read[0]?.body).toEqual(tricky);
      expect(text(read[1])).toBe('ok');
    }
    for (let cut = 1; cut < framed.length; cut++) {
      const read = await readAll(streamAt(framed, [cut]));
      expect(firstDifference(read[0]?.body, tricky), `cut at ${cut}`).toBe(-1);
    }
  });

  it('carries a large part through in pieces without changing a byte', async () => {
    const large = new Uint8Array(256 * 1024);
    for (let i = 0; i < large.length; i++) large[i] = (i * 7919) % 251;
    const framed = build([file('large.bin', large)]);
    // Chunks of mixed sizes: tiny, odd, around the delimiter's length, and large.
    const sizes = [1, 3, BOUNDARY.length + 3, 4093, 65_536, 17, 100_003];
    const cuts: number[] = [];
    for (let at = 0, i = 0; at < framed.length; at += sizes[i++ % sizes.length] ?? 1) cuts.push(at);
    const read = await readAll(streamAt(framed, cuts));
    expect(read[0]?.body.length).toBe(large.length);
    expect(firstDifference(read[0]?.body, large)).toBe(-1);
  });

  it('skips an unread part when asked for the next one', async () => {
    const reader = new MultipartReader(everyByte(body), BOUNDARY);
    expect((await reader.nextPart())?.name).toBe('isPublic');
    expect((await reader.nextPart())?.name).toBe('file');
    const last = await reader.nextPart();
    expect(last?.name).toBe('expiresIn');
    expect(await reader.readText(100)).toBe('3600');
    expect(await reader.nextPart()).toBeNull();
    expect(await reader.nextPart()).toBeNull();
  });

  it('refuses a text field longer than asked for', async () => {
    const reader = new MultipartReader(whole(build([field('big', 'x'.repeat(2000))])), BOUNDARY);
    await reader.nextPart();
    await expect(reader.readText(1024)).rejects.toBeInstanceOf(MultipartError);
  });

  it('throws MultipartError when the body ends inside a part', async () => {
    const full = build([file('cut.bin', allBytes())]);
    const truncated = full.subarray(0, full.length - `\r\n--${BOUNDARY}--\r\n`.length - 10);
    for (const stream of [whole(truncated), everyByte(truncated)]) {
      await expect(readAll(stream)).rejects.toBeInstanceOf(MultipartError);
    }
  });

  it('throws MultipartError when the body ends without the closing delimiter', async () => {
    const unclosed = build([field('a', 'b')], { close: false });
    await expect(readAll(whole(unclosed))).rejects.toBeInstanceOf(MultipartError);
  });

  it('throws MultipartError when the body ends inside part headers', async () => {
    const cut = bytes(`--${BOUNDARY}\r\nContent-Disposition: form-data; na`);
    await expect(readAll(everyByte(cut))).rejects.toBeInstanceOf(MultipartError);
  });

  it('refuses part headers over 16 KiB however they arrive, and takes them up to the limit', async () => {
    const withHeader = (size: number) => {
      const start = 'X-Padding: ';
      const line = `${start}${'a'.repeat(size)}`;
      return build([{ headers: [line, 'Content-Disposition: form-data; name="a"'], body: bytes('x') }]);
    };
    // headers = CRLF + padding line + CRLF + disposition + CRLF + CRLF
    const overhead = 2 + 'X-Padding: '.length + 2 + 'Content-Disposition: form-data; name="a"'.length + 4;
    const over = withHeader(16 * 1024 - overhead + 1);
    for (const stream of [whole(over), everyByte(over), streamAt(over, [8 * 1024])]) {
      await expect(readAll(stream)).rejects.toThrow('part headers are too long');
    }
    const fits = withHeader(16 * 1024 - overhead);
    for (const stream of [whole(fits), streamAt(fits, [8 * 1024])]) {
      expect((await readAll(stream)).map((part) => part.name)).toEqual(['a']);
    }
  });

  it('throws MultipartError when there is no boundary at all', async () => {
    await expect(readAll(whole(bytes('just some text, not multipart')))).rejects.toBeInstanceOf(MultipartError);
    await expect(readAll(whole(new Uint8Array()))).rejects.toBeInstanceOf(MultipartError);
  });

  it('throws MultipartError for a part without Content-Disposition or without a name', async () => {
    const noDisposition = build([{ headers: ['Content-Type: text/plain'], body: bytes('x') }]);
    await expect(readAll(whole(noDisposition))).rejects.toBeInstanceOf(MultipartError);
    const noName = build([{ headers: ['Content-Disposition: form-data; filename="a.txt"'], body: bytes('x') }]);
    await expect(readAll(whole(noName))).rejects.toBeInstanceOf(MultipartError);
  });

  it('throws MultipartError for garbage right after a boundary', async () => {
    const garbage = bytes(
      `--${BOUNDARY}garbage\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--${BOUNDARY}--`,
    );
    await expect(readAll(whole(garbage))).rejects.toBeInstanceOf(MultipartError);
  });
});

describe('multipartBoundary', () => {
  it.each([
    ['multipart/form-data; boundary=abc123', 'abc123'],
    ['multipart/form-data; boundary="quoted boundary:1"', 'quoted boundary:1'],
    ['Multipart/Form-Data; Boundary=CaseKept', 'CaseKept'],
    ['multipart/form-data;boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW', '----WebKitFormBoundary7MA4YWxkTrZu0gW'],
    ['multipart/form-data; charset=utf-8; boundary=x', 'x'],
    [`multipart/form-data; boundary=${'b'.repeat(70)}`, 'b'.repeat(70)],
  ])('reads the boundary of %s', (header, expected) => {
    expect(multipartBoundary(header)).toBe(expected);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another media type', 'multipart/mixed; boundary=abc'],
    ['a urlencoded form', 'application/x-www-form-urlencoded'],
    ['no boundary', 'multipart/form-data'],
    ['an empty boundary', 'multipart/form-data; boundary='],
    ['a boundary over 70 characters', `multipart/form-data; boundary=${'b'.repeat(71)}`],
    ['a boundary ending in a space', 'multipart/form-data; boundary="abc "'],
    ['a boundary with forbidden characters', 'multipart/form-data; boundary="a\\"b"'],
  ])('answers null for %s', (_label, header) => {
    expect(multipartBoundary(header)).toBeNull();
  });
});

describe('BytePattern', () => {
  /** Every index of pattern in haystack from `from` on, the plain way. */
  function naive(haystack: Uint8Array, pattern: Uint8Array, from: number): number {
    outer: for (let i = Math.max(0, from); i <= haystack.length - pattern.length; i++) {
      for (let j = 0; j < pattern.length; j++) if (haystack[i + j] !== pattern[j]) continue outer;
      return i;
    }
    return -1;
  }

  /** Seeded bytes over a small alphabet, so partial matches are everywhere. */
  function noise(length: number, alphabet: Uint8Array, seed: number): Uint8Array {
    const out = new Uint8Array(length);
    let state = seed;
    for (let i = 0; i < length; i++) {
      state = (state * 1103515245 + 12345) >>> 0;
      out[i] = alphabet[(state >>> 16) % alphabet.length] as number;
    }
    return out;
  }

  it('finds what a byte-by-byte search finds, from every start, in bytes full of near-misses', () => {
    const delimiter = bytes(`\r\n--${BOUNDARY}`);
    const search = new BytePattern(delimiter);
    for (let seed = 1; seed <= 20; seed++) {
      // CR, LF, dashes and the boundary's own letters: a prefix of the delimiter starts at almost every byte.
      const haystack = noise(4096, bytes(`\r\n-${BOUNDARY.slice(-3)}`), seed);
      // The delimiter itself at a seeded place, sometimes cut off by the end.
      haystack.set(
        delimiter.subarray(0, Math.min(delimiter.length, 4096 - ((seed * 197) % 4096))),
        (seed * 197) % 4096,
      );
      for (const from of [0, 1, 63, (seed * 197) % 4096, 4000, 4095, 4096]) {
        expect(search.indexOf(haystack, from)).toBe(naive(haystack, delimiter, from));
      }
    }
  });

  it('finds a pattern at the very start and end, and misses one cut by the end', () => {
    const pattern = bytes('\r\n--xyz');
    const search = new BytePattern(pattern);
    expect(search.indexOf(join([pattern, bytes('tail')]), 0)).toBe(0);
    expect(search.indexOf(join([bytes('head'), pattern]), 0)).toBe(4);
    expect(search.indexOf(join([bytes('head'), pattern.subarray(0, pattern.length - 1)]), 0)).toBe(-1);
    expect(search.indexOf(pattern, 1)).toBe(-1);
    expect(search.indexOf(new Uint8Array(0), 0)).toBe(-1);
  });

  it('works for patterns longer than its 255-byte steps', () => {
    const pattern = noise(600, bytes('abc'), 7);
    const haystack = join([noise(5000, bytes('abc'), 9), pattern, noise(100, bytes('abc'), 11)]);
    const search = new BytePattern(pattern);
    expect(search.indexOf(haystack, 0)).toBe(naive(haystack, pattern, 0));
    expect(search.indexOf(haystack, 0)).toBeLessThanOrEqual(5000);
  });
});

describe('MultipartReader on a file of carriage returns', () => {
  it('passes a part made of CR LF and dashes through whole (every byte a near-miss of the delimiter)', async () => {
    const body = bytes('\r\n--\r\n-\r\r\n--'.repeat(2000));
    const source = build([{ headers: ['Content-Disposition: form-data; name="file"; filename="crlf.bin"'], body }]);
    const cuts = Array.from({ length: Math.floor(source.length / 997) }, (_, i) => (i + 1) * 997);
    const [part, ...rest] = await readAll(streamAt(source, cuts));
    expect(part?.filename).toBe('crlf.bin');
    expect(firstDifference(part?.body, body)).toBe(-1);
    expect(rest).toHaveLength(0);
  });
});

describe('MultipartReader on a request-like byte stream', () => {
  /** A byte stream (as a request body is) that hands out `body` in pieces of `piece` bytes. */
  function byteStream(body: Uint8Array, piece: number): ReadableStream<Uint8Array> {
    let offset = 0;
    return new ReadableStream({
      type: 'bytes',
      pull(controller) {
        if (offset >= body.length) {
          controller.close();
          controller.byobRequest?.respond(0);
          return;
        }
        const end = Math.min(body.length, offset + piece);
        controller.enqueue(body.slice(offset, end));
        offset = end;
      },
    });
  }

  const source = build([
    { headers: ['Content-Disposition: form-data; name="isPublic"'], body: bytes('true') },
    file('small.bin', allBytes()),
  ]);

  it('reads a body of known length whole, its parts whole', async () => {
    const reader = new MultipartReader(byteStream(source, 100), BOUNDARY, source.length);
    expect((await reader.nextPart())?.name).toBe('isPublic');
    expect(await reader.readText(10)).toBe('true');
    expect((await reader.nextPart())?.filename).toBe('small.bin');
    // One read took the whole body (sent in pieces of 100 bytes): the file comes as one piece.
    expect(await reader.read()).toEqual(allBytes());
    expect(await reader.read()).toBeNull();
    expect(await reader.nextPart()).toBeNull();
  });

  it('refuses a body that ends before its Content-Length', async () => {
    const cut = source.subarray(0, source.length - 20);
    const reader = new MultipartReader(byteStream(cut, 100), BOUNDARY, source.length);
    const read = async () => {
      for (let part = await reader.nextPart(); part; part = await reader.nextPart()) while (await reader.read());
    };
    await expect(read()).rejects.toBeInstanceOf(MultipartError);
  });
});

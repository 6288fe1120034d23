// SHA-256 (FIPS 180-4) whose running state can be saved and restored: a tus upload hashes its
// bytes across many requests and across restarts of its Durable Object, which
// crypto.DigestStream (no state export) cannot do. Single-request uploads use DigestStream.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/**
 * A saved hash state: plain JSON (it goes into Durable Object storage). `h` are the eight
 * working words, `length` the bytes hashed so far, `buffer` the base64 of the bytes past the
 * last whole 64-byte block (fewer than 64).
 */
export type Sha256State = { h: number[]; length: number; buffer: string };

export class Sha256 {
  readonly #h = new Int32Array(INITIAL);
  readonly #w = new Int32Array(64);
  readonly #block = new Uint8Array(64);
  #buffered = 0;
  #length = 0;
  #done = false;

  /** Continues from a saved state. */
  static restore(state: Sha256State): Sha256 {
    const hash = new Sha256();
    const buffer = Uint8Array.from(atob(state.buffer), (char) => char.charCodeAt(0));
    if (state.h.length !== 8 || buffer.length >= 64 || !Number.isSafeInteger(state.length)) {
      throw new Error('invalid SHA-256 state');
    }
    if (state.length % 64 !== buffer.length) throw new Error('invalid SHA-256 state');
    hash.#h.set(state.h);
    hash.#block.set(buffer);
    hash.#buffered = buffer.length;
    hash.#length = state.length;
    return hash;
  }

  /** The state to continue from later (the hash itself goes on unchanged). */
  save(): Sha256State {
    let buffer = '';
    for (const byte of this.#block.subarray(0, this.#buffered)) buffer += String.fromCharCode(byte);
    return { h: [...this.#h], length: this.#length, buffer: btoa(buffer) };
  }

  /** Bytes hashed so far. */
  get length(): number {
    return this.#length;
  }

  update(data: Uint8Array): this {
    if (this.#done) throw new Error('digest() was already called');
    this.#length += data.length;
    let offset = 0;
    if (this.#buffered > 0) {
      const take = Math.min(64 - this.#buffered, data.length);
      this.#block.set(data.subarray(0, take), this.#buffered);
      this.#buffered += take;
      offset = take;
      if (this.#buffered < 64) return this;
      this.#compress(this.#block, 0);
      this.#buffered = 0;
    }
    const whole = offset + Math.floor((data.length - offset) / 64) * 64;
    for (; offset < whole; offset += 64) this.#compress(data, offset);
    if (offset < data.length) {
      this.#block.set(data.subarray(offset));
      this.#buffered = data.length - offset;
    }
    return this;
  }

  /** The 32-byte digest; the hash cannot be updated afterwards. */
  digest(): Uint8Array {
    if (this.#done) throw new Error('digest() was already called');
    const bits = this.#length * 8;
    const pad = new Uint8Array((this.#buffered < 56 ? 56 : 120) - this.#buffered + 8);
    pad[0] = 0x80;
    const view = new DataView(pad.buffer);
    view.setUint32(pad.length - 8, Math.floor(bits / 2 ** 32));
    view.setUint32(pad.length - 4, bits >>> 0);
    const length = this.#length;
    this.update(pad);
    this.#length = length;
    this.#done = true;
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) outView.setUint32(i * 4, this.#h[i] ?? 0);
    return out;
  }

  // Hot loop: indexing stays within the typed arrays' bounds, so `as number` only tells TypeScript.
  #compress(data: Uint8Array, at: number): void {
    const w = this.#w;
    const h = this.#h;
    for (let i = 0, j = at; i < 16; i++, j += 4) {
      w[i] =
        ((data[j] as number) << 24) |
        ((data[j + 1] as number) << 16) |
        ((data[j + 2] as number) << 8) |
        (data[j + 3] as number);
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15] as number;
      const y = w[i - 2] as number;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
    }
    let a = h[0] as number;
    let b = h[1] as number;
    let c = h[2] as number;
    let d = h[3] as number;
    let e = h[4] as number;
    let f = h[5] as number;
    let g = h[6] as number;
    let k = h[7] as number;
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (k + s1 + ch + (K[i] as number) + (w[i] as number)) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + s0 + maj) | 0;
    }
    h[0] = (h[0] as number) + a;
    h[1] = (h[1] as number) + b;
    h[2] = (h[2] as number) + c;
    h[3] = (h[3] as number) + d;
    h[4] = (h[4] as number) + e;
    h[5] = (h[5] as number) + f;
    h[6] = (h[6] as number) + g;
    h[7] = (h[7] as number) + k;
  }
}

export const toHex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from({ length: hex.length / 2 }, (_, i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

export function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

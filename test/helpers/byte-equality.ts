// `toEqual` between byte arrays at native speed. Vitest compares two typed arrays element by
// element through its generic `equals`, then once more through `Object.entries` of each (an array
// of [key, value] pairs per byte): about 10 s of CPU for 1 MiB in workerd, where a range or a whole
// download is checked against the bytes sent. This tester gives the same verdict for what it
// takes (two integer typed arrays of one constructor: equal when their lengths and bytes are) and
// leaves everything else to vitest.
import { expect } from 'vitest';

type IntegerArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array;

const INTEGER_ARRAYS: unknown[] = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
];

function isIntegerArray(value: unknown): value is IntegerArray {
  return ArrayBuffer.isView(value) && INTEGER_ARRAYS.some((type) => value instanceof (type as typeof Uint8Array));
}

const bytesOf = (view: IntegerArray) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);

/** Equal integer arrays: same constructor (as vitest asks), same length, same bytes. */
export function integerArraysEqual(a: unknown, b: unknown): boolean | undefined {
  if (!isIntegerArray(a) || !isIntegerArray(b) || a.constructor !== b.constructor) return undefined;
  if (a.length !== b.length) return false;
  const left = bytesOf(a);
  const right = bytesOf(b);
  for (let i = 0; i < left.length; i++) if (left[i] !== right[i]) return false;
  return true;
}

const REGISTERED = Symbol.for('edgeshare.test.integerArraysEqual');

/** Adds the tester once per isolate (the worker project's files share one: setup runs for each). */
export function registerByteEquality(): void {
  const global = globalThis as { [REGISTERED]?: true };
  if (global[REGISTERED]) return;
  expect.addEqualityTesters([integerArraysEqual]);
  global[REGISTERED] = true;
}

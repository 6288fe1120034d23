// Server-Timing for v2: how long auth, the rate limiter, D1 and R2 took within one request.

export class Timings {
  readonly #spans = new Map<string, number>();

  add(name: string, ms: number): void {
    this.#spans.set(name, (this.#spans.get(name) ?? 0) + ms);
  }

  async time<T>(name: string, work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.add(name, performance.now() - start);
    }
  }

  header(totalMs: number): string {
    const parts = [...this.#spans].map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`);
    parts.push(`total;dur=${totalMs.toFixed(1)}`);
    return parts.join(', ');
  }
}

/** Times work under name when the request keeps timings (v2); otherwise just runs it. */
export function measure<T>(timings: Timings | undefined, name: string, work: () => Promise<T>): Promise<T> {
  return timings ? timings.time(name, work) : work();
}

const isThenable = (value: unknown): value is Promise<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/**
 * Wraps a binding so every call that returns a promise is timed under `name`; objects those
 * calls hand back (prepared statements, multipart uploads) are wrapped too.
 */
export function timed<T extends object>(target: T, name: string, timings: Timings): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const start = performance.now();
        const result: unknown = value.apply(object, args);
        if (isThenable(result)) {
          return result.then(
            (resolved) => {
              timings.add(name, performance.now() - start);
              return wrapResult(resolved, name, timings);
            },
            (error: unknown) => {
              timings.add(name, performance.now() - start);
              throw error;
            },
          );
        }
        return wrapResult(result, name, timings);
      };
    },
  });
}

// Statements and multipart uploads are wrapped; results (rows, R2 objects with bodies) are not.
function wrapResult(value: unknown, name: string, timings: Timings): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const ctorName = value.constructor?.name ?? '';
  if (ctorName.includes('PreparedStatement') || ctorName.includes('MultipartUpload')) {
    return timed(value, name, timings);
  }
  return value;
}

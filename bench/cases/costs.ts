// Per-operation costs for the load model (bench/load-model.ts): one D1 read by primary key, one
// D1 write by primary key, one Durable Object call, each timed inside a bare Worker over N
// sequential operations; and SHA-256 per MiB in JavaScript (what a tus upload must use, its state
// kept between requests) and native (what one request uses). No target uses them.
import type { BenchCase, Variant } from '../lib/case.ts';
import { send } from '../lib/transfer.ts';
import { seedBaselineFile } from './seed.ts';

/** MiB hashed per repetition of the SHA-256 variants: long enough for a 1 ms clock. */
const HASHED_MIB = 64;

export function costsCase(id: string, operations: number, reps: number): BenchCase {
  return {
    id,
    title: 'Per-operation costs in the local runtime (load-model inputs)',
    description:
      `${operations} sequential operations inside the bare DO + D1 Worker, timed with Date.now() around them; ` +
      `the SHA-256 rows hash ${HASHED_MIB} MiB, 1 MiB a call, and give the time per MiB.`,
    reps,
    metrics: [{ name: 'msPerOp', label: 'time per operation', unit: 'ms', better: 'lower', digits: 3 }],
    async prepare(ctx) {
      const { doD1 } = ctx.workers;
      const fileId = await seedBaselineFile(doD1);
      const n = operations;
      const variant = (op: string, label: string, count = n): Variant => ({
        id: op,
        label,
        role: 'baseline',
        worker: 'doD1',
        async run() {
          const reply = await send(new URL(`/costs/${op}?n=${count}&id=${fileId}`, doD1.url), { method: 'GET' });
          if (reply.status !== 200) throw new Error(`${op}: ${reply.status}`);
          const { ms } = JSON.parse(reply.body) as { ms: number };
          return { metrics: { msPerOp: ms / count, requests: count } };
        },
      });
      return [
        variant('d1-read', 'D1 read by primary key'),
        variant('d1-write', 'D1 write (UPDATE) by primary key'),
        variant('do-call', 'Durable Object RPC with one storage read and write'),
        // Per MiB: what a tus upload's resumable hash costs against the native one.
        variant('sha256-js', 'SHA-256 of 1 MiB in JavaScript (resumable, src/lib/sha256.ts)', HASHED_MIB),
        variant('sha256-native', 'SHA-256 of 1 MiB by crypto.DigestStream (native)', HASHED_MIB),
      ];
    },
  };
}

// Per-operation costs for the load model (bench/load-model.ts): one D1 read by primary key, one
// D1 write by primary key, one Durable Object call, each timed inside a bare Worker over N
// sequential operations. Not a comparison: no target uses them.
import type { BenchCase, Variant } from '../lib/case.ts';
import { send } from '../lib/transfer.ts';
import { seedBaselineFile } from './seed.ts';

export function costsCase(id: string, operations: number, reps: number): BenchCase {
  return {
    id,
    title: 'Per-operation costs in the local runtime (load-model inputs)',
    description: `${operations} sequential operations inside the bare DO + D1 Worker, timed with Date.now() around them.`,
    reps,
    metrics: [{ name: 'msPerOp', label: 'time per operation', unit: 'ms', better: 'lower', digits: 3 }],
    async prepare(ctx) {
      const { doD1 } = ctx.workers;
      const fileId = await seedBaselineFile(doD1);
      const n = operations;
      const variant = (op: string, label: string): Variant => ({
        id: op,
        label,
        role: 'baseline',
        worker: 'doD1',
        async run() {
          const reply = await send(new URL(`/costs/${op}?n=${n}&id=${fileId}`, doD1.url), { method: 'GET' });
          if (reply.status !== 200) throw new Error(`${op}: ${reply.status}`);
          const { ms } = JSON.parse(reply.body) as { ms: number };
          return { metrics: { msPerOp: ms / n, requests: n } };
        },
      });
      return [
        variant('d1-read', 'D1 read by primary key'),
        variant('d1-write', 'D1 write (UPDATE) by primary key'),
        variant('do-call', 'Durable Object RPC with one storage read and write'),
      ];
    },
  };
}

// Listing deep pages: GET /api/v2/files?page=N&limit=10 for a key with many files against page 1
// of a key with few. Rows are seeded straight into D1; the requests go through the API.
import type { BenchCase, Variant } from '../lib/case.ts';
import { sequential } from '../lib/load.ts';
import { bearer } from '../lib/service.ts';
import { send } from '../lib/transfer.ts';
import { databaseBytes, seedFiles } from './seed.ts';

export function listCase(
  id: string,
  largeCount: number,
  smallCount: number,
  pages: number[],
  seconds: number,
  reps: number,
): BenchCase {
  return {
    id,
    title: `List: pages of a key with ${largeCount.toLocaleString('en')} files vs page 1 of one with ${smallCount}`,
    description:
      `\`GET /api/v2/files?page=N&limit=10\`, one request after another on one keep-alive connection for ${seconds} s ` +
      'per repetition; latency measured per request in the client. Rows seeded straight into D1 before the rounds.',
    reps,
    metrics: [
      { name: 'p50', label: 'p50 latency', unit: 'ms', better: 'lower', digits: 2 },
      { name: 'p99', label: 'p99 latency', unit: 'ms', better: 'lower', digits: 2 },
      { name: 'rps', label: 'requests/s (1 connection)', unit: 'req/s', better: 'higher', digits: 0 },
      { name: 'cpuMsPerRequest', label: 'workerd CPU per request', unit: 'ms', better: 'lower', digits: 2 },
    ],
    async prepare(ctx) {
      const { service } = ctx.workers;
      const large = await ctx.createApiKey('bench-list-large');
      const small = await ctx.createApiKey('bench-list-small');
      const before = await databaseBytes(service);
      const afterLarge = await seedFiles(service, large.id, largeCount, 'lstbig');
      await seedFiles(service, small.id, smallCount, 'lstsml');
      ctx.facts.d1BytesPerFileRow = Math.round((afterLarge - before) / largeCount);
      ctx.facts['list.largeKeyFiles'] = largeCount;
      ctx.facts['list.smallKeyFiles'] = smallCount;

      const page = (n: number) => new URL(`/api/v2/files?page=${n}&limit=10`, service.url);
      // The deepest page must hold a full page of the seeded rows.
      const deepest = Math.max(...pages);
      const check = await send(page(deepest), { method: 'GET', headers: bearer(large.key) });
      const data = JSON.parse(check.body).data as { files: unknown[]; pagination: { total: number } };
      if (check.status !== 200 || data.files.length !== 10 || data.pagination.total !== largeCount) {
        throw new Error(`list check: ${check.status}, ${data.files.length} files, total ${data.pagination.total}`);
      }
      const variant = (vid: string, label: string, role: Variant['role'], key: string, n: number): Variant => ({
        id: vid,
        label,
        role,
        worker: 'service',
        versus: role === 'service' ? 'small-p1' : undefined,
        run: async () => ({ metrics: await sequential(page(n), bearer(key), seconds) }),
      });
      return [
        variant('small-p1', `page 1, key with ${smallCount} files`, 'baseline', small.key, 1),
        ...pages.map((n) =>
          variant(
            `large-p${n}`,
            `page ${n}, key with ${largeCount.toLocaleString('en')} files`,
            'service',
            large.key,
            n,
          ),
        ),
      ];
    },
  };
}

// Authenticated reads under concurrent load: GET /api/v2/files/:id against one Durable Object
// call plus one D1 primary-key read.
import type { BenchCase, Variant } from '../lib/case.ts';
import { hammer, sequential } from '../lib/load.ts';
import { describeServerTiming } from '../lib/server-timing.ts';
import { bearer, uploadFile } from '../lib/service.ts';
import { makeFile } from '../lib/transfer.ts';
import { seedBaselineFile } from './seed.ts';

export function readCase(id: string, connections: number, seconds: number, reps: number): BenchCase {
  return {
    id,
    title: `GET /api/v2/files/:id, ${connections} connections`,
    description: [
      `autocannon, ${connections} keep-alive connections for ${seconds} s per repetition (1 s warm-up per variant ` +
        'before the rounds), with the Authorization header.',
      'Every answer must be 2xx.',
      'The bare Worker is deployed like the service, with static assets beside it (`[assets]`, the Worker first for API paths).',
      'Locally Miniflare passes every request of such a Worker through its assets layer first, a hop Cloudflare ' +
        'does not charge to the Worker, so both pay it.',
    ],
    reps,
    metrics: [
      { name: 'rps', label: 'requests/s', unit: 'req/s', better: 'higher', digits: 0 },
      { name: 'p50', label: 'p50 latency', unit: 'ms', better: 'lower', digits: 1 },
      { name: 'p99', label: 'p99 latency', unit: 'ms', better: 'lower', digits: 1 },
      { name: 'cpuMsPerRequest', label: 'workerd CPU per request', unit: 'ms', better: 'lower', digits: 2 },
    ],
    async prepare(ctx) {
      const { service, doD1 } = ctx.workers;
      const { id: fileId } = await uploadFile(service.url, ctx.apiKey, makeFile(ctx.tmpDir, 1024));
      const baselineFile = await seedBaselineFile(doD1);
      type Endpoint = Omit<Variant, 'run'> & { url: URL };
      const endpoints: Endpoint[] = [
        {
          id: 'do-d1',
          label: 'bare Worker (with static assets): one DO call + one D1 read',
          role: 'baseline',
          worker: 'doD1',
          url: new URL(`/files/${baselineFile}`, doD1.url),
        },
        {
          id: 'service',
          label: 'edgeshare GET /api/v2/files/:id',
          role: 'service',
          worker: 'service',
          versus: 'do-d1',
          url: new URL(`/api/v2/files/${fileId}`, service.url),
        },
      ];
      const headers = bearer(ctx.apiKey);
      for (const endpoint of endpoints) await hammer(endpoint.url, headers, connections, 1);
      // autocannon keeps no headers: the service's own breakdown comes from 50 requests in a row.
      const alone = await sequential(new URL(`/api/v2/files/${fileId}`, service.url), headers, 2, 50);
      const spans = describeServerTiming(alone);
      if (spans) ctx.facts[`${id}.serverTiming (one connection, medians)`] = spans;
      return endpoints.map(({ url, ...endpoint }) => ({
        ...endpoint,
        run: async () => ({ metrics: await hammer(url, headers, connections, seconds) }),
      }));
    },
  };
}

// Request-rate measurements: autocannon (from npm) for concurrent load, a timed sequential loop
// for per-request latency with sub-millisecond resolution. Loopback only, bounded in time.
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import type { Metrics } from './case.ts';
import { medianServerTiming, serverTiming } from './server-timing.ts';
import { summarize } from './stats.ts';

function assertLoopback(url: URL): void {
  if (url.hostname !== '127.0.0.1') throw new Error(`not a loopback address: ${url}`);
}

/** `connections` keep-alive connections for `seconds`; throws if any request failed or was not 2xx. */
export async function hammer(
  url: URL,
  headers: Record<string, string>,
  connections: number,
  seconds: number,
): Promise<Metrics> {
  assertLoopback(url);
  const result = await autocannon({ url: url.href, headers, connections, duration: seconds, timeout: 10 });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0) throw new Error(`${url.pathname}: ${failed} of ${result.requests.total} requests failed`);
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
  };
}

/**
 * One request after another on one keep-alive connection, for `seconds` or at most `max`
 * requests; with the medians of the responses' Server-Timing spans where they have one.
 */
export async function sequential(
  url: URL,
  headers: Record<string, string>,
  seconds: number,
  max = 2000,
): Promise<Metrics> {
  assertLoopback(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const timings: Metrics[] = [];
  const deadline = performance.now() + seconds * 1000;
  try {
    while (performance.now() < deadline && times.length < max) {
      const started = performance.now();
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(url, { headers, agent }, (res) => {
          timings.push(serverTiming(res.headers));
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      if (status !== 200) throw new Error(`${url.pathname}${url.search}: ${status}`);
      times.push(performance.now() - started);
    }
  } finally {
    agent.destroy();
  }
  const summary = summarize(times);
  const total = times.reduce((sum, ms) => sum + ms, 0);
  return {
    p50: summary.median,
    p99: percentile(times, 0.99),
    rps: times.length / (total / 1000),
    requests: times.length,
    ...medianServerTiming(timings),
  };
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

// The service's own account of where a request's time went: the v2 Server-Timing header
// (`auth;dur=1.2, ratelimit;dur=0.8, d1;dur=2.0, r2;dur=5.1, total;dur=9.9`). Kept as metrics
// named st_<name>, so the report can show them beside the figures; absent headers add nothing.
import type { IncomingHttpHeaders } from 'node:http';
import type { Metrics } from './case.ts';
import { median } from './stats.ts';

export const SERVER_TIMING_PREFIX = 'st_';

export function serverTiming(headers: IncomingHttpHeaders): Metrics {
  const header = headers['server-timing'];
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const metrics: Metrics = {};
  for (const entry of text.split(',')) {
    const match = /^\s*([A-Za-z0-9_-]+)\s*;(?:.*;)?\s*dur=([0-9.]+)/.exec(entry);
    if (match?.[1] && match[2]) metrics[SERVER_TIMING_PREFIX + match[1]] = Number(match[2]);
  }
  return metrics;
}

/** The median of each Server-Timing span over several responses. */
export function medianServerTiming(samples: Metrics[]): Metrics {
  const names = new Set(samples.flatMap((sample) => Object.keys(sample)));
  return Object.fromEntries([...names].map((name) => [name, median(samples.map((sample) => sample[name] ?? 0))]));
}

/** "auth 1.2 ms · ratelimit 0.8 ms · …" from metrics holding st_ spans (their medians). */
export function describeServerTiming(metrics: Record<string, number>): string | undefined {
  const spans = Object.entries(metrics).filter(([name]) => name.startsWith(SERVER_TIMING_PREFIX));
  if (spans.length === 0) return undefined;
  return spans.map(([name, ms]) => `${name.slice(SERVER_TIMING_PREFIX.length)} ${ms.toFixed(1)} ms`).join(' · ');
}

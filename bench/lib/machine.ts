// Facts about the machine and the tool versions, for the report's header.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../scripts/wrangler.ts';

export type Machine = {
  cpu: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  workerd: string;
  wrangler: string;
  miniflare: string;
  autocannon: string;
  loadAverageAtStart: number[];
};

const packageVersion = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

export function machine(): Machine {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  return {
    cpu: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: `Linux ${release()}`,
    node: process.version,
    workerd: packageVersion('workerd'),
    wrangler: packageVersion('wrangler'),
    miniflare: packageVersion('miniflare'),
    autocannon: packageVersion('autocannon'),
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

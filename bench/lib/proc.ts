// Linux /proc probes for one workerd process: resident memory, its peak, and CPU time.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const CLOCK_TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** The fields after the command name of /proc/PID/stat (the name may contain spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** PIDs of this process's children whose command is `name`. */
export function childProcesses(name: string, parent = process.pid): Set<number> {
  const found = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const pid = Number(entry);
      if (Number(statFields(pid)[1]) !== parent) continue;
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) found.add(pid);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

export const rssKiB = (pid: number) => statusKiB(pid, 'VmRSS');

/**
 * CPU time of the process so far, in milliseconds: the sum of its threads' time on a CPU from
 * schedstat (nanoseconds), or utime + stime from stat (clock ticks, 10 ms) where schedstat is
 * missing. Threads that end during a measurement take their time with them; workerd's live on.
 */
export function cpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    }
    if (Number.isFinite(ns) && ns > 0) return ns / 1e6;
  } catch {
    // no schedstat: fall back to the coarse counters
  }
  const fields = statFields(pid);
  // utime and stime are fields 14 and 15 of stat; fields[] starts at field 3.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

/** Resets the kernel's peak-RSS mark (VmHWM) to the current RSS; false where not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export type ProbeResult = { cpuMs: number; rssBeforeMiB: number; peakMiB: number; memGrowthMiB: number };

/**
 * Watches one process while `work` runs: RSS sampled every intervalMs plus the kernel's own peak
 * mark (reset at the start), and CPU time. Growth is the peak minus the RSS right before.
 */
export async function probe<T>(pid: number, work: () => Promise<T>, intervalMs = 50): Promise<[T, ProbeResult]> {
  const before = rssKiB(pid);
  const kernelPeak = resetPeak(pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssKiB(pid));
  }, intervalMs);
  const cpuBefore = cpuMs(pid);
  try {
    const value = await work();
    const cpu = cpuMs(pid) - cpuBefore;
    peak = Math.max(peak, rssKiB(pid), kernelPeak ? statusKiB(pid, 'VmHWM') : 0);
    const mib = (kib: number) => kib / 1024;
    return [value, { cpuMs: cpu, rssBeforeMiB: mib(before), peakMiB: mib(peak), memGrowthMiB: mib(peak - before) }];
  } finally {
    clearInterval(timer);
  }
}

// The command-line client (scripts/cli.ts) as a user runs it: one Node process per command,
// watched through /proc while it runs (its peak resident memory), timed from spawn to exit.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/wrangler.ts';
import { cpuMs } from './proc.ts';
import { median } from './stats.ts';

const CLI = join(ROOT, 'scripts/cli.ts');

export type CliRun = { ms: number; peakMiB: number; cpuMs: number; stdout: string; stderr: string };

/** VmHWM (the kernel's peak RSS mark of the process so far) in KiB; 0 once the process is gone. */
function peakKiB(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs `npm run cli -- …args` (the pinned Node running scripts/cli.ts) with `env` added, in `cwd`;
 * throws with its stderr unless it exits 0. The peak is the last VmHWM read while it lived
 * (sampled every 20 ms: the mark only grows, so only the last few milliseconds can be missed);
 * its CPU time likewise the last reading (all its threads).
 */
export function runCli(args: string[], env: Record<string, string>, cwd: string): Promise<CliRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid ?? 0;
    let peak = 0;
    let cpu = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, peakKiB(pid));
      try {
        cpu = cpuMs(pid);
      } catch {
        // it has just ended: the last reading stands
      }
    }, 20);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      // Progress lines go to stderr; only the end is worth keeping for an error message.
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    // 'exit' fires when the process ends, before its pipes may have closed: wait for both.
    child.on('close', (code) => {
      clearInterval(timer);
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`cli ${args.join(' ')}: exit ${code}\n${stderr}`));
      else resolve({ ms, peakMiB: peak / 1024, cpuMs: cpu, stdout, stderr });
    });
  });
}

/**
 * The CLI's resting peak: the median peak RSS of `runs` commands that load all of it and move no
 * file (`identity show`, one small request). A transfer's memory growth is its peak minus this.
 */
export async function restingPeakMiB(env: Record<string, string>, cwd: string, runs = 3): Promise<number> {
  const peaks: number[] = [];
  for (let i = 0; i < runs; i++) peaks.push((await runCli(['identity', 'show', '--json'], env, cwd)).peakMiB);
  return median(peaks);
}

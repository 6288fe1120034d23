// A throwaway clamd (Debian's clamav-daemon) for the scanning tests and the bench: unprivileged,
// in a temporary directory, on 127.0.0.1 and a free port, with only the project's own signature
// database (test/fixtures/clamav/edgeshare-test.ndb: the EICAR test string and a marker), so it
// never needs ClamAV's databases or the network (no freshclam). Ready once it answers PING with
// PONG; stopped by its PID.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { ROOT } from './wrangler.ts';

/** The project's signature database: a `.ndb` file of hex signatures, loaded by clamd offline. */
export const SIGNATURES = join(ROOT, 'test/fixtures/clamav/edgeshare-test.ndb');

const CANDIDATES = [process.env.CLAMD_PATH, '/usr/sbin/clamd', '/usr/local/sbin/clamd'];

/** The clamd binary, or undefined when none is installed. */
export const CLAMD_PATH = CANDIDATES.find((path): path is string => Boolean(path && existsSync(path)));

/** clamd's own client (Debian: clamdscan, beside clamav-daemon), or undefined. */
export const CLAMDSCAN_PATH = [process.env.CLAMDSCAN_PATH, '/usr/bin/clamdscan'].find((path): path is string =>
  Boolean(path && existsSync(path)),
);

export type Clamd = {
  /** SCANNER's value for it: clamd://127.0.0.1:<port>. */
  scanner: string;
  port: number;
  pid: number;
  /** Its clamd.conf: what `clamdscan --config-file` reads to find it. */
  configPath: string;
  /** Stops it (SIGTERM, then SIGKILL after 5 s) and deletes its directory. */
  stop: () => Promise<void>;
};

export type ClamdLimits = {
  /** StreamMaxLength: the most bytes one INSTREAM may send (clamd answers `size limit exceeded` past it). */
  streamMaxLength?: string;
  /** MaxFileSize and MaxScanSize: what clamd reads of one file (AlertExceedsMax alerts past them). */
  maxFileSize?: string;
};

/** Sends one clamd command (`zPING\0`) and returns its answer, without the NUL. */
export function clamdCommand(port: number, command: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`clamd ${command}: no answer in ${timeoutMs} ms`)));
    socket.once('connect', () => socket.end(`z${command}\0`));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8').replace(/\0$/, '')));
  });
}

function clamdConf(dir: string, port: number, limits: ClamdLimits): string {
  const size = limits.maxFileSize ?? '100M';
  return [
    'Foreground yes',
    `DatabaseDirectory ${join(dir, 'db')}`,
    `TCPSocket ${port}`,
    'TCPAddr 127.0.0.1',
    `StreamMaxLength ${limits.streamMaxLength ?? '100M'}`,
    `MaxFileSize ${size}`,
    `MaxScanSize ${size}`,
    // A file past a limit is an alert (Heuristics.Limits.Exceeded.*), never "OK".
    'AlertExceedsMax yes',
    // Its own directory for everything it writes; no log file, no local socket, no user switch.
    `TemporaryDirectory ${join(dir, 'tmp')}`,
    `PidFile ${join(dir, 'clamd.pid')}`,
    // A tiny database: checking it for updates is pointless.
    'SelfCheck 0',
    '',
  ].join('\n');
}

/**
 * Starts clamd with the project's signatures (and `limits`), waits until it answers PING (at
 * most `timeoutMs`), and returns how to reach and stop it. Throws when there is no clamd or it
 * does not come up.
 */
export async function startClamd(limits: ClamdLimits = {}, timeoutMs = 30_000): Promise<Clamd> {
  if (!CLAMD_PATH) throw new Error('clamd is not installed (Debian: apt-get install clamav-daemon)');
  const dir = mkdtempSync(join(tmpdir(), 'edgeshare-clamd-'));
  mkdirSync(join(dir, 'db'));
  mkdirSync(join(dir, 'tmp'));
  copyFileSync(SIGNATURES, join(dir, 'db', 'edgeshare-test.ndb'));
  const port = await freePort();
  writeFileSync(join(dir, 'clamd.conf'), clamdConf(dir, port, limits));
  const child = spawn(CLAMD_PATH, ['--config-file', join(dir, 'clamd.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString('utf8')).slice(-2000);
  });
  const stop = () => stopChild(child, dir);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const answer = await clamdCommand(port, 'PING', 500).catch(() => '');
    if (answer === 'PONG') {
      return {
        scanner: `clamd://127.0.0.1:${port}`,
        port,
        pid: child.pid ?? 0,
        configPath: join(dir, 'clamd.conf'),
        stop,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`clamd did not answer PING on 127.0.0.1:${port}: ${errors.trim() || `exit code ${child.exitCode}`}`);
}

async function stopChild(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => child.pid !== undefined && child.exitCode === null && child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}

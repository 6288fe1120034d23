// Ports for the local servers the scripts and tests start (wrangler dev, clamd), on loopback only.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port nothing listens on right now, on 127.0.0.1 (free when asked: bind it soon).
 *
 * Picked at random below the kernel's ephemeral range, not by binding port 0: a port from that
 * range, once closed, can be taken by any outgoing connection (a test's fetch) before the server it
 * was for binds it, and wrangler then exits with "Address already in use".
 */
export async function freePort(): Promise<number> {
  const [low, high] = [10_000, ephemeralStart() - 1];
  for (let attempt = 0; high > low && attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await listens(port)) return port;
  }
  return listens(0) as Promise<number>;
}

/** Binds `port` (0: any) on 127.0.0.1 and closes it again: the port it got, or 0 when taken. */
function listens(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(0) : reject(error),
    );
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Where the kernel's ports for outgoing connections begin (Linux; elsewhere the IANA range's start). */
function ephemeralStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const value = Number(start);
    return Number.isInteger(value) && value > 10_001 ? value : 49_152;
  } catch {
    return 49_152;
  }
}

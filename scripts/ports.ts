// Ports for the local servers the scripts and tests start (wrangler dev, clamd), on loopback only.
import { createServer } from 'node:net';

/** A TCP port nothing listens on right now, on 127.0.0.1 (free when asked: bind it soon). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

// wrangler.toml's [[queues.consumers]] tables, for the tests that hold a retry schedule in src/
// against the queue settings it must agree with.
import toml from '../../wrangler.toml?raw';

export { toml };

/** The [[queues.consumers]] table of `queue` in wrangler.toml, as name → value (flat keys only). */
export function queueConsumer(queue: string): Record<string, string> | undefined {
  return toml
    .split('[[queues.consumers]]')
    .slice(1)
    .map((block: string) => {
      const table: Record<string, string> = {};
      for (const line of (block.split(/\n\[/)[0] ?? '').split('\n')) {
        const match = /^\s*([a-z_]+)\s*=\s*(.+?)\s*$/.exec(line);
        if (match?.[1] && match[2]) table[match[1]] = match[2].replace(/^"|"$/g, '');
      }
      return table;
    })
    .find((table) => table.queue === queue);
}

// The Worker's log lines, caught: for the tests that show an address never reaches a log.
import { vi } from 'vitest';

/** Everything written to the console while `work` runs, as text; the console is restored after. */
export async function consoleDuring(work: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const spies = (['log', 'error', 'warn', 'info', 'debug'] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    }),
  );
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.join('\n');
}

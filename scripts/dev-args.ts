// The arguments npm run dev gives wrangler dev, apart so they can be tested (test/scripts/dev-and-deploy.cli.test.ts).

/** The value of `--name VALUE` or `--name=VALUE` among the arguments, if given. */
export function optionValue(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === `--${name}`) return args[i + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

/** Development reaches receivers and files on this machine (a deployment never: wrangler.toml keeps false). */
const LOOPBACK_TARGETS = 'ALLOW_LOOPBACK_TARGETS';

/** Whether the user's arguments set a var already (`--var NAME:…`, `--var=NAME:…`, `--var A:1 NAME:2`). */
function setsVar(args: readonly string[], name: string): boolean {
  return args.some((arg) => arg.replace(/^--var=/, '').startsWith(`${name}:`));
}

/**
 * wrangler dev's arguments: our defaults (127.0.0.1:8787, loopback targets allowed) only where
 * the user gave none; and the `--persist-to` directory, if given, so the migrations and the first
 * key go where the server looks.
 */
export function devArgs(userArgs: readonly string[]): {
  args: string[];
  host: string;
  port: string;
  persistTo: string | undefined;
} {
  const ip = optionValue(userArgs, 'ip');
  const port = optionValue(userArgs, 'port');
  const loopback = setsVar(userArgs, LOOPBACK_TARGETS) ? [] : ['--var', `${LOOPBACK_TARGETS}:true`];
  const args = [
    'dev',
    ...(ip ? [] : ['--ip', '127.0.0.1']),
    ...(port ? [] : ['--port', '8787']),
    ...loopback,
    ...userArgs,
  ];
  // A server on every interface is reached locally through the loopback address.
  const host =
    !ip || ip === '0.0.0.0' || ip === '*' ? '127.0.0.1' : ip === '::' ? '[::1]' : ip.includes(':') ? `[${ip}]` : ip;
  return { args, host, port: port ?? '8787', persistTo: optionValue(userArgs, 'persist-to') };
}

// npm run dev: local D1 migrated, a first API key printed if there is none, then `wrangler dev`
// with local R2, D1 and Durable Objects, on 127.0.0.1:8787 unless `--ip`/`--port` say otherwise.
// Extra arguments go to wrangler dev (for example: npm run dev -- --port 9000
// --var MAX_FILE_SIZE:1048576). A new key is shown only once the server answers: if wrangler
// fails to start, the key is deleted unseen and the next start makes (and shows) another.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { devArgs } from './dev-args.ts';
import { applyMigrations, exitOnWranglerError, literal, ROOT, sql, wranglerInteractive } from './wrangler.ts';

async function waitUntilUp(base: string, exited: () => boolean): Promise<boolean> {
  for (;;) {
    if (exited()) return false;
    try {
      const response = await fetch(`${base}/health`);
      await response.body?.cancel();
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

{
  const { args, host, port, persistTo } = devArgs(process.argv.slice(2));
  // The state wrangler dev will use (`--persist-to DIR`, else .wrangler/state): migrated, and the first key made there.
  const local = { remote: false, persistTo };
  let count = 0;
  try {
    applyMigrations(local);
    count =
      sql<{ count: number }>(local, "SELECT COUNT(*) AS count FROM api_keys WHERE status = 'active'")[0]?.count ?? 0;
  } catch (error) {
    exitOnWranglerError(error);
  }
  let made: { id: string; key: string } | undefined;
  if (count === 0) {
    const created = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/keys.ts'), 'create', '--name', 'dev', ...(persistTo ? ['--persist-to', persistTo] : [])],
      {
        encoding: 'utf8',
      },
    );
    const id = /Created key (\S+)/.exec(created.stdout)?.[1];
    const key = created.stdout.trim().split('\n').at(-1);
    if (created.status === 0 && id && key) made = { id, key };
  } else {
    console.log('\nMake an API key with:  npm run keys -- create --name NAME   (the key is the last line printed)\n');
  }

  const base = `http://${host}:${port}`;
  let exited = false;
  const run = wranglerInteractive(args).then((code) => {
    exited = true;
    return code;
  });
  if (made) {
    const key = made;
    void waitUntilUp(base, () => exited).then((up) => {
      if (!up) return;
      console.log(`\nNo API key existed locally, so one was made for you (shown once):\n\n  ${key.key}\n`);
      console.log(`Try:  curl -H "Authorization: Bearer ${key.key}" -F file=@README.md ${base}/api/v1/upload\n`);
      made = undefined;
    });
  }
  const code = await run;
  if (made) {
    // Never shown: delete it, so the next start makes one and shows it.
    try {
      sql(local, `DELETE FROM api_keys WHERE id = ${literal(made.id)}`);
    } catch (error) {
      exitOnWranglerError(error);
    }
    console.error('\nwrangler dev did not start; the dev API key it would have shown was not kept.');
  }
  process.exit(code);
}

// Migration tests rebuild their own D1 (storage is per test file) from an earlier schema.
import { applyD1Migrations, env } from 'cloudflare:test';

/** Drops everything setup.ts made, so the chosen migrations build the database alone. */
export async function emptyDatabase(): Promise<void> {
  const { results } = await env.DB.prepare(
    "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND type IN ('table', 'trigger')",
  ).all<{ type: string; name: string }>();
  const drops = results.map(({ type, name }) => `DROP ${type.toUpperCase()} IF EXISTS "${name}"`);
  await env.DB.batch([
    env.DB.prepare('PRAGMA defer_foreign_keys = ON'),
    ...drops.reverse().map((sql) => env.DB.prepare(sql)),
  ]);
}

/** The migrations numbered below `number` ('0008': 0001–0007), in order. */
export const migrationsBefore = (number: string) => env.TEST_MIGRATIONS.filter((migration) => migration.name < number);

/** The migrations numbered above `number` ('0006': 0007 onwards), in order. */
export const migrationsAfter = (number: string) =>
  env.TEST_MIGRATIONS.filter((migration) => migration.name.slice(0, number.length) > number);

/** The one migration whose file name starts with `number`. */
export function migration(number: string) {
  const found = env.TEST_MIGRATIONS.filter((entry) => entry.name.startsWith(`${number}_`));
  if (found.length !== 1) throw new Error(`migration ${number} not found`);
  return found;
}

/** A database as the schema before `number` made it: every earlier migration, nothing else. */
export async function schemaBefore(number: string): Promise<void> {
  await emptyDatabase();
  await applyD1Migrations(env.DB, migrationsBefore(number));
}

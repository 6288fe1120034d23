// npm run db:migrate [-- --remote]: applies migrations/ to the local (default) or deployed D1 database.
import { parseArgs } from 'node:util';
import { applyMigrations, closeLocalDatabases, exitOnWranglerError } from './wrangler.ts';

const { values } = parseArgs({
  options: { remote: { type: 'boolean', default: false }, 'persist-to': { type: 'string' } },
});
try {
  await applyMigrations({ remote: values.remote ?? false, persistTo: values['persist-to'] }, false);
} catch (error) {
  exitOnWranglerError(error);
} finally {
  await closeLocalDatabases();
}

// The outside programs some Node tests judge our output with (python3, unzip, age): a missing one
// skips those tests loudly on a developer's machine, and fails them in CI, so CI never passes
// without the oracle.
import { spawnSync } from 'node:child_process';

/** Whether `command` is installed; `tests` names the tests that need it, for the warning or the failure. */
export function oracleTool(command: string, tests: string): boolean {
  const found = spawnSync(command, ['--help'], { stdio: 'ignore' }).error === undefined;
  if (!found && process.env.CI) throw new Error(`${command} is needed by the ${tests} in CI`);
  if (!found) console.warn(`!! ${command} not found: the ${tests} are skipped`);
  return found;
}

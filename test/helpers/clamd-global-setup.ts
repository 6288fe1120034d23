// The scanning tests' clamd (the `clamd` project, test/**/*.clamd.test.ts): one real clamd on
// 127.0.0.1 with the project's signature database (scripts/clamd.ts), whose address becomes the
// project's SCANNER; and the address of a clamd started and then stopped, where nothing answers
// any more (a scanner that cannot be reached). Where clamd is not installed, the tests are
// skipped with a banner saying so, except in CI (CI=true), where the run fails instead.
import type { TestProject } from 'vitest/node';
import { CLAMD_PATH, startClamd } from '../../scripts/clamd.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The live clamd's SCANNER value and a stopped one's; null without clamd (tests skipped). */
    clamd: { scanner: string; stopped: string } | null;
  }
}

/** A CI run: CI set to anything but empty, `false` or `0` (GitHub Actions and .ci/run set CI=true). */
const isCI = (env: NodeJS.ProcessEnv) => !['', 'false', '0'].includes((env.CI ?? '').trim().toLowerCase());

const INSTALL = 'Install it with `apt-get install -y clamav-daemon` (Debian), or set CLAMD_PATH.';

/** True with a clamd; without one, false after a banner, or in CI an error (which fails the run). */
export function clamdOrSkip(clamd: string | undefined, env: NodeJS.ProcessEnv): boolean {
  if (clamd) return true;
  if (isCI(env)) {
    throw new Error(
      `the ClamAV scanning tests cannot run, since clamd is not installed, and CI must not pass without them. ${INSTALL}`,
    );
  }
  const line = '!'.repeat(78);
  console.warn(
    `\n${line}\n!! SKIPPED: the ClamAV scanning tests (test/**/*.clamd.test.ts), since clamd is not installed.\n` +
      `!! ${INSTALL}\n!! .ci/run installs it where apt-get exists. A CI run (CI=true) fails instead.\n${line}\n`,
  );
  return false;
}

export default async function setup(project: TestProject) {
  if (!clamdOrSkip(CLAMD_PATH, process.env)) {
    project.provide('clamd', null);
    return;
  }
  // A stream past 2 MiB is refused by clamd itself (the tests of clamd's own limit).
  const clamd = await startClamd({ streamMaxLength: '2M' });
  const stopped = await startClamd();
  await stopped.stop();
  project.provide('clamd', { scanner: clamd.scanner, stopped: stopped.scanner });
  return () => clamd.stop();
}

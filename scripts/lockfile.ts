// npm run lockfile [-- --check] [-- --offline] [-- --lockfile PATH]: makes package-lock.json list
// every platform's binary.
//
// Packages such as workerd, esbuild, Biome, rolldown and lightningcss ship their binaries as one
// optional dependency per platform. `npm ci` refuses a lockfile in which any of those optional
// dependencies has no entry, even one for another platform. npm writes them all when the
// registry serves them, but a registry or mirror that lacks a platform's build (the one on our
// build machine serves only Linux builds of recent versions) makes `npm install` leave them out,
// and the lockfile then fails `npm ci` everywhere, CI included.
//
// This script adds the missing entries: the version the parent asks for, and the `os`, `cpu` and
// `libc` that make npm install each one only on its platform. It takes those fields from the
// registry's metadata for that package (any version: they do not change between versions), or,
// when the registry knows nothing of it (or with --offline), infers them from the package name.
// An entry is placed where Node resolution from its parent finds it: beside the parent's other
// platform packages, or nested under the parent's ancestor when another version sits higher up.
// With no integrity recorded, npm checks nothing on download; it is trusted like any registry fetch.
//
// --check changes nothing: it exits 1 naming every optional dependency without a lock entry.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

type LockEntry = {
  version?: string;
  link?: boolean;
  resolved?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
};
type Lock = { lockfileVersion: number; packages: Record<string, LockEntry>; [field: string]: unknown };
type Platform = { os?: string[]; cpu?: string[]; libc?: string[] };
type Edge = { parent: string; name: string; spec: string; problem: string };

/** The platforms every contributor and CI machine may run on, for the summary. */
const TARGETS = [
  { label: 'linux-x64', os: 'linux', cpu: 'x64', libc: 'glibc' },
  { label: 'linux-arm64', os: 'linux', cpu: 'arm64', libc: 'glibc' },
  { label: 'darwin-x64', os: 'darwin', cpu: 'x64' },
  { label: 'darwin-arm64', os: 'darwin', cpu: 'arm64' },
  { label: 'win32-x64', os: 'win32', cpu: 'x64' },
] as const;

// Name parts as binary packages spell them, mapped to the values of Node's process.platform,
// process.arch and npm's libc field.
const OS_WORDS: Record<string, string> = {
  aix: 'aix',
  android: 'android',
  darwin: 'darwin',
  freebsd: 'freebsd',
  linux: 'linux',
  linuxmusl: 'linux',
  macos: 'darwin',
  netbsd: 'netbsd',
  openbsd: 'openbsd',
  openharmony: 'openharmony',
  sunos: 'sunos',
  win32: 'win32',
  windows: 'win32',
};
const CPU_WORDS: Record<string, string> = {
  '64': 'x64',
  aarch64: 'arm64',
  amd64: 'x64',
  arm: 'arm',
  arm64: 'arm64',
  ia32: 'ia32',
  loong64: 'loong64',
  mips64el: 'mips64el',
  ppc64: 'ppc64',
  ppc64le: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
  wasm32: 'wasm32',
  x64: 'x64',
  x86: 'ia32',
  x86_64: 'x64',
};
// `gnueabihf` (32-bit ARM) is left out on purpose: those packages usually declare no libc.
const LIBC_WORDS: Record<string, string> = { gnu: 'glibc', linuxmusl: 'musl', musl: 'musl', musleabihf: 'musl' };

/** os/cpu/libc read from a package name such as `@biomejs/cli-linux-x64-musl`; undefined if it names no platform. */
function platformFromName(name: string): Platform | undefined {
  const words = (name.split('/').pop() ?? name).split('-');
  const os = words.map((word) => OS_WORDS[word]).find(Boolean);
  // A bare `64` (workerd-linux-64) means x64 only after an operating system.
  const cpu = words.map((word) => (word === '64' && !os ? undefined : CPU_WORDS[word])).find(Boolean);
  const libc = os === 'linux' ? words.map((word) => LIBC_WORDS[word]).find(Boolean) : undefined;
  if (!os && cpu !== 'wasm32') return undefined;
  return { ...(os && { os: [os] }), ...(cpu && { cpu: [cpu] }), ...(libc && { libc: [libc] }) };
}

/**
 * Name inference for one of a parent's platform packages. A Linux package without a libc word
 * is the glibc build when its parent also lists a musl build for the same CPU (Biome, sharp).
 */
function inferPlatform(name: string, siblings: string[]): Platform | undefined {
  const platform = platformFromName(name);
  if (platform?.os?.[0] !== 'linux' || platform.libc) return platform;
  const hasMuslTwin = siblings.some((sibling) => {
    const other = platformFromName(sibling);
    return other?.os?.[0] === 'linux' && other.cpu?.[0] === platform.cpu?.[0] && other.libc?.[0] === 'musl';
  });
  return hasMuslTwin ? { ...platform, libc: ['glibc'] } : platform;
}

/** Directories Node searches for `node_modules/<name>` from a package at `location`, nearest first. */
function searchDirs(location: string): string[] {
  const parts = location === '' ? [] : location.split('/');
  const dirs: string[] = [];
  for (let end = parts.length; end >= 0; end--) {
    if (end > 0 && parts[end - 1] === 'node_modules') continue;
    dirs.push(parts.slice(0, end).join('/'));
  }
  return dirs;
}

const at = (dir: string, name: string) => (dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`);

/** Lock location that `name` resolves to from the package at `from`, as Node would find it. */
function resolve(packages: Lock['packages'], from: string, name: string): string | undefined {
  return searchDirs(from)
    .map((dir) => at(dir, name))
    .find((location) => location in packages);
}

/** Semver check for exact, `~` and `^` specs; undefined for anything else (npm resolved those). */
function satisfies(version: string, spec: string): boolean | undefined {
  const parse = (text: string) => /^v?(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(text);
  const v = parse(version);
  const match = /^(=|~|\^)?\s*(.*)$/.exec(spec.trim());
  const s = match?.[2] ? parse(match[2]) : null;
  if (!v || !s || !match) return undefined;
  const [vMajor, vMinor, vPatch] = [Number(v[1]), Number(v[2]), Number(v[3])];
  const [sMajor, sMinor, sPatch] = [Number(s[1]), Number(s[2]), Number(s[3])];
  const operator = match[1] ?? '=';
  if (operator === '=') return vMajor === sMajor && vMinor === sMinor && vPatch === sPatch && v[4] === s[4];
  if (v[4] || s[4]) return undefined;
  const atLeast = vMajor !== sMajor ? vMajor > sMajor : vMinor !== sMinor ? vMinor > sMinor : vPatch >= sPatch;
  if (!atLeast || vMajor !== sMajor) return false;
  if (operator === '~' || sMajor === 0)
    return vMinor === sMinor && (operator === '~' || sMinor !== 0 || vPatch === sPatch);
  return true;
}

const exactVersion = (spec: string) => /^=?v?(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?)$/.exec(spec.trim())?.[1];

/** Every optional dependency that resolves to no lock entry, or to one of another version. */
function unresolvedOptionals(lock: Lock): Edge[] {
  const edges: Edge[] = [];
  for (const [parent, entry] of Object.entries(lock.packages)) {
    if (entry.link) continue; // a link's dependencies are listed on its target
    for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
      const location = resolve(lock.packages, parent, name);
      const found = location === undefined ? undefined : lock.packages[location];
      if (!found) edges.push({ parent, name, spec, problem: 'no entry' });
      else if (found.version && satisfies(found.version, spec) === false)
        edges.push({ parent, name, spec, problem: `${location} is ${found.version}` });
    }
  }
  const depth = (location: string) => location.split('node_modules/').length;
  return edges.sort((a, b) => depth(a.parent) - depth(b.parent) || a.parent.localeCompare(b.parent, 'en'));
}

/** Runs `npm view --json`; undefined when the registry does not know the package or is unreachable. */
function npmView(spec: string, fields: string[]): unknown {
  const args = ['view', '--json', '--fetch-retries=0', '--fetch-timeout=30000', spec, ...fields];
  const npmCli = process.env.npm_execpath;
  const result = npmCli?.endsWith('.js')
    ? spawnSync(process.execPath, [npmCli, ...args], { encoding: 'utf8' })
    : spawnSync('npm', args, { encoding: 'utf8', shell: process.platform === 'win32' });
  if (result.status !== 0 || !result.stdout.trim()) return undefined;
  try {
    return JSON.parse(result.stdout);
  } catch {
    return undefined;
  }
}

const asList = (value: unknown) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') && value.length > 0
    ? (value as string[])
    : undefined;

/** os/cpu/libc as the registry publishes them for any version of the package (they never vary). */
function platformFromRegistry(name: string): Platform | undefined {
  // `name` is asked for too so that npm prints an object even when only one field is set.
  const view = npmView(name, ['name', 'os', 'cpu', 'libc']);
  const fields = (Array.isArray(view) ? view.at(-1) : view) as Record<string, unknown> | undefined;
  if (!fields || typeof fields !== 'object' || 'error' in fields) return undefined;
  const [os, cpu, libc] = [asList(fields.os), asList(fields.cpu), asList(fields.libc)];
  if (!os && !cpu) return undefined;
  return { ...(os && { os }), ...(cpu && { cpu }), ...(libc && { libc }) };
}

/** The newest registry version matching a range spec, for the rare parent that does not pin. */
function versionFromRegistry(name: string, spec: string): string | undefined {
  const view = npmView(`${name}@${spec}`, ['version']);
  const last = Array.isArray(view) ? view.at(-1) : view;
  return typeof last === 'string' ? last : undefined;
}

/**
 * Where to put a new entry for `name` needed by `parent`: in the directory that holds the
 * parent's other platform packages if that works, else the highest directory on the parent's
 * search path that is free, below any other version of `name`, and shadows nobody.
 */
function placement(lock: Lock, parent: string, name: string, siblings: string[]): string | undefined {
  const search = searchDirs(parent);
  const blocker = resolve(lock.packages, parent, name);
  const stop = blocker === undefined ? search.length : search.findIndex((dir) => at(dir, name) === blocker);
  const allowed = search.slice(0, stop).filter((dir) => dir === '' || dir in lock.packages);
  // Another package below `dir` that finds some `name` today must not find the new one instead.
  const shadowsOthers = (dir: string) =>
    Object.entries(lock.packages).some(([location, entry]) => {
      if (location === parent || (dir !== '' && !location.startsWith(`${dir}/`))) return false;
      const wants = [entry.dependencies, entry.optionalDependencies, entry.peerDependencies].some(
        (deps) => typeof deps === 'object' && deps !== null && name in deps,
      );
      if (!wants) return false;
      const before = resolve(lock.packages, location, name);
      const after = searchDirs(location)
        .map((candidate) => at(candidate, name))
        .find((candidate) => candidate in lock.packages || candidate === at(dir, name));
      return before !== undefined && before !== after;
    });
  const usable = (dir: string) => !(at(dir, name) in lock.packages) && !shadowsOthers(dir);
  const siblingDirs = siblings
    .map((sibling) => resolve(lock.packages, parent, sibling))
    .filter((location): location is string => location !== undefined)
    .map((location) => location.slice(0, location.lastIndexOf('node_modules/')).replace(/\/$/, ''));
  const preferred = siblingDirs.find((dir) => allowed.includes(dir) && usable(dir));
  if (preferred !== undefined) return at(preferred, name);
  const highest = [...allowed].reverse().find(usable);
  return highest === undefined ? undefined : at(highest, name);
}

/** A lock entry in the field order npm writes. */
function lockEntry(version: string, platform: Platform, parent: LockEntry): LockEntry {
  return {
    version,
    ...(platform.cpu && { cpu: platform.cpu }),
    ...(parent.dev && { dev: true }),
    ...(platform.libc && { libc: platform.libc }),
    optional: true,
    ...(platform.os && { os: platform.os }),
    ...(parent.peer && { peer: true }),
  };
}

function describe(edge: Edge) {
  return `${edge.name}@${edge.spec} wanted by ${edge.parent || 'the root package'} (${edge.problem})`;
}

/** One line per package that has platform builds: which of TARGETS its lock entries cover. */
function coverage(lock: Lock): string[] {
  const lines: string[] = [];
  for (const [parent, entry] of Object.entries(lock.packages)) {
    const builds = Object.keys(entry.optionalDependencies ?? {})
      .map((name) => resolve(lock.packages, parent, name))
      .map((location) => (location === undefined ? undefined : lock.packages[location]))
      .filter((found): found is LockEntry => Boolean(found?.os || found?.cpu));
    if (builds.length < 2) continue;
    const covered = TARGETS.filter((target) =>
      builds.some(
        (build) =>
          (!build.os || build.os.includes(target.os)) &&
          (!build.cpu || build.cpu.includes(target.cpu)) &&
          (!build.libc || !('libc' in target) || build.libc.includes(target.libc)),
      ),
    );
    const name = parent.split('node_modules/').pop() || parent;
    lines.push(`  ${name}@${entry.version} (${parent}): ${covered.map((target) => target.label).join(' ') || 'none'}`);
  }
  return lines;
}

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    offline: { type: 'boolean', default: false },
    lockfile: { type: 'string', default: fileURLToPath(new URL('../package-lock.json', import.meta.url)) },
  },
});
const lockPath = values.lockfile;
const text = readFileSync(lockPath, 'utf8');
const lock = JSON.parse(text) as Lock;
if (lock.lockfileVersion < 2 || !lock.packages) {
  console.error('package-lock.json has no "packages" section (lockfileVersion 2 or 3 needed): run npm install.');
  process.exit(1);
}

const missing = unresolvedOptionals(lock);
if (values.check) {
  if (missing.length > 0) {
    console.error(`package-lock.json lacks ${missing.length} platform package(s); npm ci would refuse it:`);
    for (const edge of missing) console.error(`  ${describe(edge)}`);
    console.error('Run `npm run lockfile` and commit package-lock.json.');
    process.exit(1);
  }
  console.log('package-lock.json has an entry for every optional platform package:');
  console.log(coverage(lock).join('\n'));
  process.exit(0);
}

const added: string[] = [];
const failed: string[] = [];
const ours = new Set<string>();
const platforms = new Map<string, { platform: Platform | undefined; source: string }>();
for (const edge of missing) {
  const parent = lock.packages[edge.parent] ?? {};
  // An entry added for an earlier parent may serve this one too (two parents, one version).
  const current = resolve(lock.packages, edge.parent, edge.name);
  const found = current === undefined ? undefined : lock.packages[current];
  if (current && found?.version && satisfies(found.version, edge.spec) !== false) {
    if (ours.has(current) && !parent.dev) delete found.dev;
    continue;
  }
  const siblings = Object.keys(parent.optionalDependencies ?? {}).filter((name) => name !== edge.name);
  const version = exactVersion(edge.spec) ?? (values.offline ? undefined : versionFromRegistry(edge.name, edge.spec));
  if (!platforms.has(edge.name)) {
    const fromRegistry = values.offline ? undefined : platformFromRegistry(edge.name);
    platforms.set(
      edge.name,
      fromRegistry
        ? { platform: fromRegistry, source: 'registry' }
        : { platform: inferPlatform(edge.name, siblings), source: 'name' },
    );
  }
  const { platform, source } = platforms.get(edge.name) ?? { platform: undefined, source: '' };
  const location = placement(lock, edge.parent, edge.name, siblings);
  if (!version || !platform || !location) {
    const why = !version ? 'no version for that range' : !platform ? 'no platform in its name' : 'no free place';
    failed.push(`${describe(edge)}: ${why}`);
    continue;
  }
  lock.packages[location] = lockEntry(version, platform, parent);
  ours.add(location);
  const fields = [platform.os, platform.cpu, platform.libc].filter(Boolean).join(' ');
  added.push(`  ${location}@${version}: ${fields} (from the ${source})`);
}

if (added.length > 0) {
  const compare = new Intl.Collator('en').compare;
  lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => compare(a, b)));
  const indent = /^[ \t]+/m.exec(text)?.[0] ?? 2;
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  writeFileSync(lockPath, `${JSON.stringify(lock, null, indent)}\n`.replace(/\n/g, newline));
  console.log(`Added ${added.length} entries to package-lock.json:\n${added.join('\n')}`);
} else if (failed.length === 0) {
  console.log('package-lock.json already lists every optional platform package.');
}
if (failed.length > 0) {
  console.error(`Could not add:\n  ${failed.join('\n  ')}`);
  process.exit(1);
}
console.log(coverage(lock).join('\n'));

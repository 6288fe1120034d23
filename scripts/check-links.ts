// node scripts/check-links.ts: every relative link in README.md, CONTRIBUTING.md and docs/**/*.md
// names a file that exists, and a heading that exists when it names one (#anchor, as GitHub
// makes them). Links to other sites are not fetched. Exits 1 naming each broken link.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './wrangler.ts';

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks, line by line (links in code are examples, not links). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const files = [join(ROOT, 'README.md'), join(ROOT, 'CONTRIBUTING.md'), ...markdownFiles(join(ROOT, 'docs'))];
const broken: string[] = [];
for (const file of files) {
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    // Inline code is not a link either.
    const text = line.replace(/`[^`]*`/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z]+:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const resolved = path === '' ? file : resolve(dirname(file), path);
      const where = `${relative(ROOT, file)}: ${target}`;
      if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
        broken.push(`${where} (no such heading)`);
      }
    }
  }
}
if (broken.length > 0) {
  console.error(`Broken links:\n  ${broken.join('\n  ')}`);
  process.exit(1);
}
console.log(`${files.length} files, every relative link resolves.`);

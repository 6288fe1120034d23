// npm run check's layer check: the Worker's imports run one way (.dependency-cruiser.cjs names
// the layers and the rules; dependency-cruiser checks them, `type` imports included, and finds
// cycles between files), and no two folders of src/ import each other, directly or around a loop.
// Exits 1 with every violation named.
// Run from the project's root (npm run check does); it reads src/ and the rule file there.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';

const require = createRequire(import.meta.url);
const ruleSet = require(join(process.cwd(), '.dependency-cruiser.cjs'));

const result = await cruise(['src'], { ...ruleSet.options, ruleSet, validate: true });
const output = result.output as ICruiseResult;
const problems: string[] = [];

for (const violation of output.summary.violations) {
  const cycle = violation.cycle?.map((step) => step.name).join(' → ');
  problems.push(`${violation.rule.name}: ${violation.from} → ${cycle ?? violation.to}`);
}

/** The folder of src/ a module lives in (src/files/routes.ts → files); undefined for src/*.ts. */
const folderOf = (path: string) => /^src\/([^/]+)\//.exec(path)?.[1];
const edges = new Map<string, Set<string>>();
for (const module of output.modules) {
  const from = folderOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = folderOf(dependency.resolved);
    if (!to || to === from) continue;
    edges.set(from, (edges.get(from) ?? new Set()).add(to));
  }
}
for (const cycle of folderCycles(edges)) problems.push(`folder cycle: ${cycle.join(' → ')} → ${cycle[0]}`);

if (problems.length > 0) {
  console.error(`Layer check failed (.dependency-cruiser.cjs, docs/architecture.md):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`layers ok: ${output.summary.totalCruised} modules, ${edges.size} folders, no cycle`);

/** Strongly connected groups of more than one folder (Tarjan), each as a loop through its members. */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === node) break;
    }
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return groups;
}

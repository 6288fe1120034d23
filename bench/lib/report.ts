// Renders docs/benchmarks.md from one run's results. Everything in it is generated.
import { FINDINGS } from '../findings.ts';
import { MEMORY_FLOOR_MIB, shortfall } from '../targets.ts';
import type { CaseResult, MetricSpec, VariantResult } from './case.ts';
import type { BenchResults, TargetResult } from './results.ts';
import { describeServerTiming } from './server-timing.ts';
import type { Summary } from './stats.ts';
import { renderZipCheck, type ZipCheckResult } from './zip-check.ts';

function num(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const ratio = (value: number) => (Number.isFinite(value) ? `×${num(value, 2)}` : '–');

/** A bullet, or a bullet with bullets under it. Notes are bullets, not paragraphs (issue 30). */
type Bullet = string | readonly [string, readonly Bullet[]];

/** A Markdown list, nested two spaces a level. */
function bullets(items: readonly Bullet[], depth = 0): string {
  const indent = '  '.repeat(depth);
  return items
    .map((item) =>
      typeof item === 'string'
        ? `${indent}- ${item}`
        : [`${indent}- ${item[0]}`, bullets(item[1], depth + 1)].join('\n'),
    )
    .join('\n');
}

/** "12.3 (11.9–12.8)": the median and the range of the runs. */
function spread(summary: Summary | undefined, digits: number): string {
  if (!summary || summary.n === 0) return '–';
  if (summary.n === 1) return num(summary.median, digits);
  return `${num(summary.median, digits)} (${num(summary.min, digits)}–${num(summary.max, digits)})`;
}

function caseTable(result: CaseResult): string {
  const byId = new Map(result.variants.map((variant) => [variant.id, variant]));
  const metrics = result.metrics.filter((spec) => result.variants.some((variant) => variant.summary[spec.name]));
  const header = `| variant | role | ${metrics.map((spec) => `${spec.label} (${spec.unit}${spec.better === 'higher' ? ', higher is better' : ''})`).join(' | ')} |`;
  const rule = `| --- | --- | ${metrics.map(() => '---').join(' | ')} |`;
  const rows = result.variants.map((variant) => {
    const versus = variant.versus ? byId.get(variant.versus) : undefined;
    const cells = metrics.map((spec) => metricCell(variant, versus, spec));
    const role = versus ? `${variant.role}, vs ${versus.id}` : variant.role;
    return `| ${variant.label} | ${role} | ${cells.join(' | ')} |`;
  });
  const timings = result.variants.flatMap((variant) => {
    const medians = Object.fromEntries(
      Object.entries(variant.summary).map(([name, summary]) => [name, summary.median]),
    );
    const spans = describeServerTiming(medians);
    return spans ? [`- ${variant.label}, its \`Server-Timing\` (medians): ${spans}`] : [];
  });
  return [header, rule, ...rows, ...(timings.length ? ['', ...timings] : [])].join('\n');
}

function metricCell(variant: VariantResult, versus: VariantResult | undefined, spec: MetricSpec): string {
  const summary = variant.summary[spec.name];
  const text = spread(summary, spec.digits ?? 1);
  const base = versus?.summary[spec.name];
  if (!summary || !base || !versus) return text;
  // As in the targets: memory growth under the floor is noise, not a denominator.
  const floor = spec.name === 'memGrowthMiB' ? MEMORY_FLOOR_MIB : 0;
  return `${text} ${ratio(Math.max(floor, summary.median) / Math.max(floor, base.median))}`;
}

function targetsTable(targets: TargetResult[]): string {
  const rows = targets.map(
    (target) =>
      `| ${target.text} | ${target.shown ? 'none (shown)' : `${target.op} ${target.goal}`} | ${ratio(target.value)} | ${ratio(target.perRound)} | ${target.shown ? 'shown' : target.met ? 'met' : `**missed**: ${shortfall(target)}`} |`,
  );
  return [
    '| target | goal | measured (ratio of medians) | median of per-round ratios | result |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

const NO_NOTE = ['Not analysed yet: add a note for this target id to `bench/findings.ts`.'];

/** Each missed target's figures, its note's bullets under it. */
function missedNotes(targets: TargetResult[]): string {
  const missed = targets.filter((target) => !target.met);
  if (missed.length === 0) return 'Every target measured in this run was met.';
  return bullets(
    missed.map((target) => {
      const [a, b] = target.medians.map((value) => `${num(value, value < 10 ? 1 : 0)} ${target.unit}`);
      const figures = `**${target.id}** — ${target.compared}: ${a} / ${b} = ${ratio(target.value)} against ${target.op} ${target.goal} (${shortfall(target)}).`;
      return [figures, FINDINGS[target.id] ?? NO_NOTE];
    }),
  );
}

/** Met targets with a note (one met at the line, say): the note stays beside the figure. */
function metNotes(targets: TargetResult[]): string {
  const noted = targets.flatMap((target) => {
    const note = FINDINGS[target.id];
    return target.met && !target.shown && note ? [{ target, note }] : [];
  });
  if (noted.length === 0) return '';
  const list = bullets(
    noted.map(({ target, note }) => [
      `**${target.id}** — ${ratio(target.value)} against ${target.op} ${target.goal}.`,
      note,
    ]),
  );
  return ['', '### Met, with notes', '', list].join('\n');
}

function median(results: BenchResults, caseId: string, variantId: string, metric: string): number {
  const found = results.cases.find((entry) => entry.id === caseId)?.variants.find((entry) => entry.id === variantId);
  return found?.summary[metric]?.median ?? Number.NaN;
}

/** The measured grounds for storing by one put() or by R2 multipart, from this run. */
function storageChoice(results: BenchResults): string {
  const ran = (id: string) => (results.cases.some((entry) => entry.id === id) ? id : undefined);
  const upload = ran('upload-300mib');
  const download = ran('download-300mib');
  if (!upload && !download) return 'Not measured in this run.';
  const lines: Bullet[] = [];
  if (upload) {
    const single = median(results, upload, 'r2-single', 'mibPerS');
    const multi = median(results, upload, 'r2-multipart', 'mibPerS');
    const singleMem = median(results, upload, 'r2-single', 'memGrowthMiB');
    const multiMem = median(results, upload, 'r2-multipart', 'memGrowthMiB');
    lines.push(
      `Writing (${upload}, bare Worker): one streamed put() ${num(single)} MiB/s, R2 multipart ${num(multi)} MiB/s ` +
        `(${ratio(multi / single)}); workerd memory growth ${num(singleMem)} vs ${num(multiMem)} MiB.`,
    );
  }
  if (download) {
    const single = median(results, download, 'r2-single', 'mibPerS');
    const multi = median(results, download, 'r2-multipart', 'mibPerS');
    const singleMem = median(results, download, 'r2-single', 'memGrowthMiB');
    const multiMem = median(results, download, 'r2-multipart', 'memGrowthMiB');
    lines.push([
      `Reading (${download}, bare Worker): an object stored by one put() ${num(single)} MiB/s, one stored by R2 ` +
        `multipart ${num(multi)} MiB/s (${ratio(multi / single)}); workerd memory growth ${num(singleMem)} vs ${num(multiMem)} MiB.`,
      ['This is the local runtime’s cost of multipart objects; Cloudflare documents no such difference for R2 itself.'],
    ]);
  }
  const kinds = results.cases
    .filter((entry) => entry.id.startsWith('upload-'))
    .flatMap((entry) => {
      const multipart = entry.variants.find((variant) => variant.id === 'service')?.summary.multipart?.median;
      if (multipart === undefined) return [];
      return [`${entry.title.replace('Upload ', '')} by ${multipart >= 0.5 ? 'R2 multipart' : 'one put()'}`];
    });
  if (kinds.length) lines.push(`edgeshare stored its uploads of ${kinds.join(', ')}.`);
  if (upload && download) {
    const writeGain =
      median(results, upload, 'r2-single', 'mibPerS') / median(results, upload, 'r2-multipart', 'mibPerS');
    const readGain =
      median(results, download, 'r2-single', 'mibPerS') / median(results, download, 'r2-multipart', 'mibPerS');
    lines.push(
      writeGain >= 1 && readGain >= 1
        ? [
            'On these grounds a file whose length is known up front is better stored by one streamed put():',
            [
              `${ratio(writeGain)} the write throughput and ${ratio(readGain)} the read throughput of multipart here.`,
              'One R2 operation instead of one per part.',
              'Multipart remains the way for bodies of unknown length and for parts of a resumable upload.',
            ],
          ]
        : `Here one put() is not faster on both sides (write ${ratio(writeGain)}, read ${ratio(readGain)} against ` +
            'multipart): choose by R2 operation count and memory.',
    );
  }
  lines.push([
    'edgeshare’s choice on these grounds:',
    [
      'A multipart form upload does not know its file’s length up front: Content-Length covers the whole form, ' +
        'and clients often send fields after the file.',
      'So a file of up to one part (8 MiB) is kept and stored by one put(); a larger one streams into R2 ' +
        'multipart part by part (one part in memory).',
      'Tried and dropped: streaming a small file into a put sized from Content-Length, with the kept bytes as a ' +
        'fallback, measured slower locally (1 MiB: 13–23 against 17–25 MiB/s).',
      'tus uploads know their length: one smaller than a part is stored by one put(), a larger one by ' +
        'multipart, as resuming across requests needs.',
    ],
  ]);
  return bullets(lines);
}

/** How the figures are made: what runs where, how a figure and a ratio are taken, what to trust. */
function method(m: BenchResults['machine']): Bullet[] {
  return [
    [
      '**Where they run**',
      [
        'edgeshare and each baseline Worker (`bench/workers/`) are bundled by `wrangler deploy --dry-run` and get ' +
          'the bindings of their own `wrangler.toml`.',
        'Each runs in its **own Miniflare instance, so its own workerd process** (no `wrangler dev` proxy), with ' +
          'local R2, D1 and Durable Objects on disk, listening on 127.0.0.1.',
        'The service runs with `MAX_FILE_SIZE` = 1 GiB and an API key whose rate limit the runs never reach.',
      ],
    ],
    [
      '**Rounds and ratios**',
      [
        'Every case runs in **interleaved rounds**: each round runs every variant once, baselines first ' +
          '(baseline, service, baseline, service, …).',
        'A figure is the **median (min–max)** of the rounds.',
        '`×r` after it is the ratio of its median to the median of the variant it is compared with (`vs …`) ' +
          '**in the same run**.',
        'The targets table also gives the median of the per-round ratios.',
      ],
    ],
    [
      '**Memory**',
      [
        'workerd’s peak resident memory during the request minus its resident memory just before (VmRSS sampled ' +
          'every 50 ms and the kernel’s peak mark, reset before each request).',
        'Shown for the cases that run every request in a **fresh workerd process** (restarted, then warmed by ' +
          'one small request of the same kind).',
        'In a long-lived process the figure depends on what earlier requests left allocated.',
      ],
    ],
    [
      '**CPU**',
      [
        'workerd’s time on a CPU over the request, all threads.',
        'Its R2, D1 and Durable Object simulators run in the same process, so their work counts too.',
      ],
    ],
    [
      '**Load**',
      [
        `autocannon ${m.autocannon} for concurrent requests.`,
        'Plain Node `http` for uploads (streamed from a file with a known Content-Length) and downloads (read to ' +
          'the end, discarded); loopback only.',
      ],
    ],
    [
      '**What to trust**',
      [
        `These are **local-runtime** figures on a shared ${m.cores}-core machine, client included.`,
        'Trust ratios and medians, not absolute numbers or p99, and never read them as production latency.',
      ],
    ],
  ];
}

/** A case's heading, its description (inline if one sentence or two, else bullets) and its table. */
function caseSection(result: CaseResult): string {
  const head = `\`${result.id}\`, ${result.reps} round${result.reps === 1 ? '' : 's'}, ${num(result.seconds, 0)} s.`;
  // Results written before issue 30 hold one string.
  const about = typeof result.description === 'string' ? [result.description] : result.description;
  const text = about.length === 1 ? `${head} ${about[0]}` : `${head}\n\n${bullets(about)}`;
  return `### ${result.title}\n\n${text}\n\n${caseTable(result)}`;
}

/** The report; `zipCheck` (bench/zip-check.ts, run on its own) adds its section when there is one. */
export function renderReport(results: BenchResults, zipCheck: ZipCheckResult | null = null): string {
  const m = results.machine;
  const minutes = `${Math.floor(results.seconds / 60)} min ${results.seconds % 60} s`;
  const facts = Object.entries(results.facts)
    .map(([name, value]) => `| ${name} | ${typeof value === 'number' ? num(value, 0) : value} |`)
    .join('\n');
  return `# Benchmarks

<!-- Generated by \`npm run bench\` (bench/run.ts). Do not edit by hand: change bench/ and run it again. -->

> **Generated file.** Regenerate with \`npm run bench\` (this run took ${minutes} on the machine below);
> \`npm run bench -- --quick\` is a smoke run, \`npm run bench -- --only upload,list\` runs some cases
> (both write to \`.wrangler/bench/\` and leave this file alone). Raw figures:
> [bench/results/latest.json](../bench/results/latest.json). What they mean at scale: [scaling.md](scaling.md).

Run on ${results.generatedAt.slice(0, 10)} (${results.generatedAt}).${results.quick ? ' **Quick run: small sizes, one round.**' : ''}

## Machine and versions

| CPU | cores | memory | kernel | Node | workerd | wrangler | miniflare | autocannon |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| ${m.cpu} | ${m.cores} | ${m.memoryGiB} GiB | ${m.kernel} | ${m.node} | ${m.workerd} | ${m.wrangler} | ${m.miniflare} | ${m.autocannon} |

Load average (1, 5, 15 min) at the start: ${m.loadAverageAtStart.join(', ')}; at the end: ${results.loadAverageAtEnd.join(', ')}
(anything above 0 is other work on the same ${m.cores} cores: ratios within a run stay comparable, absolute figures less so).
${(results.merged ?? [])
  .map(
    (run) =>
      `\nMerged in from a later run (\`--only\`, then \`--render --merge\`) on ${run.generatedAt}: ${run.cases.map((id) => `\`${id}\``).join(', ')} (its load average at the end: ${run.loadAverageAtEnd.join(', ')}); their targets are that run's.\n`,
  )
  .join('')}
## How the figures are made

${bullets(method(m))}

## Targets

${targetsTable(results.targets)}

### Missed targets: by how much, and why

${missedNotes(results.targets)}
${metNotes(results.targets)}

## Single put or multipart: the measured grounds

${storageChoice(results)}

## Results

${results.cases.map(caseSection).join('\n\n')}

${renderZipCheck(zipCheck)}## Facts learned on the way

| fact | value |
| --- | --- |
${facts}
`;
}

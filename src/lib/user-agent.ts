// What kind of client sent a request, from its User-Agent: the access log keeps this word, never
// the header itself (a full User-Agent narrows a visitor down far more than anyone needs).

export type ClientKind = 'browser' | 'curl' | 'wget' | 'python' | 'node' | 'other';

// Tools first: their names lead the header. Crawlers and link unfurlers claim to be Mozilla too.
const TOOLS: [RegExp, ClientKind][] = [
  [/^curl\//i, 'curl'],
  [/^wget\//i, 'wget'],
  [/^(python-requests|python-urllib|python-httpx|aiohttp|httpx|urllib3|python)\b/i, 'python'],
  [/^(node|node-fetch|undici|axios|got)\b/i, 'node'],
];
const ROBOT = /bot\b|crawler|spider|slurp|facebookexternalhit|preview/i;

/** `browser` for what a person's browser sends, the tool's name for scripts, else `other`. */
export function clientKind(userAgent: string | null | undefined): ClientKind {
  const agent = (userAgent ?? '').trim();
  if (!agent) return 'other';
  for (const [pattern, kind] of TOOLS) if (pattern.test(agent)) return kind;
  if (/^Mozilla\/5\.0 /.test(agent) && !ROBOT.test(agent)) return 'browser';
  return 'other';
}

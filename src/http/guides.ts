// The OpenAPI document's tags: each groups operations by feature and links the feature's guide
// in docs/, served by the Worker at /assets/guides/<name>.md (scripts/assets.mjs copies them).
// One table: an operation whose route names no tag gets the first whose paths match it.

type Document = {
  info: { description?: string };
  tags?: { name: string; description?: string; externalDocs?: { description?: string; url: string } }[];
  paths?: object;
};

type Tag = { name: string; description: string; guide: string; paths?: RegExp };

export const TAGS: readonly Tag[] = [
  {
    name: 'Files',
    description: 'Upload (multipart, bulk), list, read, change, download and delete files; usage and quota.',
    guide: 'files.md',
    paths: /^\/(upload|upload\/bulk|files|files\/bulk|files\/\{id\}|files\/\{id\}\/download|usage)$/,
  },
  {
    name: 'Raw uploads',
    description: 'The file as the raw request body (`curl -T`).',
    guide: 'raw-uploads.md',
    paths: /^\/upload\/\{filename\}$/,
  },
  {
    name: 'Resumable uploads (tus)',
    description: 'Large files in chunks that survive a broken connection: tus 1.0 with its extensions.',
    guide: 'tus.md',
    paths: /^\/uploads(\/|$)/,
  },
  {
    name: 'Share links',
    description: 'More links to one file, each with a label, a password, a download cap and an expiry.',
    guide: 'share-links.md',
    paths: /^\/(files\/\{id\}\/links|links\/\{linkId\}(\/headers(\/\{fileId\})?)?)$/,
  },
  {
    name: 'Collections',
    description: 'Several files shared as one: one link, one ZIP archive (exact length, resumable).',
    guide: 'collections.md',
  },
  {
    name: 'Access log',
    description: 'Who fetched what through each link and file request: outcome, bytes, an anonymous visitor id.',
    guide: 'access-log.md',
    paths: /\/access$/,
  },
  {
    name: 'File requests',
    description: 'Upload links for people without a key, and what they received.',
    guide: 'file-requests.md',
  },
  {
    name: 'File requests (public, no key)',
    description: 'What the people sending files through a file request call: no API key.',
    guide: 'file-requests.md',
  },
  {
    name: 'Keys',
    description: 'The account’s API keys: scopes, expiry, rotation.',
    guide: 'keys.md',
    paths: /^\/keys(\/|$)/,
  },
  {
    name: 'Policy',
    description: 'The bounds the operator sets on what the account may make.',
    guide: 'policy.md',
    paths: /^\/policy$/,
  },
  { name: 'Webhooks', description: 'Signed messages about what happened, retried.', guide: 'webhooks.md' },
  {
    name: 'Reports (public, no key)',
    description: 'Anyone may report a link to the operator: no API key, the same answer whatever the link.',
    guide: 'abuse.md',
  },
  {
    name: 'OAuth grants (MCP)',
    description: 'What the account granted MCP clients that connect through OAuth 2.1, and revoking it.',
    guide: 'mcp.md',
    paths: /^\/oauth\/grants(\/|$)/,
  },
  {
    name: 'End-to-end encryption',
    description: 'Files in the age format, encrypted before they leave the sender: the account’s identity.',
    guide: 'e2e.md',
  },
];

/** Guides every operation shares, linked from the document's description. */
const GENERAL_GUIDES: readonly [string, string][] = [
  ['api.md', 'answers, error codes, rate limits, quota, expiry, CORS'],
  ['integrity.md', 'the SHA-256 of every file'],
  ['idempotency.md', 'safe retries with Idempotency-Key'],
];

export const guideUrl = (origin: string, guide: string) => `${origin}/assets/guides/${guide}`;

/** Gives the document its tags with their guides, and every untagged operation its tag. */
export function tagWithGuides<T extends Document>(document: T, origin: string): T {
  const used = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths ?? {}) as [string, object][]) {
    for (const operation of Object.values(operations) as unknown[]) {
      if (typeof operation !== 'object' || operation === null) continue;
      const tagged = operation as { tags?: string[] };
      if (!tagged.tags?.length) {
        const tag = TAGS.find((candidate) => candidate.paths?.test(path));
        if (tag) tagged.tags = [tag.name];
      }
      for (const name of tagged.tags ?? []) used.add(name);
    }
  }
  document.tags = TAGS.filter((tag) => used.has(tag.name)).map((tag) => ({
    name: tag.name,
    description: `${tag.description} Guide: [${tag.guide}](${guideUrl(origin, tag.guide)}).`,
    externalDocs: { description: `The ${tag.name.toLowerCase()} guide`, url: guideUrl(origin, tag.guide) },
  }));
  const general = GENERAL_GUIDES.map(([guide, what]) => `[${guide}](${guideUrl(origin, guide)}) (${what})`);
  document.info.description = `${document.info.description ?? ''}\n\nGuides: ${general.join(', ')}; each tag links its own.`;
  return document;
}

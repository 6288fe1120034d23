import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/worker';

describe('GET /api/v1/openapi.json', () => {
  it('serves an OpenAPI 3.1 document of every v1 route without a key', async () => {
    const response = await call('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      servers: { url: string }[];
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0]?.url).toBe('http://edgeshare.test/api/v1');
    expect(Object.keys(doc.paths).sort()).toEqual(['/files', '/files/{id}', '/files/{id}/download', '/upload']);
    expect(Object.keys(doc.paths['/files/{id}'] ?? {}).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/upload']?.post).toBeDefined();
  });
});

describe('the documents link the guides', () => {
  type Doc = {
    info: { description: string };
    tags: { name: string; description: string; externalDocs: { url: string } }[];
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

  for (const version of ['v1', 'v2']) {
    it(`${version}: every operation has a tag, and every tag links its guide, served by the Worker`, async () => {
      const doc = (await (await call(`/api/${version}/openapi.json`)).json()) as Doc;
      const untagged = Object.entries(doc.paths).flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([method, operation]) => METHODS.includes(method) && !operation.tags?.length)
          .map(([method]) => `${method} ${path}`),
      );
      expect(untagged).toEqual([]);
      const used = new Set(
        Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])),
      );
      expect(doc.tags.map((tag) => tag.name).sort()).toEqual([...used].sort());
      const links = [
        ...doc.tags.map((tag) => tag.externalDocs.url),
        ...[...doc.info.description.matchAll(/\]\((http[^)]+)\)/g)].map((match) => match[1] as string),
      ];
      expect(links.length).toBeGreaterThan(doc.tags.length);
      for (const url of links) {
        expect(url).toMatch(/^http:\/\/edgeshare\.test\/assets\/guides\/[a-z0-9-]+\.md$/);
        const guide = await env.ASSETS.fetch(`http://assets.local${new URL(url).pathname}`);
        expect(guide.status, url).toBe(200);
        expect(await guide.text(), url).toMatch(/^# /);
      }
    });
  }

  it('v2 groups share links, tus and the policy under their own tags', async () => {
    const doc = (await (await call('/api/v2/openapi.json')).json()) as Doc;
    expect(doc.paths['/links/{linkId}']?.get?.tags).toEqual(['Share links']);
    expect(doc.paths['/uploads/{id}']?.patch?.tags).toEqual(['Resumable uploads (tus)']);
    expect(doc.paths['/policy']?.get?.tags).toEqual(['Policy']);
    expect(doc.paths['/files/{id}/access']?.get?.tags).toEqual(['Access log']);
    expect(doc.tags.find((tag) => tag.name === 'Share links')?.description).toContain(
      '[share-links.md](http://edgeshare.test/assets/guides/share-links.md)',
    );
  });
});

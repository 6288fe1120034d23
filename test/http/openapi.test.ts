import { describe, expect, it } from 'vitest';
import { call } from '../helpers';

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

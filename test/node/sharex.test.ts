// docs/sharex/edgeshare.sxcu, the ShareX custom uploader, agrees with the v2 API it calls: the
// path and method exist, the file goes in the multipart part the upload reads, and the URL it
// copies names a field of the 201 answer.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';

type Sxcu = Record<string, unknown> & { Headers: Record<string, string> };
const sxcu = JSON.parse(readFileSync(new URL('../../docs/sharex/edgeshare.sxcu', import.meta.url), 'utf8')) as Sxcu;

describe('the ShareX uploader', () => {
  it('posts the file as multipart part `file` to /api/v2/upload with a Bearer key', async () => {
    expect(sxcu).toMatchObject({ RequestMethod: 'POST', Body: 'MultipartFormData', FileFormName: 'file' });
    expect(new URL(String(sxcu.RequestURL)).pathname).toBe('/api/v2/upload');
    expect(sxcu.Headers.Authorization).toMatch(/^Bearer esk_/);

    const response = await createApp().request('/api/v2/openapi.json', {}, {});
    type Doc = {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, unknown> };
    };
    const doc = (await response.json()) as Doc;
    const upload = doc.paths['/upload']?.post as {
      requestBody: { content: Record<string, { schema: { $ref?: string; properties?: Record<string, unknown> } }> };
      responses: Record<string, unknown>;
    };
    expect(upload).toBeDefined();
    const form = upload.requestBody.content['multipart/form-data']?.schema;
    const formSchema = (form?.$ref ? doc.components.schemas[form.$ref.split('/').pop() ?? ''] : form) as {
      properties: Record<string, { format?: string }>;
    };
    expect(formSchema.properties[String(sxcu.FileFormName)]?.format).toBe('binary');
    expect(Object.keys(upload.responses)).toContain('201');
    // {json:data.shareUrl}: the 201 body is {success, data: {…, shareUrl}}.
    expect(sxcu.URL).toBe('{json:data.shareUrl}');
    const record = doc.components.schemas.UploadRecordV2 as { properties: Record<string, unknown> };
    expect(Object.keys(record.properties)).toContain('shareUrl');
  });
});

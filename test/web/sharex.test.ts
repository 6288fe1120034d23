// docs/sharex/edgeshare.sxcu, the ShareX custom uploader, does what ShareX will do with it: a
// multipart POST to its RequestURL's path with its headers and file part, and the URL it copies
// ({json:data.shareUrl}) read from the answer opens the shared file.
import { describe, expect, it } from 'vitest';
import sxcuText from '../../docs/sharex/edgeshare.sxcu?raw';
import { PNG_1X1 } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

type Sxcu = {
  RequestMethod: string;
  RequestURL: string;
  Headers: Record<string, string>;
  Body: string;
  FileFormName: string;
  URL: string;
  ThumbnailURL: string;
};
const sxcu = JSON.parse(sxcuText) as Sxcu;

/** ShareX's {json:a.b.c} syntax, resolved against a JSON answer. */
const resolve = (template: string, body: unknown) =>
  template.replace(/\{json:([^}]+)\}/g, (_, path: string) =>
    String(path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown>)?.[key], body)),
  );

describe('the ShareX uploader', () => {
  it('uploads a screenshot and copies a share link that opens it', async () => {
    expect(sxcu).toMatchObject({ RequestMethod: 'POST', Body: 'MultipartFormData' });
    const { key } = await createKey('sharex');
    const headers = Object.fromEntries(
      Object.entries(sxcu.Headers).map(([name, value]) => [name, value.replace('esk_REPLACE_WITH_YOUR_API_KEY', key)]),
    );
    const form = new FormData();
    form.append(sxcu.FileFormName, new File([PNG_1X1], 'screenshot.png', { type: 'image/png' }));
    const response = await call(new URL(sxcu.RequestURL).pathname, { method: sxcu.RequestMethod, headers, body: form });
    expect(response.status).toBe(201);
    const body = await response.json();
    const link = new URL(resolve(sxcu.URL, body));
    expect(link.pathname).toMatch(/^\/share\/[A-Za-z0-9_-]{32}$/);
    expect((await call(link.pathname)).status).toBe(200);
    const thumbnail = await call(new URL(resolve(sxcu.ThumbnailURL, body)).pathname);
    expect(thumbnail.headers.get('content-type')).toBe('image/png');
  });
});

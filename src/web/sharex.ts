// A ShareX custom uploader for this service, in the shape of docs/sharex/edgeshare.sxcu.

export const SHAREX_KEY_PLACEHOLDER = 'esk_REPLACE_WITH_YOUR_API_KEY';

export function sharexUploader(origin: string, key?: string): string {
  const uploader = {
    Version: '17.0.0',
    Name: 'edgeshare',
    DestinationType: 'ImageUploader, TextUploader, FileUploader',
    RequestMethod: 'POST',
    RequestURL: `${origin}/api/v2/upload`,
    Headers: { Authorization: `Bearer ${key ?? SHAREX_KEY_PLACEHOLDER}` },
    Body: 'MultipartFormData',
    FileFormName: 'file',
    URL: '{json:data.shareUrl}',
    ThumbnailURL: '{json:data.shareUrl}/view',
    ErrorMessage: '{json:error} ({json:code})',
  };
  return `${JSON.stringify(uploader, null, 2)}\n`;
}

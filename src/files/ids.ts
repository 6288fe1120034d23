// File ids: 16 random bytes, base64url (22 characters). A tus upload's id is its file's id. Node
// tools (the CLI) load this file too, so its import names the .ts file.
import { randomBase64Url } from '../lib/crypto.ts';

export const newFileId = () => randomBase64Url(16);
export const FILE_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

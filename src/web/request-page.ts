// The file request page ({site_url}/r/<token>): asks for the password when the request has one,
// shows the owner's message and the limits, takes files by drag and drop or the file picker,
// refuses a file over a limit before sending it, sends small files as one multipart request and
// large ones through tus (resumable, also after a reload), and lists the receipt. No key.
import { Upload, type UploadOptions } from 'tus-js-client';
import { isRecipient } from '../lib/age/index.ts';
import { toBase64 } from '../lib/encoding.ts';
import { byId, h } from './dom.ts';
import { E2E_TUS_CHUNK_BYTES, prepareEncryptedUpload, refusedForGood } from './e2e-upload.ts';
import { formatBytes, formatDate, formatExactBytes } from './format.ts';
import { uploadItem } from './upload-item.ts';

type Info = {
  message: string | null;
  maxFiles: number;
  maxFileSize: number;
  maxBytes: number | null;
  allowedTypes: string[];
  expiresAt: string;
  uploadUrl: string;
  tusUrl: string;
};
type Receipt = { name: string; size: number; mimeType: string; sha256?: string };
type ApiError = { error?: string; code?: string };

const root = byId('request');
const TUS_FROM = Number(root.dataset.tusFrom);
const TUS_CHUNK = Number(root.dataset.tusChunk);
const infoUrl = root.dataset.infoUrl ?? '';
/** The one size this link takes (an upload URL an agent made for a file it knows), if it has one. */
const EXACT = root.dataset.exactBytes === undefined ? null : Number(root.dataset.exactBytes);
/** An `e2e` request: every file is encrypted here to the owner's recipient, read from `#r=` (never sent). */
const E2E = root.dataset.e2e === '1';
/** The recipient in the address's fragment, read each time: a link completed in place (#r= added) works. */
const recipient = (): string | undefined => new URLSearchParams(location.hash.slice(1)).get('r') ?? undefined;
const INCOMPLETE =
  'This link is incomplete: it takes only encrypted files, and the key to encrypt them to (the part of the address after #r=, age1…) is missing or damaged. Nothing can be sent: ask the person who sent you the link for the whole link.';
const e2eReady = () => isRecipient(recipient() ?? '');

let password: string | undefined;
let info: Info | undefined;
/** Files and bytes this page has sent or is sending: a request's limits are checked before a file goes. */
let sentFiles = 0;
let sentBytes = 0;
let running = 0;
const waiting: (() => Promise<void>)[] = [];

const authHeaders = (): Record<string, string> =>
  password === undefined ? {} : { Authorization: `Basic ${toBase64(new TextEncoder().encode(`:${password}`))}` };

function banner(text: string | undefined): void {
  const element = byId('banner');
  element.hidden = !text;
  element.textContent = text ?? '';
  element.classList.toggle('error', Boolean(text));
}

const describe = (status: number, body: ApiError) =>
  body.error ? `${body.error}${body.code ? ` (${status} ${body.code})` : ''}` : `The service answered ${status}.`;

async function load(): Promise<void> {
  let response: Response;
  try {
    response = await fetch(infoUrl, { headers: authHeaders() });
  } catch {
    return banner('Could not reach the service. Check the connection and reload the page.');
  }
  const body = (await response.json().catch(() => ({}))) as { data?: Info } & ApiError;
  if (response.status === 401) {
    byId('password-section').hidden = false;
    if (password !== undefined) banner('That password is not right.');
    return;
  }
  if (!response.ok || !body.data) return banner(describe(response.status, body));
  banner(undefined);
  info = body.data;
  byId('password-section').hidden = true;
  showInfo(info);
  if (E2E) {
    if (!e2eReady()) banner(INCOMPLETE);
    byId('drop-zone').hidden = !e2eReady();
  }
}

function showInfo(request: Info): void {
  byId('send-section').hidden = false;
  const message = byId('request-message');
  message.textContent = request.message ?? '';
  message.hidden = !request.message;
  const limits = byId('request-limits');
  const items = [
    EXACT === null
      ? `Up to ${request.maxFiles} file${request.maxFiles === 1 ? '' : 's'}, each at most ${formatBytes(request.maxFileSize)}`
      : `${request.maxFiles === 1 ? 'One file' : `Up to ${request.maxFiles} files`}, each of exactly ${formatExactBytes(EXACT)}`,
    request.maxBytes === null ? '' : `At most ${formatBytes(request.maxBytes)} in all`,
    // The server's whole list is long: named only when the request narrows it.
    request.allowedTypes.length <= 8
      ? `Types: ${request.allowedTypes.join(', ')}`
      : 'Most documents, images, audio, video and archives',
    `Open until ${formatDate(request.expiresAt)}`,
  ];
  limits.replaceChildren(...items.filter(Boolean).map((text) => h('li', { text })));
}

/** Why a file cannot go, checked before any byte is sent; undefined when it may. */
function refusal(file: File, request: Info): string | undefined {
  if (E2E && !e2eReady()) return INCOMPLETE;
  if (EXACT !== null && file.size !== EXACT) {
    return `This link takes a file of exactly ${formatExactBytes(EXACT)}; this one has ${formatExactBytes(file.size)}.`;
  }
  if (file.size > request.maxFileSize) return `Too large: at most ${formatBytes(request.maxFileSize)} per file.`;
  if (sentFiles >= request.maxFiles) return `This link takes at most ${request.maxFiles} files.`;
  if (request.maxBytes !== null && sentBytes + file.size > request.maxBytes) {
    return `Over the link’s limit of ${formatBytes(request.maxBytes)} in all.`;
  }
  const type = file.type.toLowerCase();
  const allowed = (pattern: string) =>
    pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern;
  // A file the browser knows no type for is left to the server, which reads its bytes; an
  // encrypted one's type is the owner's to see, not the server's.
  if (type && !E2E && !request.allowedTypes.some(allowed)) return `Type ${type} is not accepted here.`;
  return undefined;
}

function addReceipt(receipt: Receipt): void {
  byId('receipt-section').hidden = false;
  byId('receipt').append(
    h(
      'tr',
      {},
      h('th', { class: 'name-cell', text: receipt.name, attrs: { scope: 'row' } }),
      h('td', { text: formatBytes(receipt.size), attrs: { 'data-label': 'Size' } }),
      h('td', { text: receipt.mimeType, attrs: { 'data-label': 'Type' } }),
      // The digest the server computed while the bytes streamed: the sender can compare it with theirs.
      h('td', { class: 'digest', text: receipt.sha256 ?? '—', attrs: { 'data-label': 'SHA-256' } }),
    ),
  );
}

function enqueue(files: Iterable<File>): void {
  const request = info;
  if (!request) return;
  for (const file of files) {
    const name = file.name || 'file';
    const { item, progress, show, finish } = uploadItem(name, formatBytes(file.size));
    byId('uploads').append(item);
    const why = refusal(file, request);
    if (why) {
      progress.remove();
      finish('error', `Not sent. ${why}`);
      continue;
    }
    sentFiles += 1;
    sentBytes += file.size;
    waiting.push(async () => {
      item.dataset.state = 'uploading';
      try {
        const receipt = E2E
          ? await sendEncrypted(file, request, show)
          : file.size >= TUS_FROM
            ? await sendResumable(file, request, show)
            : await sendForm(file, request, show);
        show(file.size, file.size);
        finish('done', 'Sent.');
        addReceipt(receipt);
      } catch (error) {
        sentFiles -= 1;
        sentBytes -= file.size;
        finish('error', error instanceof Error ? error.message : String(error));
      }
    });
  }
  next();
}

function next(): void {
  while (running < 2 && waiting.length > 0) {
    const job = waiting.shift() as () => Promise<void>;
    running++;
    job().finally(() => {
      running--;
      next();
    });
  }
}

/** One multipart request, through XMLHttpRequest for its progress events. */
function sendForm(file: File, request: Info, onProgress: (sent: number, total: number) => void): Promise<Receipt> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('file', file, file.name || 'file');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', request.uploadUrl);
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0)
        onProgress(Math.round((event.loaded / event.total) * file.size), file.size);
    };
    xhr.onload = () => {
      let body: { data?: { files?: (Receipt & { success: boolean })[] } } & ApiError = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // Not our envelope: the status alone.
      }
      const receipt = body.data?.files?.[0];
      if (xhr.status === 201 && receipt?.success) resolve(receipt);
      else reject(new Error(describe(xhr.status, body)));
    };
    xhr.onerror = () => reject(new Error('Could not reach the service.'));
    onProgress(0, file.size);
    xhr.send(form);
  });
}

/**
 * Encrypted in the Web Worker to the owner's recipient, `meta` filled, through tus: resumable like
 * any tus upload, also after a reload (the keys are kept in this browser until it completes). The
 * receipt shows the file as the sender knows it; the server saw only ciphertext.
 */
async function sendEncrypted(
  file: File,
  request: Info,
  onProgress: (sent: number, total: number) => void,
): Promise<Receipt> {
  const prepared = await prepareEncryptedUpload(file, recipient() ?? '', request.tusUrl);
  try {
    await sendResumable(file, request, onProgress, {
      metadata: prepared.metadata,
      chunkSize: E2E_TUS_CHUNK_BYTES,
      ...prepared.tus,
    });
  } catch (error) {
    // Refused for good (the request closed, full, a file too large…): its keys are not kept.
    if (refusedForGood((error as { status?: number }).status)) await prepared.abandon();
    throw error;
  }
  prepared.forget();
  return {
    name: file.name || 'file',
    size: file.size,
    mimeType: file.type || 'application/octet-stream',
    sha256: prepared.sha256,
  };
}

/** tus: resumable in chunks; a reload and the same file chosen again resumes where it stopped. */
function sendResumable(
  file: File,
  request: Info,
  onProgress: (sent: number, total: number) => void,
  options: Partial<UploadOptions> = {},
): Promise<Receipt> {
  return new Promise((resolve, reject) => {
    const upload: Upload = new Upload(file, {
      endpoint: request.tusUrl,
      chunkSize: TUS_CHUNK,
      retryDelays: [0, 1000, 3000, 5000],
      metadata: { filename: file.name || 'file', ...(file.type ? { filetype: file.type } : {}) },
      ...options,
      headers: authHeaders(),
      removeFingerprintOnSuccess: true,
      onProgress,
      onError: (error) => {
        const response = (error as { originalResponse?: { getStatus(): number; getBody(): string } | null })
          .originalResponse;
        if (!response) return reject(error);
        let body: ApiError = {};
        try {
          body = JSON.parse(response.getBody());
        } catch {
          // HEAD answers have no body.
        }
        reject(Object.assign(new Error(describe(response.getStatus(), body)), { status: response.getStatus() }));
      },
      onSuccess: async () => {
        const response = upload.url ? await fetch(upload.url, { headers: authHeaders() }) : undefined;
        const body = response?.ok ? ((await response.json()) as { data: Receipt }) : undefined;
        resolve(body?.data ?? { name: file.name, size: file.size, mimeType: file.type || 'application/octet-stream' });
      },
    });
    upload
      .findPreviousUploads()
      .then((previous) => {
        const last = previous[0];
        if (last) upload.resumeFromPreviousUpload(last);
        upload.start();
      })
      .catch(reject);
  });
}

byId<HTMLFormElement>('password-form').addEventListener('submit', (event) => {
  event.preventDefault();
  password = byId<HTMLInputElement>('request-password').value;
  // An e2e link whose fragment is completed in place (the #r= part pasted) needs no reload.
  if (E2E) window.addEventListener('hashchange', () => void load());

  void load();
});

const zone = byId('drop-zone');
const input = byId<HTMLInputElement>('file-input');
input.addEventListener('change', () => {
  if (input.files) enqueue(input.files);
  input.value = '';
});
zone.addEventListener('dragover', (event) => {
  event.preventDefault();
  zone.classList.add('dragging');
});
zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
zone.addEventListener('drop', (event) => {
  event.preventDefault();
  zone.classList.remove('dragging');
  if (event.dataTransfer?.files) enqueue(event.dataTransfer.files);
});

// An e2e link whose fragment is completed in place (the #r= part pasted) needs no reload.
if (E2E) window.addEventListener('hashchange', () => void load());

void load();

// The share pages' saving Service Worker (/assets/e2e-sw.js, registered with scope /share/ thanks
// to public/_headers' Service-Worker-Allowed): it answers /share/_e2e-save/<id>, a hidden frame's
// download URL, with the plaintext the page decrypts, pulled from the page one chunk at a time
// over a MessageChannel (see e2e-save.ts). Nothing else goes through it: every other request of
// its scope goes to the network untouched. It holds no key and sees only plaintext chunks the
// page already checked; an `error` from the page errors the answer's stream, so the browser marks
// the download failed rather than complete.
export {};

type Ports = { ports: readonly MessagePort[] };
type Extendable = Event & { waitUntil(promise: Promise<unknown>): void };
type MessageLike = Extendable & Ports & { data: unknown };
type FetchLike = Event & { request: Request; respondWith(answer: Response | Promise<Response>): void };
type WorkerScope = {
  addEventListener(type: 'install' | 'activate', listener: (event: Extendable) => void): void;
  addEventListener(type: 'message', listener: (event: MessageLike) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchLike) => void): void;
  skipWaiting(): Promise<void>;
  location: Location;
};
const scope = self as unknown as WorkerScope;

const SAVE_PREFIX = '/share/_e2e-save/';
/** How long a download waits for its frame's request before it is forgotten. */
const UNCLAIMED_MS = 60_000;
/** How long each ping keeps the worker up: past the next ping (every 5 s). */
const PING_HOLD_MS = 10_000;

type Pending = { port: MessagePort; name: string; mime: string; size?: number };
const pending = new Map<string, Pending>();

scope.addEventListener('install', (event) => event.waitUntil(scope.skipWaiting()));

scope.addEventListener('message', (event) => {
  const data = event.data as { type?: string; id?: string; name?: string; mime?: string; size?: number };
  if (data?.type === 'ping') {
    event.waitUntil(new Promise((resolve) => setTimeout(resolve, PING_HOLD_MS)));
    return;
  }
  const port = event.ports[0];
  if (data?.type !== 'save' || !port || typeof data.id !== 'string') return;
  pending.set(data.id, {
    port,
    name: data.name || 'file',
    mime: data.mime || 'application/octet-stream',
    size: data.size,
  });
  setTimeout(() => pending.delete(data.id as string), UNCLAIMED_MS);
  port.postMessage({ ready: true });
  event.waitUntil(new Promise((resolve) => setTimeout(resolve, PING_HOLD_MS)));
});

/** `attachment` with the name as RFC 6266 asks: an ASCII fallback and the UTF-8 name. */
function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function answer({ port, name, size }: Pending): Response {
  let next: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        port.onmessage = ({ data }: MessageEvent<{ chunk?: ArrayBuffer; done?: true; error?: string }>) => {
          if (data.chunk) controller.enqueue(new Uint8Array(data.chunk));
          else if (data.done) controller.close();
          else controller.error(new Error(data.error ?? 'the page stopped the download'));
          next?.();
        };
      },
      pull: () =>
        new Promise<void>((resolve) => {
          next = resolve;
          port.postMessage({ pull: true });
        }),
      cancel: () => port.postMessage({ cancel: true }),
    },
    { highWaterMark: 1 },
  );
  const headers: Record<string, string> = {
    // Always a download: the frame never renders the file, whatever its type.
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': disposition(name),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
  if (size !== undefined) headers['Content-Length'] = String(size);
  return new Response(body, { headers });
}

scope.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== scope.location.origin || !url.pathname.startsWith(SAVE_PREFIX)) return;
  const id = url.pathname.slice(SAVE_PREFIX.length);
  const found = pending.get(id);
  pending.delete(id);
  if (!found) {
    const gone = 'This download is over: start it again from its page.';
    event.respondWith(new Response(gone, { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } }));
    return;
  }
  event.respondWith(answer(found));
});

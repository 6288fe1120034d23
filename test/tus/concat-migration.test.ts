// Migration 0011 (file_segments) against a database made by the schema before it, holding
// files: every file stays listed, downloadable and deletable as before (the new trigger only
// concerns rows stored in segments), and a final upload works on the migrated database.
import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../helpers/digests';
import { migration, schemaBefore } from '../helpers/migrations';
import type { Success } from '../helpers/records';
import { json } from '../helpers/responses';
import { binaryBytes, createFinal, joined, partialOf } from '../helpers/tus';
import { call, createKey } from '../helpers/worker';

type Listed = { id: string; size: number };

describe('migration 0011_file_segments', () => {
  it('keeps every file of a database made before it; finals work after it', async () => {
    await schemaBefore('0011');
    const tables = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{ name: string }>();
    expect(tables.results.map((table) => table.name)).not.toContain('file_segments');
    // Today's code stores files with their CRC-32 (migration 0012) and reads every file's standing
    // (0016), which touch nothing 0011 does: they join the old schema first, so the files below
    // can be uploaded.
    await applyD1Migrations(env.DB, [...migration('0012'), ...migration('0016')]);
    const { auth, id: accountId } = await createKey('migration-0011');
    const contents = Array.from({ length: 6 }, (_, index) => binaryBytes(1000 + index, index + 1));
    const ids: string[] = [];
    for (const [index, bytes] of contents.entries()) {
      const form = new FormData();
      form.append('file', new File([bytes], `old-${index}.bin`));
      const response = await call('/api/v2/upload', { method: 'POST', headers: auth, body: form });
      expect(response.status).toBe(201);
      ids.push((await json<Success<{ id: string }>>(response)).data.id);
    }
    const rows = () => env.DB.prepare('SELECT * FROM files ORDER BY id').all();
    const before = (await rows()).results;

    await applyD1Migrations(env.DB, migration('0011'));

    // Nothing rewritten; every file listed and downloadable.
    expect((await rows()).results).toEqual(before);
    // Today's code also reads files' end-to-end columns and segments' starts (0017, which needs 0013's
    // tables): they join the migrated schema here.
    await applyD1Migrations(env.DB, [...migration('0013'), ...migration('0017')]);
    const listed = await json<Success<{ files: Listed[] }>>(await call('/api/v2/files?limit=100', { headers: auth }));
    expect(listed.data.files.map((file) => file.id).sort()).toEqual([...ids].sort());
    for (const [index, id] of ids.entries()) {
      const response = await call(`/api/v2/files/${id}/download`, { headers: auth });
      expect(response.status).toBe(200);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(contents[index]);
    }
    // Deleting an old file deletes its object, and queues nothing (it has no segments).
    const deleted = await call(`/api/v2/files/${ids[0]}`, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(200);
    expect(await env.FILES.head(`files/${accountId}/${ids[0]}`)).toBeNull();
    const queued = await env.DB.prepare('SELECT COUNT(*) AS n FROM blob_deletions').first<{ n: number }>();
    expect(queued?.n).toBe(0);

    // A final upload on the migrated database.
    const parts = [binaryBytes(2000, 21), binaryBytes(3000, 22)];
    const partials = [];
    for (const part of parts) partials.push(await partialOf(auth, part));
    const final = await createFinal(
      auth,
      partials.map((partial) => partial.path),
    );
    expect(final.status).toBe(201);
    const download = await call(`/api/v2/files/${final.headers.get('x-file-id')}/download`, { headers: auth });
    expect(await sha256Hex(await download.arrayBuffer())).toBe(await sha256Hex(joined(parts)));
  });
});

// Migration 0012 (files.crc32) against a database made by the schema before it, holding files
// stored by earlier versions (with a SHA-256, without one, and a tus final upload in segments),
// and the sweep's bounded backfill: each file read once, given the CRC-32 zlib computes of its
// bytes (what a collection's seekable ZIP needs of every member), and any digest it lacked.
import { applyD1Migrations, env } from 'cloudflare:test';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { backfillDigests } from '../../src/maintenance/digest-backfill';
import { sha256Hex, textOf } from '../helpers/digests';
import { migration, migrationsAfter, schemaBefore } from '../helpers/migrations';
import type { Success } from '../helpers/records';
import { json } from '../helpers/responses';
import { runCron } from '../helpers/storage';
import { call, createKey } from '../helpers/worker';

const zlib = (bytes: Uint8Array) => zlibCrc32(bytes) >>> 0;

type Seeded = { id: string; bytes: Uint8Array; sha256: string | null; keys: string[] };

/** An R2 bucket that counts the reads of each key (and otherwise is the real one). */
function countingReads(bucket: R2Bucket) {
  const reads = new Map<string, number>();
  const counted = new Proxy(bucket, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== 'get') return typeof value === 'function' ? value.bind(target) : value;
      return (key: string, options?: R2GetOptions) => {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        return target.get(key, options);
      };
    },
  });
  return { bucket: counted, reads };
}

describe('migration 0012 and the CRC-32 backfill', () => {
  it('keeps every file listed and downloadable, then gives each its CRC-32 run by run, reading each once', async () => {
    await schemaBefore('0012');
    const columns = async () =>
      (await env.DB.prepare("SELECT name FROM pragma_table_info('files')").all<{ name: string }>()).results.map(
        (column) => column.name,
      );
    expect(await columns()).toContain('sha256');
    expect(await columns()).not.toContain('crc32');
    const { id: accountId, auth } = await createKey('crc-backfill');

    // Twelve plain files (every third stored before digests too) and one tus final in two segments.
    const seeded: Seeded[] = [];
    const day = Date.now() - 86_400_000;
    for (let index = 0; index < 12; index++) {
      const bytes = textOf(1000 + index * 100, index + 1);
      const sha256 = index % 3 === 0 ? null : await sha256Hex(bytes);
      const id = `crc${String(index).padStart(2, '0')}${'C'.repeat(17)}`;
      const key = `files/${accountId}/${id}`;
      const object = await env.FILES.put(key, bytes, { httpMetadata: { contentType: 'text/plain' } });
      await insertRow({ id, accountId, key, etag: object.httpEtag, size: bytes.length, sha256, at: day + index });
      seeded.push({ id, bytes, sha256, keys: [key] });
    }
    const parts = [textOf(3000, 40), textOf(2500, 41)];
    const finalId = `crcfinal${'F'.repeat(14)}`;
    const segmentKeys = parts.map((_, seq) => `segments/${accountId}/crcpart${seq}${'P'.repeat(14)}`);
    for (const [seq, part] of parts.entries()) await env.FILES.put(segmentKeys[seq] as string, part);
    const whole = new Uint8Array([...(parts[0] as Uint8Array), ...(parts[1] as Uint8Array)]);
    const finalSha = await sha256Hex(whole);
    await insertRow({
      id: finalId,
      accountId,
      key: `concat/${accountId}/${finalId}`,
      etag: '"final-2"',
      size: whole.length,
      sha256: finalSha,
      at: day + 100,
    });
    for (const [seq, key] of segmentKeys.entries()) {
      await env.DB.prepare(
        'INSERT INTO file_segments (file_id, seq, r2_key, size, upload_id, upload_url) VALUES (?1, ?2, ?3, ?4, ?5, ?6)',
      )
        .bind(finalId, seq, key, parts[seq]?.length, `crcpart${seq}`, `/api/v2/uploads/crcpart${seq}`)
        .run();
    }
    seeded.push({ id: finalId, bytes: whole, sha256: finalSha, keys: segmentKeys });
    const rows = () => env.DB.prepare('SELECT * FROM files ORDER BY id').all<Record<string, unknown>>();
    const before = (await rows()).results;

    await applyD1Migrations(env.DB, migration('0012'));

    // Nothing rewritten: every row as it was, with crc32 NULL.
    expect((await rows()).results).toEqual(before.map((row) => ({ ...row, crc32: null })));
    // Today's code also reads what later migrations add: they follow, as in a deploy.
    await applyD1Migrations(env.DB, migrationsAfter('0012'));
    // Every file listed (v1 and v2) and downloadable.
    for (const version of ['v1', 'v2']) {
      const listed = await json<Success<{ files: { id: string }[] }>>(
        await call(`/api/${version}/files?limit=100`, { headers: auth }),
      );
      expect(listed.data.files.map((file) => file.id).sort()).toEqual(seeded.map((file) => file.id).sort());
    }
    for (const file of seeded) {
      const download = await call(`/api/v2/files/${file.id}/download`, { headers: auth });
      expect(download.status).toBe(200);
      expect(new Uint8Array(await download.arrayBuffer())).toEqual(file.bytes);
    }

    // Bounded: one run gives at most its number of files what they lack.
    const { bucket, reads } = countingReads(env.FILES);
    expect(await backfillDigests({ db: env.DB, bucket }, { files: 5, bytes: 2 ** 30 })).toEqual({
      hashed: 5,
      missing: 0,
    });
    expect(await crcs()).toHaveLength(5);
    for (let run = 0; run < 10 && (await crcs()).length < seeded.length; run++) {
      await backfillDigests({ db: env.DB, bucket }, { files: 5, bytes: 2 ** 30 });
    }
    // Once every file has what it lacked, the scheduled sweep finds nothing left, nor does a run after it.
    await runCron();
    expect(await backfillDigests({ db: env.DB, bucket })).toEqual({ hashed: 0, missing: 0 });

    const stored = new Map((await crcs()).map((row) => [row.id, row]));
    for (const file of seeded) {
      const row = stored.get(file.id);
      expect(row?.crc32, file.id).toBe(zlib(file.bytes));
      // A digest a file had is kept; one it lacked was computed from the same read.
      expect(row?.sha256, file.id).toBe(file.sha256 ?? (await sha256Hex(file.bytes)));
      for (const key of file.keys) expect(reads.get(key), key).toBe(1);
    }
    expect(reads.size).toBe(seeded.flatMap((file) => file.keys).length);
  });
});

async function crcs() {
  const { results } = await env.DB.prepare('SELECT id, sha256, crc32 FROM files WHERE crc32 IS NOT NULL').all<{
    id: string;
    sha256: string | null;
    crc32: number;
  }>();
  return results;
}

/** A row as the schema before 0012 held it (no crc32 column), uploaded at `at`. */
async function insertRow(row: {
  id: string;
  accountId: string;
  key: string;
  etag: string;
  size: number;
  sha256: string | null;
  at: number;
}): Promise<void> {
  const at = new Date(row.at).toISOString();
  await env.DB.prepare(
    `INSERT INTO files (id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token, is_public,
       download_count, uploaded_at, updated_at, expires_at, sha256)
     VALUES (?1, ?2, ?3, ?3, ?4, 'text/plain', ?5, ?6, ?7, 1, 0, ?8, ?8, NULL, ?9)`,
  )
    .bind(row.id, row.accountId, `${row.id}.txt`, row.size, row.key, row.etag, `tok-${row.id}`, at, row.sha256)
    .run();
}

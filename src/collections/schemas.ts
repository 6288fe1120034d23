// zod schemas of the collection routes: they validate requests and write the v2 OpenAPI document.
import { z } from '@hono/zod-openapi';
import { time } from '../schemas.ts';

/** New members one request may name (a create's first ones, or an add). */
export const MAX_FILE_IDS = 100;

// C0 and C1 controls and DEL: a name is one line of plain text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A note may run over several lines and hold tabs; no other control character.
const NOTE_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Length in characters (code points), as people count them, not UTF-16 units. */
const characters = (text: string) => [...text].length;

const name = z
  .string()
  .refine((text) => characters(text) >= 1, 'must not be empty')
  .refine((text) => characters(text) <= 200, 'must be at most 200 characters')
  .refine((text) => !CONTROL.test(text), 'must not contain control characters')
  .refine((text) => text.trim() !== '', 'must not be blank')
  .openapi({
    description: '1 … 200 characters, no control characters. The ZIP is downloaded as `<name>.zip`',
    example: 'Q3 report',
  });

const note = z
  .string()
  .refine((text) => characters(text) <= 2000, 'must be at most 2000 characters')
  .refine((text) => !NOTE_CONTROL.test(text), 'must not contain control characters other than tab and line breaks')
  .openapi({ description: 'At most 2,000 characters (line breaks and tabs allowed)' });

const fileIds = z
  .array(z.string())
  .max(MAX_FILE_IDS, `must hold at most ${MAX_FILE_IDS} ids`)
  .openapi({ description: `File ids, in the order they join (at most ${MAX_FILE_IDS})` });

export const CollectionIdParamSchema = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'col_3q2-7wEAAAAAAAAAAAAAAA' }),
});

export const CollectionFileParamSchema = CollectionIdParamSchema.extend({
  fileId: z.string().openapi({ param: { name: 'fileId', in: 'path' }, example: 'Qm9vayBvZiBpZHMhIQ' }),
});

export const CollectionCreateSchema = z
  .strictObject({
    name,
    note: note.optional(),
    fileIds: fileIds.optional().openapi({
      description:
        `Its first members, in order (at most ${MAX_FILE_IDS}); any id that is not a live file of yours ` +
        'is 404 FILE_NOT_FOUND with details [{"id"}], and nothing is created',
    }),
  })
  .openapi('CollectionCreate');

export const CollectionUpdateSchema = z
  .strictObject({
    name: name.optional(),
    note: note.nullable().optional().openapi({ description: 'null removes the note' }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'must name something to change: name or note' })
  .openapi('CollectionUpdate', { minProperties: 1 });

export const CollectionFilesAddSchema = z
  .strictObject({
    fileIds: fileIds.min(1, 'must hold at least one id').openapi({
      description:
        `1 … ${MAX_FILE_IDS} file ids, appended in this order; ids already in the collection are ignored. ` +
        'Any id that is not a live file of yours is 404 FILE_NOT_FOUND with details [{"id"}], and nothing is added',
    }),
  })
  .openapi('CollectionFilesAdd');

const count = z.number().int().min(0);

export const CollectionRecordSchema = z
  .object({
    id: z.string().openapi({ example: 'col_3q2-7wEAAAAAAAAAAAAAAA' }),
    name: z.string(),
    note: z.string().nullable(),
    fileCount: count.openapi({ description: 'Its live members (a deleted or expired file has left at once)' }),
    bytes: count.openapi({ description: 'Their sizes added up (the ZIP is a little longer: its headers)' }),
    createdAt: time,
    updatedAt: time.openapi({ description: 'Its name, note or members last changed' }),
    archiveUrl: z.string().openapi({
      description:
        '`{base_url_v2}/collections/<id>/archive?v=<version>`: the ZIP of every member, for its owner (a key), in ' +
        'its version now (the archive’s ETag value, URL-safe). Once the archive changes (a member added, removed, ' +
        'renamed, deleted) this URL answers 412 ARCHIVE_CHANGED naming the current one, so a resume without ' +
        'If-Range never appends another archive’s bytes',
    }),
  })
  .openapi('Collection');

// What the operator's abuse routes answer with: a file (the owner's v2 record and its account), a
// link (with its disabling), a report (its target, reporters and resolution).
import type { Origins } from '../env';
import { fileRecord, shareUrl } from '../files/records';
import type { FileRow } from '../storage/files-repo';
import type { OperatorLinkRow } from '../storage/moderation-repo';
import type { ReviewedReportRow } from '../storage/reports-repo';

export const operatorFileRecord = (row: FileRow, origins: Origins) => ({
  ...fileRecord(row, 'v2', origins),
  accountId: row.account_id,
});

export const operatorLinkRecord = (row: OperatorLinkRow, origins: Origins) => ({
  id: row.id,
  accountId: row.account_id,
  fileId: row.file_id,
  collectionId: row.collection_id,
  url: shareUrl(origins, row.token),
  label: row.label,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  disabled: row.disabled_statement === null ? null : { statement: row.disabled_statement, at: row.disabled_at ?? '' },
});

export const reportRecord = (row: ReviewedReportRow) => ({
  id: row.id,
  status: row.status,
  target:
    row.target_type === null || row.target_id === null
      ? null
      : { type: row.target_type, id: row.target_id, accountId: row.target_account_id },
  reason: row.reason,
  details: row.details,
  contact: row.contact,
  linkWithKey: row.link_with_key,
  reporters: row.reporters,
  createdAt: row.created_at,
  resolvedAt: row.resolved_at,
  resolution:
    row.resolution_action === null
      ? null
      : { action: row.resolution_action, statement: row.resolution_statement ?? '' },
});

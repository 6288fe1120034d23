// Whose a share token is, whatever the state of what it shares: the access log files a visit that
// found nothing live (a revoked or expired link, a private file's default link, a download
// throttled before its lookup) under its owner's log. Asked after the answer, never to serve.

export type TokenOwner = { id: string; account_id: string };

/** A made link by its token, revoked, expired or exhausted as it may be (gone with its file). */
export function linkOwnerOfToken(db: D1Database, token: string) {
  return db.prepare('SELECT id, account_id FROM share_links WHERE token = ?1').bind(token).first<TokenOwner>();
}

/** A file by its default link's token (its share_token), public or not, expired or not. */
export function fileOwnerOfShareToken(db: D1Database, token: string) {
  return db.prepare('SELECT id, account_id FROM files WHERE share_token = ?1').bind(token).first<TokenOwner>();
}

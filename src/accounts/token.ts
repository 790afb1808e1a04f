import crypto from 'node:crypto';

/**
 * A session or invitation token: 32 random bytes (256 bits), base64url.
 * Only its SHA-256 is stored, so a copy of the database opens no session.
 */
export function newToken(): { token: string; hash: string } {
  const token = crypto.randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/**
 * Secrets at rest (docs/guide/revenue.md, "Secrets at rest"): connector
 * configurations and outgoing webhooks' signing secrets are sealed with
 * AES-256-GCM under a key kept in a file outside the database, so that a
 * copy of the database alone (a backup, a stolen file, a dump) does not
 * hold the Stripe signing secret, RevenueCat's Authorization or what signs
 * paywalld's own deliveries.
 * The key file is 32 random bytes in base64, mode 0600, created on first
 * need: beside a SQLite file (`<db>-secrets.key`), or where
 * `--secrets-key-file` says (which PostgreSQL needs: every instance must
 * read the same key). Each sealed value names its key by a fingerprint and
 * is bound to its row (additional data: project and provider, or webhook), so a key that is
 * not the one it was sealed with, or a value moved to another row, is told
 * apart from a damaged one.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DomainError } from './errors.ts';

/** A sealed configuration as the store keeps it (JSON like the plaintext it replaces). */
interface Sealed {
  sealed: 'aes-256-gcm';
  /** The key's fingerprint: the first 16 hex digits of its SHA-256. */
  key: string;
  /** base64 of nonce (12 bytes) ‖ tag (16 bytes) ‖ ciphertext. */
  data: string;
}

export function isSealed(value: unknown): value is Sealed {
  return typeof value === 'object' && value !== null && (value as Partial<Sealed>).sealed === 'aes-256-gcm';
}

function unavailable(why: string): DomainError {
  return new DomainError('secrets_unavailable', `stored secrets cannot be used: ${why}`);
}

/** Where a server or command keeps the key: the setting, else beside a SQLite file; undefined on PostgreSQL without the setting. */
export function secretsKeyFile(configured: string | undefined, sqliteFile: string | undefined): string | undefined {
  return configured ?? (sqliteFile === undefined ? undefined : `${sqliteFile}-secrets.key`);
}

export class SecretBox {
  private key: { bytes: Buffer; id: string } | undefined;

  constructor(private readonly file: string | undefined) {}

  seal(binding: string, plaintext: string): Sealed {
    const key = this.load(true);
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, nonce);
    cipher.setAAD(Buffer.from(binding));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { sealed: 'aes-256-gcm', key: key.id, data: Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64') };
  }

  open(binding: string, sealed: Sealed): string {
    const key = this.load(false);
    if (sealed.key !== key.id) throw unavailable(`they were sealed with another key (${sealed.key}) than ${this.file}'s (${key.id})`);
    const data = Buffer.from(sealed.data, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, data.subarray(0, 12));
      decipher.setAAD(Buffer.from(binding));
      decipher.setAuthTag(data.subarray(12, 28));
      return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw unavailable('the stored secret does not open with its key: it was damaged or moved to another row');
    }
  }

  /** The key, read once; created (0600, whatever the umask) when `create` and the file does not exist yet. */
  private load(create: boolean): { bytes: Buffer; id: string } {
    if (this.key) return this.key;
    const file = this.file;
    if (file === undefined) throw unavailable('no key file is set: start with --secrets-key-file FILE (PAYWALLD_SECRETS_KEY_FILE), the same on every instance');
    if (create) {
      try {
        fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
        fs.writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
        fs.chmodSync(file, 0o600);
      } catch (error) {
        // Another process made it first: its key is the one.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      throw unavailable(`the key file ${file} cannot be read (the secrets were sealed with it; restore it from where you keep it)`);
    }
    const bytes = Buffer.from(text.trim(), 'base64');
    if (bytes.length !== 32) throw unavailable(`${file} does not hold a key (32 bytes in base64)`);
    this.key = { bytes, id: createHash('sha256').update(bytes).digest('hex').slice(0, 16) };
    return this.key;
  }
}

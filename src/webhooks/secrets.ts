/**
 * Endpoints' signing secrets at rest: the `secret` column holds the secret
 * sealed with the server's key file (shared/secret-box.ts, bound to the
 * project and endpoint) as JSON, so that a copy of the database alone
 * cannot sign a delivery a receiver would trust. A secret stored before
 * sealing (its `whsec_` text) is still read, and sealed at the next start.
 */
import { isSealed, type SecretBox } from '../shared/secret-box.ts';

function binding(projectId: string, webhookId: string): string {
  return `${projectId}\0webhook\0${webhookId}`;
}

export function sealSecret(box: SecretBox, projectId: string, webhookId: string, secret: string): string {
  return JSON.stringify(box.seal(binding(projectId, webhookId), secret));
}

/** Whether a stored secret is sealed (JSON) rather than the plaintext an earlier version wrote. */
function isSealedSecret(stored: string): boolean {
  return stored.startsWith('{');
}

/** The secret as it signs; secrets_unavailable when it cannot be opened (no key file, another key). */
export function openSecret(box: SecretBox, projectId: string, webhookId: string, stored: string): string {
  if (!isSealedSecret(stored)) return stored;
  const sealed: unknown = JSON.parse(stored);
  if (!isSealed(sealed)) return stored;
  return box.open(binding(projectId, webhookId), sealed);
}

/** Store connector requests through HTTP: configuring an integration and delivering a notification to /hooks (test/integrations/, test/scale-out/). */
import assert from 'node:assert/strict';
import { bearer } from './server.ts';

export async function configure(url: string, secret: string, provider: string, config: unknown): Promise<Response> {
  return fetch(`${url}/api/integrations/${provider}`, {
    method: 'PUT',
    headers: { ...bearer(secret), 'content-type': 'application/json' },
    body: JSON.stringify(config),
  });
}

export async function configured(url: string, secret: string, provider: string, config: unknown): Promise<void> {
  const response = await configure(url, secret, provider, config);
  assert.equal(response.status, 200, await response.clone().text());
}

/** Sends a notification as the store would: the exact bytes, with its headers. */
export function deliver(url: string, provider: string, projectId: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/hooks/${provider}/${projectId}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

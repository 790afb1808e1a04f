/**
 * Google's addresses the Google Play connector calls (docs/guide/revenue.md,
 * "Google Play"): the keys Pub/Sub's push tokens are signed with, the OAuth 2
 * token endpoint, the Play Developer API. Each is a `serve` setting with
 * Google's address as its default, so that a test (or a proxy) can stand in
 * for Google; keys and access tokens travel over them, so plain HTTP is
 * refused except on a loopback address.
 */

import type { Setting } from '../../config.ts';
import { ConfigError } from '../../config-error.ts';

export const GOOGLE_SETTINGS = {
  'google-jwks-url': {
    env: 'PAYWALLD_GOOGLE_JWKS_URL',
    kind: 'string',
    arg: 'URL',
    default: 'https://www.googleapis.com/oauth2/v3/certs',
    help: "Google's public keys (JWKS), which sign the Pub/Sub push tokens of Google Play notifications; each `--google-*` URL is HTTPS (HTTP only on a loopback address)",
  },
  'google-token-url': {
    env: 'PAYWALLD_GOOGLE_TOKEN_URL',
    kind: 'string',
    arg: 'URL',
    default: 'https://oauth2.googleapis.com/token',
    help: "Google's OAuth 2 token endpoint, where the Google Play connector's service account gets its access tokens",
  },
  'google-play-api-url': {
    env: 'PAYWALLD_GOOGLE_PLAY_API_URL',
    kind: 'string',
    arg: 'URL',
    default: 'https://androidpublisher.googleapis.com',
    help: 'the Google Play Developer API, which the Google Play connector asks what a purchase token bought',
  },
} as const satisfies Record<string, Setting>;

type GoogleSetting = keyof typeof GOOGLE_SETTINGS;

/** Where the Google Play connector calls, and how long it waits for each answer. */
export interface GoogleEndpoints {
  jwksUrl: string;
  tokenUrl: string;
  playApiUrl: string;
  /** One call's limit: past it the notification answers 503 and Pub/Sub delivers it again. */
  timeoutMs: number;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

function endpoint(name: GoogleSetting, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`--${name} must be an absolute URL`);
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  if (!secure || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new ConfigError(`--${name} must be an https:// URL (http:// only on a loopback address), without credentials, query or fragment`);
  }
  return url.href.replace(/\/$/, '');
}

/** The endpoints as the settings give them (`textOf` answers the flag, the variable or the default), each checked. */
export function googleEndpoints(textOf: (name: GoogleSetting) => string): GoogleEndpoints {
  return {
    jwksUrl: endpoint('google-jwks-url', textOf('google-jwks-url')),
    tokenUrl: endpoint('google-token-url', textOf('google-token-url')),
    playApiUrl: endpoint('google-play-api-url', textOf('google-play-api-url')),
    timeoutMs: 5000,
  };
}

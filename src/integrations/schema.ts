/**
 * The store connectors' shapes: each provider's configuration (secrets are
 * write-only: GET shows a fingerprint), and what GET answers.
 */
import * as v from 'valibot';

const PROVIDERS = ['stripe', 'revenuecat', 'app-store', 'google-play'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(name: string): name is Provider {
  return (PROVIDERS as readonly string[]).includes(name);
}

function secret(what: string) {
  return v.pipe(
    v.string('must be a string'),
    v.minLength(8, 'must be at least 8 characters'),
    v.maxLength(4096, 'must be at most 4096 characters'),
    v.description(what),
  );
}

export const StripeConfigSchema = v.strictObject({
  signing_secret: secret("the endpoint's signing secret (whsec_…) from the Stripe dashboard"),
});

export const RevenueCatConfigSchema = v.strictObject({
  authorization: secret('the Authorization header value RevenueCat is set to send with every webhook'),
});

const PEM_CERTIFICATE = /^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/;

export const AppStoreConfigSchema = v.strictObject({
  bundle_id: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters')),
  root_certificates: v.pipe(
    v.array(
      v.pipe(v.string('must be a string'), v.maxLength(16_384, 'must be at most 16384 characters'), v.regex(PEM_CERTIFICATE, 'must be one PEM certificate')),
    ),
    v.minLength(1, 'must hold at least one certificate'),
    v.maxLength(8, 'must hold at most 8 certificates'),
    v.description('the roots notifications must chain up to, PEM: Apple Root CA - G3 in production'),
  ),
});

export const GooglePlayConfigSchema = v.strictObject({
  package_name: v.pipe(
    v.string('must be a string'),
    v.maxLength(255, 'must be at most 255 characters'),
    v.regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'must be an Android package name (com.example.app)'),
  ),
  service_account_json: v.pipe(
    v.string('must be a string'),
    v.maxLength(16_384, 'must be at most 16384 characters'),
    v.description("the service account's JSON key file, its contents as a string: its private key signs paywalld's calls to the Play Developer API"),
  ),
  pubsub_audience: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(1024, 'must be at most 1024 characters'),
    v.description("the push subscription's audience: every push token must carry exactly this aud"),
  ),
  pubsub_service_account_email: v.pipe(
    v.string('must be a string'),
    v.maxLength(320, 'must be at most 320 characters'),
    v.email('must be an email address'),
    v.description('the service account the push subscription authenticates as: every push token must carry this email, verified'),
  ),
});

export type StripeConfig = v.InferOutput<typeof StripeConfigSchema>;
export type RevenueCatConfig = v.InferOutput<typeof RevenueCatConfigSchema>;
export type AppStoreConfig = v.InferOutput<typeof AppStoreConfigSchema>;
export type GooglePlayConfig = v.InferOutput<typeof GooglePlayConfigSchema>;

/** The documented request body of PUT /api/integrations/{provider}: one of the providers' configurations. */
export const IntegrationWriteSchema = v.union([StripeConfigSchema, RevenueCatConfigSchema, AppStoreConfigSchema, GooglePlayConfigSchema]);

export const IntegrationSchema = v.object({
  provider: v.picklist(PROVIDERS),
  fingerprint: v.pipe(
    v.string(),
    v.description('sha256: and the first 16 hex digits of the SHA-256 of the secret part: tells two configurations apart, reveals nothing'),
  ),
  webhook_path: v.pipe(v.string(), v.description('where the store sends its notifications: /hooks/{provider}/{project}')),
  bundle_id: v.optional(v.string()),
  root_certificates: v.optional(v.array(v.pipe(v.string(), v.description('SHA-256 fingerprint of a configured root')))),
  package_name: v.optional(v.string()),
  service_account_email: v.optional(v.pipe(v.string(), v.description("the service account's client_email (Google Play); its private key is never shown"))),
  pubsub_audience: v.optional(v.string()),
  pubsub_service_account_email: v.optional(v.string()),
  updated_at: v.pipe(v.string(), v.isoDateTime()),
});
export type Integration = v.InferOutput<typeof IntegrationSchema>;

/**
 * The error type of the domain. Services and stores throw a DomainError with
 * a stable code (listed in docs/reference/errors.md); they know nothing of HTTP. Only
 * the HTTP edge (src/http/status.ts) maps a code to a status and turns the
 * error into problem+json, and the CLI prints it as a message.
 */

/** One field-level problem: a JSON pointer (RFC 6901) into the input, "" for the whole input. */
export interface FieldError {
  path: string;
  message: string;
}

/** Every code a DomainError can carry. Adding one is a type error until src/http/status.ts maps it. */
export type ErrorCode =
  | 'invalid_batch'
  | 'invalid_purchases'
  | 'invalid_notification'
  | 'invalid_signature'
  | 'integration_not_found'
  | 'too_many_purchases'
  | 'invalid_query'
  | 'invalid_range'
  | 'key_not_found'
  | 'not_found'
  | 'paywall_not_found'
  | 'product_not_found'
  | 'revision_not_found'
  | 'phase_not_found'
  | 'audience_not_found'
  | 'template_not_found'
  | 'product_in_use'
  | 'too_many_keys'
  | 'revision_invalid'
  | 'precondition_failed'
  | 'too_many_events'
  | 'invalid_id'
  | 'validation_failed'
  | 'database_unavailable'
  | 'draining'
  | 'ingestion_failed'
  | 'ingestion_overloaded'
  | 'stats_warming_up'
  | 'secrets_unavailable'
  | 'store_unavailable'
  | 'invalid_credentials'
  | 'sign_in_throttled'
  | 'invitation_invalid'
  | 'member_not_found'
  | 'user_not_found'
  | 'already_member'
  | 'last_owner'
  | 'link_needs_secret_key'
  | 'too_many_links'
  | 'webhook_not_found'
  | 'delivery_not_found'
  | 'webhook_url_invalid'
  | 'webhook_url_refused'
  | 'too_many_webhooks'
  | 'placement_not_found'
  | 'user_required';

interface DomainErrorOptions {
  /** Field-level problems, each at its JSON pointer. */
  errors?: FieldError[];
  /** For transient failures: how long a caller should wait before trying again. */
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

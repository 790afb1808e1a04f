/**
 * Google Play's Real-time developer notifications through a Cloud Pub/Sub push subscription
 * (docs/guide/revenue.md, "Google Play"). The push's `Authorization: Bearer` token is verified
 * before the body is read (google-oidc.ts); the body is Pub/Sub's envelope
 * `{"message": {"data", "messageId", "publishTime"}, "subscription"}` whose `data` is the
 * DeveloperNotification in base64. What it names is read from the Play Developer API
 * (google-play-records.ts); the user is the purchase's obfuscatedExternalAccountId, which the
 * app sets to the client's obfuscatedAccountId(userId): the user's appAccountToken.
 */
import type { FieldError } from '../../shared/errors.ts';
import type { Connector, ConnectorContext, Notification, Translation } from '../connector.ts';
import type { GooglePlayConfig } from '../schema.ts';
import { checkServiceAccount, serviceAccountOf } from './google-auth.ts';
import { verifyPushToken } from './google-oidc.ts';
import { millisOf, oneTimeRecords, type PlayLookup, subscriptionRecords, voidedRecords } from './google-play-records.ts';
import { field, invalidNotification, object, parseJson, text } from './json-fields.ts';

/** The service account's key file must be one: checked when the configuration is written. */
export function checkGooglePlayConfig(config: GooglePlayConfig): FieldError[] {
  return checkServiceAccount(config.service_account_json);
}

/** The DeveloperNotification inside Pub/Sub's envelope. */
function developerNotification(body: Buffer): Record<string, unknown> {
  const message = object(field(object(parseJson(body), 'the body'), 'message'), 'message');
  const data = field(message, 'data');
  if (typeof data !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(data)) {
    throw invalidNotification('message.data is not base64 (turn off payload unwrapping on the push subscription)');
  }
  return object(parseJson(Buffer.from(data, 'base64')), 'the DeveloperNotification in message.data');
}

export const googlePlayConnector: Connector<GooglePlayConfig> = {
  provider: 'google-play',
  secretOf: (config) => config.service_account_json,
  publicView: (config) => ({
    package_name: config.package_name,
    service_account_email: serviceAccountOf(config.service_account_json).clientEmail,
    pubsub_audience: config.pubsub_audience,
    pubsub_service_account_email: config.pubsub_service_account_email,
  }),
  async receive(config: GooglePlayConfig, notification: Notification, context: ConnectorContext): Promise<Translation> {
    const expected = { audience: config.pubsub_audience, email: config.pubsub_service_account_email };
    await verifyPushToken(notification.header('authorization'), expected, context.google.keys, context.now);
    const developer = developerNotification(notification.body);
    const packageName = text(developer, 'packageName');
    if (packageName !== config.package_name) {
      // Authentic (the token verified), but for another app of the same Pub/Sub topic: acknowledged, never stored.
      return { kind: 'unused', type: 'another package', warn: `its packageName is not the configured package_name ${config.package_name}` };
    }
    const eventTime = millisOf(field(developer, 'eventTimeMillis')) ?? context.now;
    const lookup: PlayLookup = {
      play: context.google.play,
      account: serviceAccountOf(config.service_account_json),
      packageName,
      userOf: async (id) => (typeof id === 'string' && id !== '' ? context.userOfAppAccountToken(id) : undefined),
    };
    const kinds = [
      ['subscriptionNotification', subscriptionRecords],
      ['oneTimeProductNotification', oneTimeRecords],
      ['voidedPurchaseNotification', voidedRecords],
    ] as const;
    for (const [kind, translate] of kinds) {
      const found = field(developer, kind);
      if (found !== undefined) return translate(object(found, kind), eventTime, lookup);
    }
    if (field(developer, 'testNotification') !== undefined) return { kind: 'unused', type: 'testNotification' };
    return { kind: 'unused', type: 'unknown notification', warn: 'it holds no kind of notification paywalld knows' };
  },
};

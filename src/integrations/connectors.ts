import type * as v from 'valibot';
import type { FieldError } from '../shared/errors.ts';
import type { Connector } from './connector.ts';
import { appStoreConnector, checkAppStoreConfig } from './providers/app-store.ts';
import { checkGooglePlayConfig, googlePlayConnector } from './providers/google-play.ts';
import { revenueCatConnector } from './providers/revenuecat.ts';
import { stripeConnector } from './providers/stripe.ts';
import {
  type AppStoreConfig,
  AppStoreConfigSchema,
  type GooglePlayConfig,
  GooglePlayConfigSchema,
  type Provider,
  type RevenueCatConfig,
  RevenueCatConfigSchema,
  type StripeConfig,
  StripeConfigSchema,
} from './schema.ts';

interface Entry<Config> {
  connector: Connector<Config>;
  schema: v.GenericSchema<unknown, Config>;
  /** Rules beyond the schema, checked when the configuration is written. */
  check?: (config: Config) => FieldError[];
}

/** Every provider's connector and configuration schema. */
export const CONNECTORS: {
  [P in Provider]: Entry<
    P extends 'stripe' ? StripeConfig : P extends 'revenuecat' ? RevenueCatConfig : P extends 'app-store' ? AppStoreConfig : GooglePlayConfig
  >;
} = {
  stripe: { connector: stripeConnector, schema: StripeConfigSchema },
  revenuecat: { connector: revenueCatConnector, schema: RevenueCatConfigSchema },
  'app-store': { connector: appStoreConnector, schema: AppStoreConfigSchema, check: checkAppStoreConfig },
  'google-play': { connector: googlePlayConnector, schema: GooglePlayConfigSchema, check: checkGooglePlayConfig },
};

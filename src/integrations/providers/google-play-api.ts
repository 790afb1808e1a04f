/**
 * The Google Play Developer API (androidpublisher v3) calls the connector makes, as the
 * project's service account: what a subscription's purchase token is now
 * (purchases.subscriptionsv2.get), what a one-time purchase is (purchases.products.get), and
 * what an order was paid and refunded (orders.get: neither purchase resource carries a price).
 * Any failure is store_unavailable; a 401 also drops the access token it was sent with.
 */
import { AccessTokens, type ServiceAccount } from './google-auth.ts';
import type { GoogleEndpoints } from './google-endpoints.ts';
import { callGoogle, okObject } from './google-http.ts';
import { GoogleKeys } from './google-keys.ts';

export class PlayApi {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly tokens: AccessTokens,
  ) {}

  /** SubscriptionPurchaseV2 of a purchase token. */
  subscription(account: ServiceAccount, packageName: string, purchaseToken: string): Promise<Record<string, unknown>> {
    return this.get(account, [packageName, 'purchases', 'subscriptionsv2', 'tokens', purchaseToken], 'purchases.subscriptionsv2.get');
  }

  /** ProductPurchase of a one-time product's purchase token. */
  product(account: ServiceAccount, packageName: string, productId: string, purchaseToken: string): Promise<Record<string, unknown>> {
    return this.get(account, [packageName, 'purchases', 'products', productId, 'tokens', purchaseToken], 'purchases.products.get');
  }

  /** Order: what was paid (total), for what (lineItems) and what was refunded (orderHistory). */
  order(account: ServiceAccount, packageName: string, orderId: string): Promise<Record<string, unknown>> {
    return this.get(account, [packageName, 'orders', orderId], 'orders.get');
  }

  private async get(account: ServiceAccount, segments: string[], what: string): Promise<Record<string, unknown>> {
    const token = await this.tokens.token(account);
    const path = segments.map(encodeURIComponent).join('/');
    const answer = await callGoogle(
      `${this.baseUrl}/androidpublisher/v3/applications/${path}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      this.timeoutMs,
      `the Play Developer API (${what})`,
    );
    if (answer.status === 401) this.tokens.forget(account, token);
    return okObject(answer, `the Play Developer API (${what})`);
  }
}

/** What the Google Play connector calls, one set per server: the caches of keys and access tokens live as long as it. */
export interface GoogleApis {
  keys: GoogleKeys;
  play: PlayApi;
}

export function googleApis(endpoints: GoogleEndpoints): GoogleApis {
  const tokens = new AccessTokens(endpoints.tokenUrl, endpoints.timeoutMs);
  return { keys: new GoogleKeys(endpoints.jwksUrl, endpoints.timeoutMs), play: new PlayApi(endpoints.playApiUrl, endpoints.timeoutMs, tokens) };
}

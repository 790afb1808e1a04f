import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import { issuesToErrors } from '../shared/issues.ts';
import { isSealed, type SecretBox } from '../shared/secret-box.ts';
import type { Connector } from './connector.ts';
import { CONNECTORS } from './connectors.ts';
import { type Integration, isProvider, type Provider } from './schema.ts';
import type { IntegrationStore } from './store.ts';

/** What a sealed configuration is bound to: a value moved to another row does not open. */
function binding(projectId: string, provider: Provider): string {
  return `${projectId}\0${provider}`;
}

function notFound(): DomainError {
  return new DomainError('integration_not_found', 'no connector for this provider is configured in this project');
}

function fingerprint(secret: string): string {
  return `sha256:${createHash('sha256').update(secret).digest('hex').slice(0, 16)}`;
}

/** Each project's connector configurations: written whole and sealed (shared/secret-box.ts), read back without their secrets (the API and the CLI). */
export class IntegrationConfiguration {
  constructor(
    private readonly store: IntegrationStore,
    private readonly box: SecretBox,
  ) {}

  private connector(name: string): Connector<unknown> {
    if (!isProvider(name)) throw notFound();
    return CONNECTORS[name].connector as Connector<unknown>;
  }

  /** Creates or replaces the project's configuration of a provider; answers what GET shows. `change`: who, for its audit entry. */
  async configure(projectId: string, provider: string, body: unknown, change: Change): Promise<Integration> {
    this.connector(provider);
    const { schema, check } = CONNECTORS[provider as Provider];
    const parsed = v.safeParse(schema as v.GenericSchema, body);
    if (!parsed.success) {
      throw new DomainError('validation_failed', 'the configuration is invalid; see errors', { errors: issuesToErrors(parsed.issues) });
    }
    const errors = check?.(parsed.output as never) ?? [];
    if (errors.length > 0) throw new DomainError('validation_failed', 'the configuration is invalid; see errors', { errors });
    await this.store.put(
      projectId,
      provider as Provider,
      this.box.seal(binding(projectId, provider as Provider), JSON.stringify(parsed.output)),
      Date.now(),
      change,
    );
    return this.describe(projectId, provider);
  }

  /** Seals the configurations stored in plaintext by an earlier version; answers how many. Run at start; `change`: the server's, for the audit entries. */
  async sealStored(change: Change): Promise<number> {
    let sealed = 0;
    for (const { projectId, provider, config, updatedAt } of await this.store.all()) {
      if (isSealed(config)) continue;
      await this.store.put(projectId, provider, this.box.seal(binding(projectId, provider), JSON.stringify(config)), updatedAt, change);
      sealed++;
    }
    return sealed;
  }

  /** A stored configuration as written: opened when sealed, as it is when stored before sealing. */
  private opened(projectId: string, provider: Provider, stored: unknown): unknown {
    return isSealed(stored) ? JSON.parse(this.box.open(binding(projectId, provider), stored)) : stored;
  }

  /** The configuration without its secrets: a fingerprint of them, and the path the store must call. */
  async describe(projectId: string, provider: string): Promise<Integration> {
    const connector = this.connector(provider);
    const stored = await this.store.get(projectId, connector.provider);
    if (!stored) throw notFound();
    const config = this.opened(projectId, connector.provider, stored.config);
    return {
      provider: connector.provider,
      fingerprint: fingerprint(connector.secretOf(config)),
      webhook_path: `/hooks/${connector.provider}/${encodeURIComponent(projectId)}`,
      ...connector.publicView(config),
      updated_at: new Date(stored.updatedAt).toISOString(),
    };
  }

  /** The connector of a provider and the project's configuration of it; integration_not_found without one. */
  async configured(projectId: string, provider: string): Promise<{ connector: Connector<unknown>; config: unknown }> {
    const connector = this.connector(provider);
    const stored = await this.store.get(projectId, connector.provider);
    if (!stored) throw notFound();
    return { connector, config: this.opened(projectId, connector.provider, stored.config) };
  }
}

import { newEventId } from './ids.ts';
import { type ClientStorage, readJsonItem, STORAGE_PREFIX } from './storage.ts';

export const IDENTITY_KEY = `${STORAGE_PREFIX}identity`;

interface Stored {
  /** Created once, the first time the app runs without a user id. */
  anonymous_id?: string;
  /** The user the anonymous id was linked to on the server (the first link wins there). */
  linked_to?: string;
  user_id?: string;
}

export interface IdentityOptions {
  storage: ClientStorage;
  userId: string | undefined;
  /** Sends POST /api/sdk/identify; throws when the server did not take it. */
  link(anonymousId: string, userId: string): Promise<void>;
  report(error: unknown): void;
}

/**
 * Who the client's events are about: the signed-in user once known, an
 * anonymous id until then (created once, kept in storage). identify() links
 * the anonymous id to the user on the server, so that results count both as
 * one user; a link that failed is tried again at the next identify or start.
 */
export class Identity {
  private state: Stored = {};
  private loaded = false;
  readonly ready: Promise<void>;

  constructor(private readonly options: IdentityOptions) {
    this.ready = this.load();
  }

  /** The id events carry now; undefined until the storage was read. */
  current(): string | undefined {
    if (!this.loaded) return undefined;
    return this.state.user_id ?? this.state.anonymous_id;
  }

  /** Signs the user in: later events carry this id, and the anonymous id used before is linked to it. */
  async identify(userId: string): Promise<void> {
    await this.ready;
    this.state.user_id = userId;
    await this.save();
    await this.linkAnonymous();
  }

  private async load(): Promise<void> {
    // Storage that answers synchronously (localStorage, memory, a file) makes the id known before the first event.
    let read: ReturnType<ClientStorage['getItem']>;
    try {
      read = this.options.storage.getItem(IDENTITY_KEY);
    } catch {
      // As readJsonItem: a storage that cannot be read is no error for the app; the id starts afresh.
      read = null;
    }
    const stored = typeof read === 'object' && read !== null ? await readJsonItem<Stored>(this.options.storage, IDENTITY_KEY) : parse(read);
    this.state = stored ?? {};
    if (this.options.userId !== undefined) this.state.user_id = this.options.userId;
    else if (this.state.user_id === undefined && this.state.anonymous_id === undefined) this.state.anonymous_id = newEventId();
    this.loaded = true;
    await this.save();
    await this.linkAnonymous();
  }

  private async linkAnonymous(): Promise<void> {
    const { anonymous_id, user_id, linked_to } = this.state;
    if (anonymous_id === undefined || user_id === undefined || linked_to !== undefined) return;
    try {
      await this.options.link(anonymous_id, user_id);
      this.state.linked_to = user_id;
      await this.save();
    } catch (error) {
      this.options.report(error);
    }
  }

  private async save(): Promise<void> {
    try {
      await this.options.storage.setItem(IDENTITY_KEY, JSON.stringify(this.state));
    } catch (error) {
      this.options.report(error);
    }
  }
}

function parse(text: string | null | undefined): Stored | undefined {
  try {
    return typeof text === 'string' ? (JSON.parse(text) as Stored) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The identify links waiting in a writer thread: committed a group at a
 * time, whatever arrived while the previous group committed (as events
 * are: group-commit.ts), each group in one transaction of the thread's
 * own connection (IdentityStore.link), so that a flood of identify
 * requests costs one fsync per group and none on the request thread. The
 * answer, 'linked' or 'failed', goes back once the group committed: the
 * ack is durable, as for events.
 */
import type { IdentityStore } from '../../identity/store.ts';
import { describe, unavailableReason } from './failure.ts';
import type { FromWriter, ToWriter } from './protocol.ts';

/** Links per transaction at most: each costs a few statements (the sdk key's rule, the limits, the insert). */
const MAX_LINKS_PER_COMMIT = 1000;

type QueuedLink = Extract<ToWriter, { kind: 'link' }>;

export class LinkQueue {
  private readonly queue: QueuedLink[] = [];
  private committing: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<IdentityStore, 'link'>,
    private readonly send: (message: FromWriter) => void,
  ) {}

  push(message: QueuedLink): void {
    this.queue.push(message);
  }

  /** No link waits and none is being committed: the thread may close. */
  get idle(): boolean {
    return this.queue.length === 0 && this.committing === undefined;
  }

  /** Commits the links waiting, a group at a time, until none waits; never two groups at once. */
  commit(): Promise<void> {
    return (this.committing ??= this.run().finally(() => {
      this.committing = undefined;
    }));
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, MAX_LINKS_PER_COMMIT);
      const ids = group.map((link) => link.id);
      try {
        const outcomes = await this.store.link(
          group.map((link) => link.request),
          Date.now(),
        );
        this.send({ kind: 'linked', ids, outcomes });
      } catch (error) {
        this.send({ kind: 'failed', ids, error: describe(error), unavailable: unavailableReason(error) });
      }
    }
  }
}

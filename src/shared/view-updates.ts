/**
 * The updates of an in-memory view (the key registry, the live paywalls),
 * applied one at a time in the order they were asked for. A view loads from
 * its store asynchronously and serves its previous state meanwhile; run in
 * order, a full reload that read the database before this process's own
 * change cannot land after that change and undo it.
 */
export class ViewUpdates {
  private tail: Promise<unknown> = Promise.resolve();
  private queuedReload: Promise<void> | undefined;

  /** Runs `update` once every update asked for before it has finished. */
  run<T>(update: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(update);
    this.tail = result.catch(() => {});
    return result;
  }

  /** Runs a full reload; one asked for already and not started yet serves this request too (it reads after it). */
  reload(load: () => Promise<void>): Promise<void> {
    this.queuedReload ??= this.run(() => {
      this.queuedReload = undefined;
      return load();
    });
    return this.queuedReload;
  }
}

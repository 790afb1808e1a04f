/** A map of at most `capacity` entries that forgets the least recently used: the writer thread's caches of answers. */
export class Lru<K, V> {
  /** In order of use, least recent first (a Map iterates in insertion order). */
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  /** The value of `key`, which is now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Sets `key` as the most recently used; past the capacity, the least recently used is forgotten. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }
}

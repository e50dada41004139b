/**
 * A `Map` that holds at most `limit` entries: setting a new key past the limit forgets the oldest one first
 * (insertion order; setting an existing key keeps its place, as `Map` does). For caches and the replay tables
 * of idempotent requests, so memory stays bounded however many keys a long-lived process sees.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  /** Most entries held. */
  readonly limit: number;

  constructor(limit: number) {
    super();
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError(`BoundedMap limit must be a positive integer, got ${limit}`);
    this.limit = limit;
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    while (this.size > this.limit) {
      const oldest = this.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
    return this;
  }

  /** The value of `key`, moved to the newest place (least-recently-used eviction); undefined when absent. */
  touch(key: K): V | undefined {
    if (!this.has(key)) return undefined;
    const value = this.get(key) as V;
    this.delete(key);
    super.set(key, value);
    return value;
  }
}

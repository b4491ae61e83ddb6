/**
 * The latest entries set, at least `keep` of them and at most twice as many: two generations of `keep`,
 * the older dropped whole when the newer fills. A Map trimmed one oldest entry at a time (`keys().next()`
 * after each delete) skips every deleted slot before the first live one, which V8 keeps until it rehashes:
 * microseconds a call once it is full.
 */
export class Recent<K, V> {
  #current = new Map<K, V>();
  #previous = new Map<K, V>();

  constructor(private readonly keep: number) {}

  get(key: K): V | undefined {
    return this.#current.get(key) ?? this.#previous.get(key);
  }

  set(key: K, value: V): void {
    this.#previous.delete(key);
    this.#current.set(key, value);
    if (this.#current.size >= this.keep) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
  }
}

/**
 * A job checks each source text once per target language: what a check derives from a source
 * (its placeholders, numbers, URLs, ending mark) is remembered for the next language instead
 * of being scanned again. Only sources are remembered (a translation is checked once).
 *
 * Bounded by generations: when the newer map is full it becomes the older one and the oldest
 * entries go all at once (evicting one entry at a time from a Map means walking past deleted
 * slots, which costs more than the scans it saves).
 */
export class Remembered<T> {
  private newer = new Map<string, T>();
  private older = new Map<string, T>();

  constructor(private readonly limit = SOURCES_REMEMBERED) {}

  get(key: string, compute: () => T): T {
    let value = this.newer.get(key);
    if (value !== undefined) return value;
    value = this.older.get(key);
    if (value === undefined) value = compute();
    if (this.newer.size >= this.limit) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
    return value;
  }
}

/**
 * Sources remembered per derived value (up to twice as many while a generation turns): enough
 * for a slice of each of a job's languages running side by side, which work through the same
 * segments at about the same time.
 */
export const SOURCES_REMEMBERED = 2048;

/**
 * One Remembered per variant (a format, a language): a lookup then hashes the text alone,
 * whose hash the engine keeps with the string, rather than a new key string each time.
 */
export class RememberedBy<T> {
  private readonly variants = new Map<string, Remembered<T>>();

  get(variant: string, key: string, compute: () => T): T {
    let remembered = this.variants.get(variant);
    if (!remembered) this.variants.set(variant, (remembered = new Remembered<T>()));
    return remembered.get(key, compute);
  }
}

/**
 * A thin handle on the site object's SQLite storage. Domain modules take a Store and
 * return plain data, so they can be tested inside the object without HTTP.
 */
export type Row = Record<string, SqlStorageValue>;

export class Store {
  /**
   * Whether the site shares its memory with its organization, as the object last adopted it
   * (memory-share.ts reads it once per remembered translation; undefined: read from the settings).
   */
  sharesMemory?: boolean;

  /** Set when the site is erased: work still in flight (an alarm awaiting an engine) must not write again. */
  private closed = false;

  constructor(
    readonly storage: DurableObjectStorage,
    /** Injectable clock (tests cross month boundaries and time out jobs). */
    readonly clock: () => Date = () => new Date(),
  ) {}

  /** Refuses every later read and write (the site's storage was erased). */
  close() {
    this.closed = true;
  }

  private open() {
    if (this.closed) throw new Error("the site was erased");
  }

  all<T = Row>(query: string, ...args: unknown[]): T[] {
    this.open();
    const cursor = this.storage.sql.exec(query, ...(args as SqlStorageValue[]));
    // Rows read as arrays and made into objects here: the runtime's own row objects (toArray)
    // cost about twice as much per column, which a slice's or a count's reads feel.
    const names = cursor.columnNames;
    const rows: T[] = [];
    for (const values of cursor.raw()) {
      const row: Row = {};
      for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
      rows.push(row as T);
    }
    return rows;
  }

  /**
   * Rows as arrays of column values, streamed from SQLite one at a time: for scans too large
   * to hold as objects in the isolate's memory (a million segments).
   */
  rows<T extends SqlStorageValue[]>(query: string, ...args: unknown[]): IterableIterator<T> {
    this.open();
    return this.storage.sql.exec(query, ...(args as SqlStorageValue[])).raw<T>();
  }

  one<T = Row>(query: string, ...args: unknown[]): T | undefined {
    return this.all<T>(query, ...args)[0];
  }

  run(query: string, ...args: unknown[]): number {
    this.open();
    return this.storage.sql.exec(query, ...(args as SqlStorageValue[])).rowsWritten;
  }

  /** All writes in `fn` commit together or not at all. `fn` must not await. */
  tx<T>(fn: () => T): T {
    this.open();
    return this.storage.transactionSync(fn);
  }

  now(): string {
    return this.clock().toISOString();
  }

  getMeta<T>(key: string): T | undefined {
    const row = this.one<{ value: string }>("SELECT value FROM meta WHERE key = ?", key);
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  setMeta(key: string, value: unknown) {
    this.run("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, JSON.stringify(value));
  }
}

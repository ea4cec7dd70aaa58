/**
 * A thin handle on the site object's SQLite storage. Domain modules take a Store and
 * return plain data, so they can be tested inside the object without HTTP.
 */
export type Row = Record<string, SqlStorageValue>;

/** Tables whose rows decide a job's scope and estimate (jobs/scope.ts, estimateScope). */
const SCOPE_TABLES = /\b(units|segments|translations|memory)\b/i;

/**
 * Where the site's scope data stood: this Store's writes to the scope tables (SCOPE_TABLES) so
 * far, in this instance of the object. Two marks that are equal mean nothing a job's estimate
 * reads was written in between (jobs/jobs.ts, storedEstimate).
 */
export interface ScopeMark {
  instance: string;
  writes: number;
}

export class Store {
  /**
   * Whether the site shares its memory with its organization, as the object last adopted it
   * (memory/share.ts reads it once per remembered translation; undefined: read from the settings).
   */
  sharesMemory?: boolean;

  /** Set when the site is erased: work still in flight (an alarm awaiting an engine) must not write again. */
  private closed = false;
  /** This instance of the object (a restart starts a new count of writes). */
  private readonly instance = crypto.randomUUID();
  /** Statements that wrote rows and name a scope table, since this instance began (a false alarm only costs a re-estimate). */
  private scopeWrites = 0;
  /** Those of scopeWrites made by the job runner's commits (Store.asRunner). */
  private runnerWrites = 0;
  private readonly scopeStatements = new Map<string, boolean>();
  /**
   * Queued jobs whose stored estimate was taken at a mark (jobs/jobs.ts, storedEstimate): kept in
   * memory only, since a mark means nothing to another instance of the object.
   */
  readonly estimateMarks = new Map<number, ScopeMark & { sourceLanguage: string; orgVersion?: string }>();

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
    this.counted(query, cursor.rowsWritten);
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
    const written = this.storage.sql.exec(query, ...(args as SqlStorageValue[])).rowsWritten;
    this.counted(query, written);
    return written;
  }

  /** Counts a statement that wrote rows of a scope table (each distinct query is matched once). */
  private counted(query: string, written: number) {
    if (written === 0) return;
    let scope = this.scopeStatements.get(query);
    if (scope === undefined) {
      scope = SCOPE_TABLES.test(query);
      if (this.scopeStatements.size > 1_000) this.scopeStatements.clear();
      this.scopeStatements.set(query, scope);
    }
    if (scope) this.scopeWrites++;
  }

  /** Where the scope data stands now (ScopeMark). */
  scopeMark(): ScopeMark {
    return { instance: this.instance, writes: this.scopeWrites };
  }

  /** Whether nothing was written to a scope table since `mark` was taken (false after a restart). */
  unchangedSince(mark: ScopeMark | undefined): boolean {
    return mark !== undefined && mark.instance === this.instance && mark.writes === this.scopeWrites;
  }

  /**
   * Runs `fn`, one commit of the job runner (commit.ts, persist): its writes count for estimates
   * (scopeMark) like any other, but not in othersMark, since a commit writes only the rows of the
   * items it stores, which no other item of the job shares.
   */
  asRunner<T>(fn: () => T): T {
    const before = this.scopeWrites;
    try {
      return fn();
    } finally {
      this.runnerWrites += this.scopeWrites - before;
    }
  }

  /**
   * Where the scope data stands, leaving out the runner's own commits (asRunner): two equal marks
   * mean that only those commits wrote a scope table in between, so what a slice read then of an
   * item it has not stored yet (its segment, unit and translation rows) is still what is stored.
   */
  othersMark(): ScopeMark {
    return { instance: this.instance, writes: this.scopeWrites - this.runnerWrites };
  }

  /** Whether nothing but the runner's commits wrote a scope table since `mark` (othersMark) was taken (false after a restart). */
  othersUnchangedSince(mark: ScopeMark | undefined): boolean {
    return mark !== undefined && mark.instance === this.instance && mark.writes === this.scopeWrites - this.runnerWrites;
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

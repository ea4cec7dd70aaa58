/**
 * OrgMemoryObject: one Durable Object per organization (`getByName("org:<org_id>")`, see
 * stub.ts), holding what its sharing sites put in their memories (docs/decisions.md "How
 * sharing works"). Each entry is kept per contributing site, so erasing a site or turning its
 * sharing off removes exactly what it brought; a reader takes the newest entry of another site.
 *
 * Writes come from the sites' alarms (at least once, in bulk): applying the same changes twice
 * leaves the same rows. Reads are one statement per call, keyed by the caller's fingerprints.
 */
import { DurableObject } from "cloudflare:workers";

/** One change of a site's memory as the site sends it: `text` null means the entry is gone. */
export interface SharedChange {
  source_language: string;
  source_fingerprint: string;
  target_language: string;
  text: string | null;
  origin: string;
  updated_at: string;
}

/** An exact match from the organization's memory: [source language, fingerprint, text, origin]. */
export type SharedHit = [sourceLanguage: string, fingerprint: string, text: string, origin: string];

/** Languages are stored lowercased, as the site's memory stores them. */
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS entries (
     source_fingerprint TEXT NOT NULL,
     source_language TEXT NOT NULL,
     target_language TEXT NOT NULL,
     site_id INTEGER NOT NULL,
     text TEXT NOT NULL,
     origin TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     PRIMARY KEY (source_fingerprint, source_language, target_language, site_id)
   ) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS entries_site ON entries (site_id)",
  // Sites erased: a copy still in flight from one of them (its alarm ran as it was erased) is refused.
  "CREATE TABLE IF NOT EXISTS erased_sites (site_id INTEGER PRIMARY KEY)",
];

export class OrgMemoryObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** This instance of the object (a restart starts a new count of writes: its versions never repeat an earlier one's). */
  private readonly instance = crypto.randomUUID();
  /** Calls that changed the entries, since this instance began. */
  private writes = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      for (const statement of SCHEMA) this.sql.exec(statement);
    });
  }

  /**
   * Applies a site's changes in one transaction: entries stored or replaced, entries whose
   * text is null removed. Answers how many rows were written (0 for an erased site).
   */
  async share(siteId: number, changes: SharedChange[]): Promise<number> {
    if (this.sql.exec("SELECT 1 FROM erased_sites WHERE site_id = ?", siteId).toArray().length) return 0;
    const stored = changes.filter((c) => c.text !== null);
    const gone = changes.filter((c) => c.text === null);
    const written = this.ctx.storage.transactionSync(() => {
      let written = 0;
      if (stored.length)
        written += this.sql.exec(
          `INSERT INTO entries (source_fingerprint, source_language, target_language, site_id, text, origin, updated_at)
           SELECT c.value ->> 'source_fingerprint', lower(c.value ->> 'source_language'), lower(c.value ->> 'target_language'), ?2,
             c.value ->> 'text', c.value ->> 'origin', c.value ->> 'updated_at'
           FROM json_each(?1) c WHERE true
           ON CONFLICT (source_fingerprint, source_language, target_language, site_id)
           DO UPDATE SET text = excluded.text, origin = excluded.origin, updated_at = excluded.updated_at`,
          JSON.stringify(stored),
          siteId,
        ).rowsWritten;
      if (gone.length)
        written += this.sql.exec(
          `DELETE FROM entries WHERE site_id = ?2 AND (source_fingerprint, source_language, target_language) IN
             (SELECT c.value ->> 'source_fingerprint', lower(c.value ->> 'source_language'), lower(c.value ->> 'target_language') FROM json_each(?1) c)`,
          JSON.stringify(gone),
          siteId,
        ).rowsWritten;
      return written;
    });
    if (written) this.writes++;
    return written;
  }

  /**
   * Where the entries stand: equal answers mean nothing was written in between (an estimate
   * taken at one version holds at the other; the site's job start, jobs.ts storedEstimate).
   */
  async version(): Promise<string> {
    return `${this.instance}:${this.writes}`;
  }

  /**
   * Exact matches into `targetLanguage` for the given (source language, fingerprint) pairs,
   * from sites other than `siteId` (a site's own memory is read in the site, and wins): per
   * pair, the newest entry.
   */
  async lookup(siteId: number, targetLanguage: string, keys: [sourceLanguage: string, fingerprint: string][]): Promise<SharedHit[]> {
    if (!keys.length) return [];
    const rows = this.sql
      .exec<{ source_language: string; source_fingerprint: string; text: string; origin: string }>(
        `SELECT e.source_language, e.source_fingerprint, e.text, e.origin
         FROM json_each(?1) k JOIN entries e ON e.source_fingerprint = k.value ->> 1 AND e.source_language = lower(k.value ->> 0)
           AND e.target_language = lower(?2) AND e.site_id <> ?3
         ORDER BY e.updated_at, e.site_id`,
        JSON.stringify(keys),
        targetLanguage,
        siteId,
      )
      .toArray();
    // Ordered oldest first: the newest entry of each pair is the one left in the map.
    const newest = new Map<string, SharedHit>();
    for (const r of rows) newest.set(`${r.source_language}\u0000${r.source_fingerprint}`, [r.source_language, r.source_fingerprint, r.text, r.origin]);
    return [...newest.values()];
  }

  /**
   * For an estimate: which of `targetLanguages` (lowercased) the memory holds, from sites other
   * than `siteId`, for each of the given pairs: [source language, fingerprint, target language].
   */
  async targets(siteId: number, targetLanguages: string[], keys: [sourceLanguage: string, fingerprint: string][]): Promise<[string, string, string][]> {
    if (!keys.length || !targetLanguages.length) return [];
    return [
      ...this.sql
        .exec(
          `SELECT DISTINCT e.source_language, e.source_fingerprint, e.target_language
         FROM json_each(?1) k JOIN entries e ON e.source_fingerprint = k.value ->> 1 AND e.source_language = lower(k.value ->> 0)
         WHERE e.site_id <> ?3 AND e.target_language IN (SELECT lower(value) FROM json_each(?2))`,
          JSON.stringify(keys),
          JSON.stringify(targetLanguages),
          siteId,
        )
        .raw<[string, string, string]>(),
    ];
  }

  /** Whether the memory holds anything another site than `siteId` put there (an estimate skips its look-ups otherwise). */
  async holdsOthers(siteId: number): Promise<boolean> {
    return this.sql.exec("SELECT 1 FROM entries WHERE site_id <> ? LIMIT 1", siteId).toArray().length > 0;
  }

  /** How many entries each site contributed (tests, the operator's questions). */
  async entriesBySite(): Promise<Record<number, number>> {
    const out: Record<number, number> = {};
    for (const [site, n] of this.sql.exec("SELECT site_id, count(*) FROM entries GROUP BY site_id").raw<[number, number]>()) out[site] = n;
    return out;
  }

  /**
   * Removes a site's entries: its sharing was turned off, or it was erased (`erased`: later
   * copies from it are refused too, so a copy in flight cannot bring them back).
   */
  async removeSite(siteId: number, erased = false): Promise<void> {
    this.writes++;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM entries WHERE site_id = ?", siteId);
      if (erased) this.sql.exec("INSERT OR IGNORE INTO erased_sites (site_id) VALUES (?)", siteId);
    });
  }

  /** The organization is erased: all storage goes (the object starts empty if it is ever addressed again). */
  async erase(): Promise<void> {
    this.writes++;
    await this.ctx.storage.deleteAll();
    // This instance may still be asked (a copy in flight): it answers from empty tables.
    for (const statement of SCHEMA) this.sql.exec(statement);
  }
}

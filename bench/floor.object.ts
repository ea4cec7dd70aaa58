/**
 * FloorObject: the floor the bench compares against. A Durable Object with SQLite storage
 * like SiteObject, holding only copies of the site's `segments` and `results` tables (same
 * DDL and indexes, taken from the site migrations) and doing nothing but inserting rows with
 * `ctx.storage.sql.exec` inside `ctx.storage.transactionSync`: the least any implementation
 * of a push or of a job's writes has to do.
 *
 * Rows are staged first (an untimed call) so the timed call is the inserts alone; the HTTP
 * floor (`insertBatch`) instead takes the same request body as PUT /v1/units/batch. Two
 * breakdown figures (INSERT … RETURNING, hashing) show what part of a push's cost is which.
 */
import { DurableObject } from "cloudflare:workers";
import { setImmediate } from "node:timers";
import site from "../migrations/site/migrations.js";
import { fingerprint } from "../src/site/fingerprint";
import { nextTurn } from "../src/site/turn";
import { batchBody, segmentText } from "./data.mjs";
import type { BatchSpec } from "./site.object";

/**
 * The site migrations' statements that create `table`, add its columns and make its indexes, in
 * order (an index a later migration replaces is dropped and made again; a partial index may name
 * a column added later), made idempotent: an object may wake again (ADD COLUMN runs only where
 * the column is missing, see FloorObject's constructor).
 */
function ddlFor(table: string): string[] {
  const indexes = new Set<string>();
  const out: string[] = [];
  for (const migration of Object.values(site.migrations) as string[])
    for (const statement of migration.split("--> statement-breakpoint").map((s) => s.replace(/^(\s*--.*\n)+/, "").trim())) {
      const index = /^CREATE INDEX `(\w+)` ON `(\w+)`/.exec(statement);
      const dropped = /^DROP INDEX `(\w+)`/.exec(statement);
      if (statement.startsWith(`ALTER TABLE \`${table}\` ADD `)) out.push(statement);
      else if (statement.startsWith(`CREATE TABLE \`${table}\``)) out.push(statement.replace(/^CREATE TABLE /, "CREATE TABLE IF NOT EXISTS "));
      else if (index?.[2] === table) {
        indexes.add(index[1]);
        out.push(statement.replace(/^CREATE INDEX /, "CREATE INDEX IF NOT EXISTS "));
      } else if (dropped && indexes.has(dropped[1])) out.push(statement.replace(/^DROP INDEX /, "DROP INDEX IF EXISTS "));
    }
  return out;
}

/** A batch's segment rows as pushUnit stores them (unit ids 1…n, fingerprints computed). */
function segmentRows(units: BatchUnit[]): SegmentRow[] {
  const rows: SegmentRow[] = [];
  units.forEach((unit, u) => unit.segments.forEach((s, i) => rows.push([u + 1, s.key, s.text, fingerprint(s.text), s.format ?? "plain", s.position ?? i])));
  return rows;
}

type SegmentRow = [unitId: number, key: string, text: string, fingerprint: string, format: string, position: number];
type ResultRow = [segmentId: number, unitId: number, language: string, text: string, fingerprint: string];

interface BatchUnit {
  segments: { key: string; text: string; format?: string; position?: number | null }[];
}

const INSERT_SEGMENT = `INSERT INTO segments (unit_id, key, text, fingerprint, format, field, kind, max_length, position, parent_key)
  VALUES (?, ?, ?, ?, ?, NULL, NULL, NULL, ?, NULL)`;
const INSERT_RESULT = `INSERT INTO results (segment_id, unit_id, language, text, source_fingerprint, origin, engine, job_id, qa, created_at, pending)
  VALUES (?, ?, ?, ?, ?, 'mt', 'pseudo', 1, '[]', ?, 1)`;

/** The waits scenario 0 compares: a settled promise, the runner's own turn (Invocation.turn's `nextTurn`) and two other timers. */
const TURNS = {
  settled: () => Promise.resolve(),
  wait: nextTurn,
  timeout: () => new Promise<void>((resolve) => setTimeout(resolve, 0)),
  immediate: () => new Promise<void>((resolve) => setImmediate(resolve)),
};
export type TurnKind = keyof typeof TURNS;

let resultRows: { key: string; rows: ResultRow[] } | undefined;

export class FloorObject extends DurableObject<Env> {
  private staged: { segments: SegmentRow[]; results: ResultRow[] } = { segments: [], results: [] };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      for (const statement of [...ddlFor("segments"), ...ddlFor("results")]) {
        const added = /^ALTER TABLE `(\w+)` ADD `(\w+)`/.exec(statement);
        if (added && ctx.storage.sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", added[1], added[2]).toArray().length) continue;
        ctx.storage.sql.exec(statement);
      }
    });
  }

  /**
   * Scenario 0: `n` rounds of `spin` iterations of a busy loop (100,000 are about 1 ms here),
   * each followed by one wait of `kind`: what a turn of the event loop costs the runner
   * (Invocation.turn) and, with a ping sent meanwhile, whether the wait lets a request in.
   */
  async turns(kind: TurnKind, n: number, spin: number): Promise<number> {
    let x = 0;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < spin; k++) x = (x * 31 + k) % 1_000_003;
      await TURNS[kind]();
    }
    return x;
  }

  /** Wakes the object (constructor and schema) outside the timed call. */
  async ping(): Promise<number> {
    return this.ctx.storage.sql.exec("SELECT count(*) AS n FROM segments").one().n as number;
  }

  /** The HTTP floor: a batch body's segments, hashed and inserted in one transaction. */
  async insertBatch(units: BatchUnit[]): Promise<number> {
    return this.insertSegments(segmentRows(units));
  }

  /** Stages the segment rows (fingerprints included) of a batch made as in PUT /v1/units/batch, for `insertStaged`. */
  async stageBatch(batch: BatchSpec): Promise<number> {
    this.staged.segments = segmentRows(batchBody(batch.prefix, batch.units, batch.segmentsPerUnit).units);
    return this.staged.segments.length;
  }

  /** The insert floor: the staged segment rows in one transaction (`returning`: each INSERT … RETURNING id, read back, as pushUnit does). */
  async insertStaged(returning = false): Promise<number> {
    return this.insertSegments(this.staged.segments, returning);
  }

  /** The fingerprints of the staged texts, computed again (what hashing a batch costs in the object). */
  async hashStaged(): Promise<number> {
    let n = 0;
    for (const row of this.staged.segments) n += fingerprint(row[2]).length;
    return n;
  }

  /** Stages `segments × languages.length` result rows like the ones a job writes. */
  async stageResults(segments: number, languages: string[]): Promise<number> {
    const key = JSON.stringify([segments, languages]);
    if (resultRows?.key !== key) {
      // Made once per isolate and shared by the floor objects (they only read it).
      const rows: ResultRow[] = [];
      for (const language of languages)
        for (let s = 0; s < segments; s++) {
          const text = segmentText(Math.floor(s / 50), s % 50).replace(/e/g, "é");
          rows.push([s + 1, Math.floor(s / 50) + 1, language, text, fingerprint(text)]);
        }
      resultRows = { key, rows };
    }
    this.staged.results = resultRows.rows;
    return this.staged.results.length;
  }

  /**
   * The staged result rows, in one transaction, or in transactions of `slice` rows (as a job
   * commits); with `turns`, a turn of the event loop after each (as a job that lets requests in
   * between its commits must: each turn also commits the storage's implicit transaction, which
   * writes every page the rows touched since the last one).
   */
  async insertResults(slice = Number.MAX_SAFE_INTEGER, turns = false): Promise<number> {
    const rows = this.staged.results;
    const now = new Date().toISOString();
    for (let start = 0; start < rows.length; start += slice) {
      this.ctx.storage.transactionSync(() => {
        for (const row of rows.slice(start, start + slice)) this.ctx.storage.sql.exec(INSERT_RESULT, ...row, now);
      });
      if (turns) await scheduler.wait(0);
    }
    return rows.length;
  }

  private insertSegments(rows: SegmentRow[], returning = false): number {
    const sql = this.ctx.storage.sql;
    this.ctx.storage.transactionSync(() => {
      if (returning) for (const row of rows) sql.exec(`${INSERT_SEGMENT} RETURNING id`, ...row).toArray();
      else for (const row of rows) sql.exec(INSERT_SEGMENT, ...row);
    });
    return rows.length;
  }
}

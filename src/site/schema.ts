/**
 * One site's data plane, in its Durable Object's SQLite storage. Migrations are generated
 * into migrations/site/ by drizzle-kit (`npm run db:generate`) and applied in the object's
 * constructor.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Small named values: the site's settings as last seen, the latest handshake, sequences. */
export const meta = sqliteTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/**
 * Timed work of the site object (src/site/alarms/scheduler.ts): one row per need (job work, retention,
 * and what comes: webhooks, digests, the memory index) with the time it is next due. The
 * object's one alarm is set to the earliest; `version` changes with every registration, so a
 * registration made while the need runs is never lost by what the run answers.
 */
export const alarms = sqliteTable("alarms", {
  need: text("need").primaryKey(),
  /** Milliseconds since the epoch. */
  dueAt: integer("due_at").notNull(),
  version: integer("version").notNull().default(0),
});

/**
 * The organization's glossary as this site last loaded it from D1 (reloaded when the glossary
 * changes, and at least every few minutes): QA of human text and the status count read it
 * here, so those requests never touch D1.
 */
export const glossary = sqliteTable(
  "glossary",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Lowercased target language. */
    language: text("language").notNull(),
    source: text("source").notNull(),
    target: text("target").notNull(),
    caseSensitive: integer("case_sensitive").notNull().default(0),
  },
  (t) => [index("glossary_language").on(t.language)],
);

export const units = sqliteTable(
  "units",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    externalKey: text("external_key").notNull().unique(),
    adapter: text("adapter").notNull(),
    label: text("label"),
    path: text("path"),
    sourceLanguage: text("source_language"),
    /** JSON array of language codes, or null for all of the site's target languages. */
    writableLanguages: text("writable_languages"),
    metadata: text("metadata"),
    lastSyncedAt: text("last_synced_at"),
    deleted: integer("deleted").notNull().default(0),
    /** When the unit was deleted; 30 days later retention purges it (src/site/results/retention.ts). */
    deletedAt: text("deleted_at"),
    /** Live segments, maintained with the unit's counts. */
    segmentCount: integer("segment_count").notNull().default(0),
    /** 1 while some live segment is not ok in some target language (GET /v1/units). */
    needsWork: integer("needs_work").notNull().default(0),
    /** 1 while the unit is included in the site totals (site_counts language ''). */
    counted: integer("counted").notNull().default(0),
    /**
     * SHA-256 of the batch snapshot last applied (as JSON), null when it imported translations
     * or came another way: the same snapshot again is answered without reading its segments.
     */
    snapshotDigest: text("snapshot_digest"),
    /** The last push's fingerprint_mismatches (JSON), answered again with the digest. */
    snapshotMismatches: text("snapshot_mismatches"),
    /**
     * The site's change sequence (src/site/change-seq.ts) when the unit was last restored or its
     * writable languages changed: a job created before that leaves the unit to the next job.
     */
    seq: integer("seq").notNull().default(0),
  },
  (t) => [index("units_work").on(t.externalKey).where(sql`needs_work = 1 AND deleted = 0`), index("units_deleted").on(t.deletedAt).where(sql`deleted = 1`)],
);

export const segments = sqliteTable(
  "segments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    unitId: integer("unit_id").notNull(),
    key: text("key").notNull(),
    text: text("text").notNull(),
    fingerprint: text("fingerprint").notNull(),
    /** The text's length in Unicode code points, computed once at push: what estimates and bills count. */
    characters: integer("characters").notNull().default(0),
    format: text("format").notNull(),
    field: text("field"),
    kind: text("kind"),
    maxLength: integer("max_length"),
    position: integer("position").notNull(),
    parentKey: text("parent_key"),
    /** 1 while the key is absent from the latest snapshot; it comes back with its translations. */
    removed: integer("removed").notNull().default(0),
    /**
     * The site's change sequence (src/site/change-seq.ts) when the segment was added, came back
     * from removed or its text got longer: a job created before that leaves it to the next job.
     */
    seq: integer("seq").notNull().default(0),
  },
  (t) => [index("segments_unit_key").on(t.unitId, t.key), index("segments_fingerprint").on(t.fingerprint)],
);

/**
 * The current translation of a segment in one language. `status` is what was decided
 * (review, attention, ok, missing); whether it is stale is computed from `source_fingerprint`.
 */
export const translations = sqliteTable(
  "translations",
  {
    segmentId: integer("segment_id").notNull(),
    language: text("language").notNull(),
    text: text("text"),
    sourceFingerprint: text("source_fingerprint").notNull(),
    status: text("status").notNull(),
    origin: text("origin"),
    engine: text("engine"),
    /** The result that produced it (null for imports). */
    resultId: integer("result_id"),
    qa: text("qa"),
    updatedAt: text("updated_at").notNull(),
    /**
     * The site's change sequence (src/site/change-seq.ts) when the translation last turned into
     * work (current until its source text changed, or rejected): a job created before that
     * leaves the pair to the next job.
     */
    seq: integer("seq").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.segmentId, t.language] })],
);

/** Every generated version of a translation, as delivered through GET /v1/results. */
export const results = sqliteTable(
  "results",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    segmentId: integer("segment_id").notNull(),
    unitId: integer("unit_id").notNull(),
    language: text("language").notNull(),
    text: text("text").notNull(),
    sourceFingerprint: text("source_fingerprint").notNull(),
    origin: text("origin").notNull(),
    engine: text("engine").notNull(),
    jobId: integer("job_id"),
    qa: text("qa").notNull().default("[]"),
    createdAt: text("created_at").notNull(),
    /** 1 while waiting to be pulled: current, in review, not acknowledged. */
    pending: integer("pending").notNull().default(0),
    acknowledged: integer("acknowledged").notNull().default(0),
    superseded: integer("superseded").notNull().default(0),
    /** 1 while held back by QA errors (state attention), waiting for a decision. */
    held: integer("held").notNull().default(0),
    /**
     * 1 when another segment had the same source text as the job loaded this one: only such a
     * result can be reused later in its job, so only such results are in results_job_text.
     */
    repeated: integer("repeated").notNull().default(0),
  },
  (t) => [
    index("results_pending").on(t.id).where(sql`pending = 1`),
    index("results_pending_unit").on(t.unitId, t.language, t.id).where(sql`pending = 1`),
    index("results_held").on(t.id).where(sql`held = 1`),
    // retention: superseded results are purged 30 days after the newer one replaced them
    index("results_superseded").on(t.id).where(sql`superseded = 1`),
    index("results_segment").on(t.segmentId, t.language),
    // in-job reuse: a text repeated within a job is translated once. Keyed by the fingerprint's first 8 hex digits (the
    // look-up checks the whole one): fingerprints are random, so each commit's entries land on pages all over the index,
    // and every commit of a job writes each page it touched again; a key a quarter as long touches a third of the pages.
    // Only results of repeated texts are entered (most texts of a site are unique: their results skip the index).
    index("results_job_text").on(t.jobId, t.language, sql`substr(${t.sourceFingerprint}, 1, 8)`).where(sql`repeated = 1`),
  ],
);

/** Per unit and target language counts, maintained on every change (status reads never scan segments). */
export const unitCounts = sqliteTable(
  "unit_counts",
  {
    unitId: integer("unit_id").notNull(),
    language: text("language").notNull(),
    unitKey: text("unit_key").notNull(),
    total: integer("total").notNull(),
    ok: integer("ok").notNull(),
    stale: integer("stale").notNull(),
    review: integer("review").notNull(),
    attention: integer("attention").notNull(),
  },
  (t) => [primaryKey({ columns: [t.unitId, t.language] }), index("unit_counts_key").on(t.unitKey), index("unit_counts_work").on(t.language, t.unitKey).where(sql`total > ok`)],
);

/** The sums of unit_counts per language, and totals under language '' (total = segments, ok = units). */
export const siteCounts = sqliteTable("site_counts", {
  language: text("language").primaryKey(),
  total: integer("total").notNull().default(0),
  ok: integer("ok").notNull().default(0),
  stale: integer("stale").notNull().default(0),
  review: integer("review").notNull().default(0),
  attention: integer("attention").notNull().default(0),
});

/**
 * site_counts per key type (`post:` of `post:42`, the part up to the first colon): what
 * `GET /v1/status?prefix=post:` reads, so it costs the same on a site of any size.
 */
export const prefixCounts = sqliteTable(
  "prefix_counts",
  {
    prefix: text("prefix").notNull(),
    language: text("language").notNull(),
    total: integer("total").notNull().default(0),
    ok: integer("ok").notNull().default(0),
    stale: integer("stale").notNull().default(0),
    review: integer("review").notNull().default(0),
    attention: integer("attention").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.prefix, t.language] })],
);

export const jobs = sqliteTable(
  "jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    type: text("type").notNull(),
    status: text("status").notNull(),
    /** The job request as accepted (languages, units, prefix, force), JSON. */
    request: text("request").notNull(),
    languages: text("languages").notNull(),
    estimatedSegments: integer("estimated_segments").notNull().default(0),
    estimatedCharacters: integer("estimated_characters").notNull().default(0),
    estimatedTmSegments: integer("estimated_tm_segments").notNull().default(0),
    confirmedCharacters: integer("confirmed_characters"),
    doneSegments: integer("done_segments").notNull().default(0),
    failedSegments: integer("failed_segments").notNull().default(0),
    characters: integer("characters").notNull().default(0),
    qaFailedSegments: integer("qa_failed_segments").notNull().default(0),
    tmSegments: integer("tm_segments").notNull().default(0),
    tmCharacters: integer("tm_characters").notNull().default(0),
    reusedSegments: integer("reused_segments").notNull().default(0),
    reusedCharacters: integer("reused_characters").notNull().default(0),
    errors: text("errors").notNull().default("[]"),
    /** Commits of progress made; the next commit's number keys its usage-ledger entry. */
    slices: integer("slices").notNull().default(0),
    /**
     * While a started job's items are still being fixed (in chunks, across alarm invocations):
     * the highest segment id covered so far. Null once the whole scope is fixed.
     */
    scopeCursor: integer("scope_cursor"),
    /**
     * The site's change sequence when the job's estimate was taken (src/site/change-seq.ts): its
     * scope is the work that existed then. Null for jobs created before migration 0010.
     */
    watermark: integer("watermark"),
    createdAt: text("created_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
    /** Why the service's operator (or a restore) cancelled the job, as the customer sees it; null otherwise. */
    cancelReason: text("cancel_reason"),
  },
  (t) => [index("jobs_active").on(t.id).where(sql`status IN ('queued', 'running')`)],
);

/**
 * A running job's scope, fixed when it starts: one row per (segment, language) still to do.
 * A slice deletes the rows it finished or failed (the job's counters keep the tally), so the
 * table holds only pending work and a slice reads its items from the start of its language's
 * key range. WITHOUT ROWID (migration 0004; drizzle cannot say so): the key is the row, one
 * b-tree to write per item instead of a table, its key and an index.
 */
export const jobItems = sqliteTable(
  "job_items",
  {
    jobId: integer("job_id").notNull(),
    language: text("language").notNull(),
    segmentId: integer("segment_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.language, t.segmentId] })],
);

/** Exact-match translation memory: reviewed texts only (approvals, imports, fixes). */
export const memory = sqliteTable(
  "memory",
  {
    sourceFingerprint: text("source_fingerprint").notNull(),
    sourceLanguage: text("source_language").notNull(),
    targetLanguage: text("target_language").notNull(),
    text: text("text").notNull(),
    origin: text("origin").notNull(),
    updatedAt: text("updated_at").notNull(),
    /**
     * The source text as pushed (null for entries written before migration 0006 until the
     * back-fill finds their text among the segments). Indexed by `memory_fts` (FTS5, trigram;
     * rowid = this table's rowid, kept in step by triggers: migrations/site/0006) for fuzzy matches.
     */
    sourceText: text("source_text"),
  },
  (t) => [primaryKey({ columns: [t.sourceFingerprint, t.sourceLanguage, t.targetLanguage] })],
);

/**
 * Usage-ledger rows of stored commits not yet written to D1 (commit.ts, persist; ledger.ts). A
 * commit adds its row in its own transaction, so the work it stores is metered exactly once
 * whatever happens after: the row is written to D1 (an upsert keyed by job and commit number)
 * and then removed, by the running invocation, the next one, or the job's settle step.
 */
export const ledgerOutbox = sqliteTable(
  "ledger_outbox",
  {
    jobId: integer("job_id").notNull(),
    /** The commit's number (jobs.slices once it landed): the ledger row's `slice`. */
    n: integer("n").notNull(),
    characters: integer("characters").notNull(),
    /** First day of the UTC month the commit was stored in, `YYYY-MM-01`. */
    month: text("month").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.n] })],
);

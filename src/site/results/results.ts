/**
 * Delivery: GET /v1/results (at least once, keyset pages), acknowledgements, editors'
 * reviews, and the attention queue of translations held back by QA errors.
 */
import type { AttentionDecision } from "../../api/admin.schemas";
import type { Result, Review } from "../../api/schemas";
import type { SiteSettings } from "../../control/sites.control";
import { ApiError } from "../../errors";
import type { Format } from "../../limits";
import { type QAIssue, runQA } from "../../qa";
import { CHANGE_SEQ } from "../change-seq";
import { decodeCursor, encodeCursor, isNumber } from "../cursor";
import { glossaryFor } from "../jobs/glossary-copy";
import { rememberTranslation } from "../memory/entries";
import { parseResultId, resultId } from "../result-id";
import { capabilities, siteTargets } from "../settings";
import { stateSql } from "../state";
import type { Store } from "../store";
import { refreshUnits } from "../sync/counts";
import { attentionUrl, type Links } from "../sync/status";

export { parseResultId, resultId } from "../result-id";

/**
 * Result ids are opaque `r_<n>`; each site's sequence starts at site id × 10⁹ so that an id
 * from one site never names a result of another.
 */
export function seedResultSequence(store: Store, siteId: number) {
  const seeded = store.one("SELECT 1 AS x FROM sqlite_sequence WHERE name = 'results'");
  if (!seeded) store.run("INSERT INTO sqlite_sequence (name, seq) VALUES ('results', ?)", siteId * 1_000_000_000);
}

interface ResultRow {
  id: number;
  unit_id: number;
  unit: string;
  key: string;
  language: string;
  text: string;
  format: string;
  source_fingerprint: string;
  origin: string;
  engine: string;
  job_id: number | null;
  qa: string;
}

const RESULT_COLUMNS = `r.id, r.unit_id, u.external_key AS unit, s.key, r.language, r.text, s.format, r.source_fingerprint, r.origin, r.engine, r.job_id, r.qa`;

/** Issues a connector is shown: warnings always; errors only when it declared `qa_errors` in editors mode (otherwise such results are held back). */
function toResult(row: ResultRow): Result {
  return {
    id: resultId(row.id),
    unit: row.unit,
    key: row.key,
    language: row.language,
    text: row.text,
    format: row.format,
    source_fingerprint: row.source_fingerprint,
    origin: row.origin,
    engine: row.engine,
    job_id: row.job_id,
    qa: JSON.parse(row.qa),
  };
}

type Position = [number, string, number];
const isPosition = (v: unknown): v is Position => Array.isArray(v) && v.length === 3 && isNumber(v[0]) && typeof v[1] === "string" && isNumber(v[2]);

/** Deliverable: its segment and unit are live, its source is current, and its language is still a target of the unit (over `results r`, `segments s`, `units u`). */
export const DELIVERABLE = `r.pending = 1 AND s.removed = 0 AND u.deleted = 0 AND s.fingerprint = r.source_fingerprint
    AND EXISTS (SELECT 1 FROM unit_counts t WHERE t.unit_id = r.unit_id AND t.language = r.language)`;

export function listResults(store: Store, query: { cursor?: string; limit: number; unit?: string }, wholeUnit: boolean) {
  const unitId = query.unit ? store.one<{ id: number }>("SELECT id FROM units WHERE external_key = ?", query.unit)?.id : undefined;
  if (query.unit && unitId === undefined) return { results: [], next_cursor: null };
  const live = DELIVERABLE;
  const from = `FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id`;

  if (!wholeUnit) {
    const after = query.cursor ? (decodeCursor(query.cursor, isNumber) ?? 0) : 0;
    const rows = store.all<ResultRow>(
      `SELECT ${RESULT_COLUMNS} ${from} WHERE ${live} AND r.id > ?1 ${unitId !== undefined ? "AND r.unit_id = ?3" : ""} ORDER BY r.id LIMIT ?2`,
      after,
      query.limit + 1,
      ...(unitId !== undefined ? [unitId] : []),
    );
    const page = rows.slice(0, query.limit);
    return { results: page.map(toResult), next_cursor: rows.length > query.limit ? encodeCursor(page[page.length - 1].id) : null };
  }

  // whole_unit: a unit's results in one language are listed only once every segment of it
  // needing work there has a result (no missing, stale or held-back segment), and a page
  // never splits such a group.
  const after: Position = decodeCursor(query.cursor, isPosition) ?? [0, "", 0];
  const select = (limit: number, pos: Position, onlyGroup = false) =>
    store.all<ResultRow>(
      `SELECT ${RESULT_COLUMNS} ${from}
       JOIN unit_counts c ON c.unit_id = r.unit_id AND c.language = r.language AND c.total = c.ok + c.review
       WHERE ${live} AND ${onlyGroup ? "r.unit_id = ?1 AND r.language = ?2 AND r.id > ?3" : "(r.unit_id, r.language, r.id) > (?1, ?2, ?3)"}
       ${unitId !== undefined ? "AND r.unit_id = ?5" : ""}
       ORDER BY r.unit_id, r.language, r.id LIMIT ?4`,
      ...pos,
      limit,
      ...(unitId !== undefined ? [unitId] : []),
    );
  let rows = select(query.limit + 1, after);
  const more = rows.length > query.limit;
  if (more) {
    const extra = rows[query.limit];
    const inGroup = (r: ResultRow) => r.unit_id === extra.unit_id && r.language === extra.language;
    if (inGroup(rows[0])) {
      // A single group larger than a page is delivered whole.
      rows = select(Number.MAX_SAFE_INTEGER, [rows[0].unit_id, rows[0].language, rows[0].id - 1], true);
    } else rows = rows.slice(0, query.limit).filter((r) => !inGroup(r));
  }
  const last = rows[rows.length - 1];
  const rest = more && last ? select(1, [last.unit_id, last.language, last.id]).length > 0 : false;
  return { results: rows.map(toResult), next_cursor: rest ? encodeCursor([last.unit_id, last.language, last.id] satisfies Position) : null };
}

/** Marks current results acknowledged; `acknowledged` counts the ids that are current results (before or now). */
export function acknowledge(store: Store, ids: string[]): { acknowledged: number } {
  const numbers = [...new Set(ids.map(parseResultId).filter((n): n is number => n !== undefined))];
  if (!numbers.length) return { acknowledged: 0 };
  return store.tx(() => {
    const current = store.all<{ id: number }>("SELECT r.id FROM json_each(?) j JOIN results r ON r.id = j.value WHERE r.superseded = 0 AND r.held = 0", JSON.stringify(numbers));
    store.run(
      "UPDATE results SET acknowledged = 1, pending = 0 WHERE id IN (SELECT value FROM json_each(?)) AND superseded = 0 AND held = 0",
      JSON.stringify(current.map((r) => r.id)),
    );
    return { acknowledged: current.length };
  });
}

interface WaitingRow extends SourceOf {
  id: number;
  segment_id: number;
  unit_id: number;
  language: string;
  text: string;
  fingerprint: string;
  state: string;
}

/** What QA needs to know of a segment's source. */
interface SourceOf {
  source_text: string;
  format: Format;
  max_length: number | null;
  source_language: string | null;
}

/**
 * QA of human text (an edited approval, a fix from the review queue): its findings are shown
 * on the unit's status but never hold the text back (docs/decisions.md "Results, reviews and the review queue").
 */
function humanQA(store: Store, settings: SiteSettings, source: SourceOf, language: string, text: string): string {
  return JSON.stringify(
    runQA({
      source: source.source_text,
      target: text,
      format: source.format,
      maxLength: source.max_length,
      sourceLanguage: source.source_language ?? settings.sourceLanguage,
      targetLanguage: language,
      glossary: glossaryFor(store, language),
    }),
  );
}

/** POST /v1/reviews: applies to current results waiting for review (state review, acknowledged or not). */
export function applyReviews(store: Store, settings: SiteSettings, reviews: Review[]): { updated: number; ignored: string[] } {
  const targets = siteTargets(settings);
  return store.tx(() => {
    const ignored: string[] = [];
    const touched: number[] = [];
    for (const review of reviews) {
      const n = parseResultId(review.id);
      const row =
        n === undefined
          ? undefined
          : store.one<WaitingRow>(
              `SELECT r.id, r.segment_id, r.unit_id, r.language, t.text, s.fingerprint, u.source_language, ${stateSql()} AS state,
                 s.text AS source_text, s.format, s.max_length
               FROM results r JOIN translations t ON t.segment_id = r.segment_id AND t.language = r.language AND t.result_id = r.id
               JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id
               WHERE r.id = ? AND r.superseded = 0 AND s.removed = 0 AND u.deleted = 0
                 AND EXISTS (SELECT 1 FROM unit_counts c WHERE c.unit_id = r.unit_id AND c.language = r.language)`,
              n,
            );
      if (row?.state !== "review") {
        ignored.push(review.id);
        continue;
      }
      const now = store.now();
      const sourceLanguage = row.source_language ?? settings.sourceLanguage;
      if (review.outcome === "approved") {
        const changed = review.text !== undefined && review.text !== row.text;
        const text = changed ? review.text! : row.text;
        // An edited text is checked on its own; an approved machine text keeps the findings that describe it.
        store.run(
          `UPDATE translations SET status = 'ok', text = ?, origin = CASE WHEN ? THEN 'human' ELSE origin END, qa = coalesce(?, qa), updated_at = ? WHERE segment_id = ? AND language = ?`,
          text,
          changed ? 1 : 0,
          changed ? humanQA(store, settings, row, row.language, text) : null,
          now,
          row.segment_id,
          row.language,
        );
        rememberTranslation(store, row.fingerprint, row.source_text, sourceLanguage, row.language, text, changed ? "human" : "approved");
      } else {
        store.run(`UPDATE translations SET status = 'missing', updated_at = ?, seq = ${CHANGE_SEQ} WHERE segment_id = ? AND language = ?`, now, row.segment_id, row.language);
      }
      store.run("UPDATE results SET pending = 0 WHERE id = ?", row.id);
      touched.push(row.unit_id);
    }
    refreshUnits(store, targets, touched);
    return { updated: reviews.length - ignored.length, ignored };
  });
}

/**
 * A held result is waiting for a decision exactly when the status counts it as attention: its
 * segment and unit are live, its language is still a target of the unit, and its source has
 * not changed since (a stale one leaves the queue; the next delta job translates it again).
 */
export const WAITING_DECISION = `s.removed = 0 AND u.deleted = 0 AND s.fingerprint = r.source_fingerprint
  AND EXISTS (SELECT 1 FROM translations t WHERE t.segment_id = r.segment_id AND t.language = r.language AND t.result_id = r.id AND t.status = 'attention')
  AND EXISTS (SELECT 1 FROM unit_counts c WHERE c.unit_id = r.unit_id AND c.language = r.language)`;

interface HeldRow extends ResultRow {
  source_text: string;
  created_at: string;
}

/** The review queue, oldest first; `unit` and `language` narrow it (the dashboard's `attention_url` filters). */
export function listAttention(store: Store, links: Links, query: { cursor?: string; limit: number; unit?: string; language?: string }) {
  const after = query.cursor ? (decodeCursor(query.cursor, isNumber) ?? 0) : 0;
  const rows = store.all<HeldRow>(
    `SELECT ${RESULT_COLUMNS}, s.text AS source_text, r.created_at
     FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id
     WHERE r.held = 1 AND r.id > ?1 AND ${WAITING_DECISION}
       AND (?3 IS NULL OR u.external_key = ?3) AND (?4 IS NULL OR lower(r.language) = lower(?4))
     ORDER BY r.id LIMIT ?2`,
    after,
    query.limit + 1,
    query.unit || null,
    query.language || null,
  );
  const page = rows.slice(0, query.limit);
  return {
    items: page.map((r) => ({
      id: resultId(r.id),
      unit: r.unit,
      key: r.key,
      language: r.language,
      text: r.text,
      source_text: r.source_text,
      qa: JSON.parse(r.qa),
      job_id: r.job_id,
      created_at: r.created_at,
      dashboard_url: attentionUrl(links, r.unit, r.language),
    })),
    next_cursor: rows.length > query.limit ? encodeCursor(page[page.length - 1].id) : null,
  };
}

/**
 * The review queue's decisions: fix (origin human, ok, into the memory) or discard (missing).
 * A fix with QA errors needs `confirm: true`; without it nothing changes and the answer is a
 * 409 carrying the findings (`qa`) and the source they were checked against (`source_text`).
 */
export function decideAttention(store: Store, settings: SiteSettings, id: string, decision: AttentionDecision) {
  const n = parseResultId(id);
  return store.tx(() => {
    const row =
      n === undefined
        ? undefined
        : store.one<{ id: number; segment_id: number; unit_id: number; language: string; fingerprint: string; source_fingerprint: string } & SourceOf>(
            `SELECT r.id, r.segment_id, r.unit_id, r.language, s.fingerprint, r.source_fingerprint, u.source_language, s.text AS source_text, s.format, s.max_length
             FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id
             WHERE r.id = ? AND r.held = 1 AND r.superseded = 0 AND ${WAITING_DECISION}`,
            n,
          );
    if (!row) throw new ApiError(404, `Result ${id} is not waiting for a decision in the review queue.`);
    const now = store.now();
    if (decision.action === "fix") {
      const qa = humanQA(store, settings, row, row.language, decision.text);
      // The same checks as engine output: a fix with QA errors (a <script> added to an HTML
      // segment, a placeholder lost) is saved only when the editor confirms it, having seen them.
      const findings = JSON.parse(qa) as QAIssue[];
      if (!decision.confirm && findings.some((i) => i.severity === "error"))
        throw new ApiError(409, "The fix has QA errors, so it was not saved. Change the text, or send it again with confirm: true to save it anyway.", {
          qa: findings,
          source_text: row.source_text,
        });
      // The fixed text is delivered: a new result (origin human) that the connector pulls from
      // GET /v1/results and writes like any other; the held one is superseded by it. The state
      // is ok (the fix is an editor's decision), so reviews of the new result are ignored.
      // Errors in its findings are shown only to connectors that show QA errors (as for results).
      const showErrors = settings.qaMode === "editors" && capabilities(store).has("qa_errors");
      const shown = showErrors ? qa : JSON.stringify(findings.filter((i) => i.severity !== "error"));
      store.run(
        `INSERT INTO results (segment_id, unit_id, language, text, source_fingerprint, origin, engine, job_id, qa, created_at, pending, held)
         VALUES (?, ?, ?, ?, ?, 'human', 'human', NULL, ?, ?, 1, 0)`,
        row.segment_id,
        row.unit_id,
        row.language,
        decision.text,
        row.source_fingerprint,
        shown,
        now,
      );
      const delivered = store.one<{ id: number }>("SELECT last_insert_rowid() AS id")!.id;
      store.run(
        `UPDATE translations SET status = 'ok', text = ?, origin = 'human', source_fingerprint = ?, qa = ?, result_id = ?, updated_at = ? WHERE segment_id = ? AND language = ?`,
        decision.text,
        row.source_fingerprint,
        qa,
        delivered,
        now,
        row.segment_id,
        row.language,
      );
      store.run("UPDATE results SET held = 0, pending = 0, superseded = 1 WHERE id = ?", row.id);
      // The held result may be for an earlier source text: the memory learns the source text only when it is the segment's.
      const sourceText = row.source_fingerprint === row.fingerprint ? row.source_text : null;
      rememberTranslation(store, row.source_fingerprint, sourceText, row.source_language ?? settings.sourceLanguage, row.language, decision.text, "human");
    } else {
      store.run(`UPDATE translations SET status = 'missing', updated_at = ?, seq = ${CHANGE_SEQ} WHERE segment_id = ? AND language = ?`, now, row.segment_id, row.language);
      store.run("UPDATE results SET held = 0 WHERE id = ?", row.id);
    }
    refreshUnits(store, siteTargets(settings), [row.unit_id]);
    return { id, state: decision.action === "fix" ? ("ok" as const) : ("missing" as const) };
  });
}

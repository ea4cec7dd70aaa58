/**
 * One slice of a job: up to SLICE_ITEMS pending items of one language, bounded by characters
 * too, worked off as engine batches that run concurrently (up to the engine's limit, shared
 * with the job's other languages). Each finished batch is committed on its own (commit.ts).
 *
 * Failure isolation: a batch the engine rejects (bad request, invalid answer, text too long
 * after splitting, still unavailable after its retries) fails only its own segments; a whole
 * language fails only when its engine is not configured, out of quota, or does not translate
 * into it. The deadline and the invocation's subrequest budget are checked before each batch
 * is launched; items of batches not launched stay pending for the next slice.
 */

import type { SiteSettings } from "../../control/sites";
import { splitBatches } from "../../engines/batch";
import { createEngine } from "../../engines/registry";
import { type Engine, EngineError, type EngineLimits } from "../../engines/types";
import type { Format } from "../../limits";
import { orgMemory } from "../../memory/stub";
import { runQA } from "../../qa";
import { glossaryMatcher } from "../../qa/glossary";
import { type FuzzyMatch, fuzzyMatches, hasFuzzyIndex } from "../memory/fuzzy";
import { sharedHits } from "../memory/shared-hits";
import { capabilities } from "../settings";
import { stateSql } from "../state";
import { type Committer, type Outcome, type Produced, type SliceItem, TRANSLATION_MARK } from "./commit";
import { engineFailed } from "./events";
import type { Invocation } from "./invocation";
import type { JobRow, JobScope } from "./jobs";
import type { ContextItem } from "./neighbours";

/** Items per slice: at least this many… */
export const SLICE_ITEMS = 250;
/**
 * …and up to one full request of an engine that takes more, at most this many: each engine
 * batch is one commit (one transaction and its ledger row), so an engine that takes 1,000 texts
 * a request is not held to 250 texts per commit.
 */
export const SLICE_ITEMS_MAX = 1_000;

/** Items one slice takes for an engine with these limits (no engine: the minimum). */
export const sliceItems = (limits?: EngineLimits) => Math.min(SLICE_ITEMS_MAX, Math.max(SLICE_ITEMS, limits?.maxSegments ?? 0));
/** Source characters per slice at most (at least one item is always taken). */
export const SLICE_CHARACTERS = 200_000;

/**
 * Items one query loads: a slice is loaded in pieces of this many, with a turn for waiting
 * requests between two (each piece is one step of a few ms; a slice of 1,000 items in one
 * query was the runner's longest step after the job's start).
 */
export const LOAD_ITEMS = 250;

/**
 * Up to `limit` pending items of `language` after segment id `after`, in id order. Each item
 * comes with its memory hit (none for a forced job), whether another segment has the same text
 * (`repeated`: only then can its result be reused later in the job, so only then is the result
 * entered in results_job_text) and a translation of the same text in the same source language
 * made earlier in this job (the latest), each one index look-up, so the slice needs no further
 * reads (results_job_text, keyed by the fingerprint's first 8 digits and holding repeated texts
 * only: the look-up names that expression and `repeated = 1` as the index does, or SQLite would
 * not use it).
 */
function loadItems(inv: Invocation, job: JobRow, language: string, settings: SiteSettings, scope: JobScope, after: number, limit: number): (SliceItem & ContextItem)[] {
  const { store } = inv.deps;
  const seen = store.othersMark();
  const items: (SliceItem & ContextItem)[] = [];
  // Read as arrays and made into items by one literal: the load is the runner's largest read, and Store.all's
  // column-by-column objects cost about twice as much per row.
  for (const r of store.rows<LoadedRow>(
    `SELECT ji.segment_id, s.unit_id, s.text, s.fingerprint, s.characters, s.format, s.field, s.kind, s.max_length,
       coalesce(u.source_language, ?3) AS source_language, ${stateSql()} AS state, (s.removed = 0 AND u.deleted = 0) AS live,
       (s.removed = 0 AND u.deleted = 0 AND u.counted = 1) AS counted,
       ${TRANSLATION_MARK} AS mark, coalesce(t.origin = 'imported' AND t.updated_at >= ?5, 0) AS imported_since,
       CASE WHEN ?6 THEN NULL ELSE (SELECT m.text FROM memory m WHERE m.source_fingerprint = s.fingerprint
         AND m.source_language = lower(coalesce(u.source_language, ?3)) AND m.target_language = lower(?2)) END AS memory,
       EXISTS (SELECT 1 FROM segments o WHERE o.fingerprint = s.fingerprint AND o.id <> s.id) AS repeated,
       (SELECT json_array(r.text, r.origin, r.engine) FROM results r JOIN units ru ON ru.id = r.unit_id
         WHERE r.repeated = 1 AND r.job_id = ?1 AND r.language = ?2 AND substr(r.source_fingerprint, 1, 8) = substr(s.fingerprint, 1, 8) AND r.source_fingerprint = s.fingerprint
           AND lower(coalesce(ru.source_language, ?3)) = lower(coalesce(u.source_language, ?3))
         ORDER BY r.id DESC LIMIT 1) AS earlier
     FROM job_items ji JOIN segments s ON s.id = ji.segment_id JOIN units u ON u.id = s.unit_id
     LEFT JOIN translations t ON t.segment_id = s.id AND t.language = ji.language
     WHERE ji.job_id = ?1 AND ji.language = ?2 AND ji.segment_id > ?7
     ORDER BY ji.segment_id LIMIT ?4`,
    job.id,
    language,
    settings.sourceLanguage,
    limit,
    job.started_at ?? "",
    scope.force ? 1 : 0,
    after,
  ))
    items.push({
      segment_id: r[0],
      unit_id: r[1],
      language,
      text: r[2],
      fingerprint: r[3],
      characters: r[4],
      format: r[5],
      field: r[6],
      kind: r[7],
      max_length: r[8],
      source_language: r[9],
      state: r[10],
      live: r[11],
      counted: r[12],
      mark: r[13],
      imported_since: r[14],
      memory: r[15],
      repeated: r[16],
      earlier: r[17],
      seen,
    });
  return items;
}

/** A row of loadItems' query, in its column order. */
type LoadedRow = [
  segment_id: number,
  unit_id: number,
  text: string,
  fingerprint: string,
  characters: number,
  format: Format,
  field: string | null,
  kind: string | null,
  max_length: number | null,
  source_language: string,
  state: string,
  live: number,
  counted: number,
  mark: string,
  imported_since: number,
  memory: string | null,
  repeated: number,
  earlier: string | null,
];

/** Engine failures that concern the whole language rather than one batch. */
const LANGUAGE_WIDE = new Set(["not_configured", "quota", "unsupported_language"]);

/**
 * What makes two items repeats of each other: the same text in the same source language (the
 * unit's, else the site's; matched case-insensitively, as the memory matches it). The same text
 * in two source languages is two translations, each billed.
 */
const repeatKey = (item: SliceItem) => `${item.source_language.toLowerCase()}\u0000${item.fingerprint}`;

interface Group {
  /** Items with the same source language and text: the first is sent, the others reuse its translation. */
  items: (SliceItem & ContextItem)[];
}

/** A slice whose engine work is done: its commits may still be landing. */
export interface SliceDone {
  /** The highest segment id the slice took: the language's next slice starts after it. */
  last: number;
  /** Settles when every commit of the slice has landed (rejects with the first that failed). */
  committed: Promise<void>;
}

/**
 * Works off one slice of `language`: its items after segment id `after`. Answers null when
 * the language has no pending items there. It does not wait for its commits (each a D1 write,
 * then a transaction) to land: the language's next slice loads and translates meanwhile, from
 * after the items this one took, and texts it produced are reused from `inv.unsaved` until
 * their commit lands.
 */
export async function runSlice(inv: Invocation, job: JobRow, committer: Committer, language: string, after = 0): Promise<SliceDone | null> {
  const { store } = inv.deps;
  // Cancelled (or ended) while the previous step let requests in: no further work for it.
  if (!inv.stillRunning(job.id)) return null;
  // Settings may change while engine calls are awaited (an admin change reaches the object at once): each slice reads the current ones.
  const settings = (inv.deps.settings = store.getMeta<SiteSettings>("settings") ?? inv.deps.settings);
  const scope = JSON.parse(job.request) as JobScope;
  const target = settings.targetLanguages.find((t) => t.code === language);
  const problem = !target
    ? `${language} is no longer a target language of the site.`
    : !settings.enabledEngines.includes(target.engine)
      ? `The engine ${target.engine} is not enabled for this site.`
      : undefined;
  const engine: Engine | undefined = problem ? undefined : (inv.deps.engineFor ?? ((n) => createEngine(n, inv.deps.env, { sleep: inv.deps.sleep })))(target!.engine);
  // A language that fails as a whole: its commit fails every pending item, so no next slice.
  const refused = problem ?? (engine && !engine.supports(language) ? `The ${engine.name} engine does not translate into ${language}.` : undefined);
  const limit = inv.options.sliceItems ?? sliceItems(engine?.limits);
  const outcome = (fields: Partial<Outcome>): Outcome => ({ language, produced: [], skipped: [], failed: [], billed: 0, ...fields });

  const items: (SliceItem & ContextItem)[] = [];
  /** Items that left the scope since the job started (removed, deleted, imported, translated): skipped. */
  const skipped: (SliceItem & ContextItem)[] = [];
  const work: (SliceItem & ContextItem)[] = [];
  const unsaved = inv.unsavedTexts(language);
  const toSend = new Map<string, Group>(); // by repeatKey: source language + fingerprint
  /** Items whose text costs no engine request: [item, text, origin, engine, kind]. */
  const known: [SliceItem, string, string, string, Produced["kind"]][] = [];
  // Loaded in pieces of LOAD_ITEMS, each sorted as soon as it is loaded, before anything is awaited: the piece's load saw
  // the job's stored results, `unsaved` holds those of commits still landing, and a commit that lands while requests
  // have their turn between two pieces moves its texts from one to the other (the next piece's load sees them stored).
  let size = 0;
  let from = after;
  for (let full = false; !full && items.length < limit; ) {
    const want = Math.min(LOAD_ITEMS, limit - items.length);
    // A piece's load and sort are one piece of CPU: it starts a step rather than ending one (requests waiting meanwhile go first).
    await inv.ahead(want, "slice");
    // Cancelled meanwhile: nothing of the slice was sent or stored yet.
    if (!inv.stillRunning(job.id)) return null;
    const piece = loadItems(inv, job, language, settings, scope, from, want);
    for (const item of piece) {
      // Bounded by characters too, so a slice of long texts stays as short as one of short texts.
      if (items.length && size + item.characters > SLICE_CHARACTERS) {
        full = true;
        break;
      }
      items.push(item);
      size += item.characters;
      // An import since the job started wins, also over a forced job.
      if (!item.live || item.imported_since === 1 || (!scope.force && item.state !== "missing" && item.state !== "stale")) {
        skipped.push(item);
        continue;
      }
      work.push(item);
      if (refused) continue;
      // Texts translated earlier in this job are reused, not sent again: stored, or produced by a commit still landing.
      const { memory: hit, earlier } = item;
      const key = repeatKey(item);
      const before = earlier !== null ? (JSON.parse(earlier) as [string, string, string]) : unsaved.get(key);
      if (hit !== null) known.push([item, hit, "tm_exact", "memory", "memory"]);
      else if (before) known.push([item, before[0], before[1], before[2], "reuse"]);
      else {
        const group = toSend.get(key);
        if (group) group.items.push(item);
        else toSend.set(key, { items: [item] });
      }
    }
    if (piece.length < want) break;
    from = piece[piece.length - 1].segment_id;
  }
  if (!items.length) return null;

  if (refused && work.length) {
    await committer.commit(outcome({ skipped, languageFailure: refused }));
    return null;
  }

  // Texts still going to the engine may be in the organization's memory (a sharing site, a job
  // not forced): one call for the slice. Its exact matches are memory hits like the site's own.
  if (settings.shareMemory && !scope.force && toSend.size && (await inv.othersShare())) {
    const keys = [...toSend.values()].map(({ items: [first] }): [string, string] => [first.source_language.toLowerCase(), first.fingerprint]);
    const shared = await sharedHits(settings, language, keys, orgMemory(inv.deps.env, settings.organizationId));
    for (const [key, group] of toSend) {
      const hit = shared.get(key);
      if (hit === undefined) continue;
      for (const item of group.items) known.push([item, hit, "tm_exact", "memory", "memory"]);
      toSend.delete(key);
    }
  }

  // The slice's work is loaded and sorted (and counted, piece by piece): requests waiting meanwhile get their turn if one is due.
  await inv.step(0, "slice");

  // Fuzzy matches of the texts that go to the engine (src/site/memory/fuzzy.ts), given to it as examples: context only, never a
  // result and never billed differently. A forced job ignores the memory, so it gets none; nor does a run with the
  // engine context switched off. Nor does a memory with nothing indexed (most sites' first jobs): no look-up, and no
  // turn counted for work not done (a turn costs about 1 ms of waiting; bench d, one per slice).
  const examples = new Map<Group, FuzzyMatch[]>();
  if (engine && toSend.size && !scope.force && inv.deps.engineContext !== false && hasFuzzyIndex(store)) {
    const bySource = new Map<string, Group[]>();
    for (const group of toSend.values()) {
      const src = group.items[0].source_language;
      bySource.set(src, [...(bySource.get(src) ?? []), group]);
    }
    for (const [src, groups] of bySource) {
      const found = fuzzyMatches(
        store,
        src,
        language,
        groups.map((g) => g.items[0].text),
        groups.map((g) => g.items[0].format),
      );
      groups.forEach((g, i) => {
        if (found[i].length) examples.set(g, found[i]);
      });
    }
    await inv.step(toSend.size, "fuzzy");
  }

  const glossary = work.length ? await inv.glossary(language) : [];
  glossaryMatcher(glossary); // compiled once here, reused by every QA run of the slice
  const holdErrors = !(settings.qaMode === "editors" && capabilities(store).has("qa_errors"));
  /** QA runs as each translation arrives, outside the transaction that stores it. */
  const produce = (item: SliceItem, text: string, origin: string, engineName: string, kind: Produced["kind"]): Produced => {
    const issues = runQA({
      source: item.text,
      target: text,
      format: item.format,
      maxLength: item.max_length,
      sourceLanguage: item.source_language,
      targetLanguage: item.language,
      glossary,
    });
    return { item, text, origin, engine: engineName, kind, issues, held: holdErrors && issues.some((i) => i.severity === "error") };
  };

  const free: Produced[] = [];
  // QA of texts that cost no engine request is CPU all the way: waiting requests get their turn between steps.
  for (const [item, text, origin, engineName, kind] of known) {
    free.push(produce(item, text, origin, engineName, kind));
    await inv.step(1, "qa");
  }

  const commits: Promise<void>[] = [];
  if (free.length || skipped.length) commits.push(committer.commit(outcome({ produced: free, skipped })));

  let languageFailure: string | undefined;
  let fault: unknown;
  if (engine && toSend.size) {
    // Engine batches: one source language each, sized to the engine's per-request limits.
    const bySource = new Map<string, Group[]>();
    for (const group of toSend.values()) {
      const src = group.items[0].source_language;
      const list = bySource.get(src);
      if (list) list.push(group);
      else bySource.set(src, [group]);
    }
    const batches = [...bySource.values()].flatMap((groups) => splitBatches(groups, engine.limits, (g) => g.items[0].characters));
    // The unit context of the texts sent (read once per unit for the job's languages: neighbours.ts), unless switched off.
    // Reading and shaping the context is work on the slice's texts, one piece of CPU: counted like other item-steps, ahead.
    if (inv.deps.engineContext !== false) await inv.ahead(toSend.size, "slice");
    const contexts = inv.deps.engineContext === false ? undefined : inv.contexts.of([...toSend.values()].map((g) => g.items[0]));
    const gate = inv.gate(engine.name);
    const running: Promise<void>[] = [];

    /** One engine batch; the engine's slot is released as soon as it answers (QA and the commit need no slot). */
    const runBatch = async (groups: Group[], release: () => void) => {
      let texts: string[];
      try {
        texts = await engine.translate({
          sourceLanguage: groups[0].items[0].source_language,
          targetLanguage: language,
          formality: target!.formality,
          glossary,
          glossaryOwner: String(settings.organizationId),
          segments: groups.map((group) => {
            const first = group.items[0];
            const found = examples.get(group);
            const context = { ...contexts?.get(first.segment_id), ...(found ? { examples: found } : {}) };
            return {
              text: first.text,
              format: first.format,
              kind: first.kind,
              field: first.field,
              maxLength: first.max_length,
              ...(Object.keys(context).length ? { context } : {}),
            };
          }),
          meter: inv.meter,
        });
      } catch (err) {
        if (!(err instanceof EngineError)) throw err;
        engineFailed(inv.deps.env, settings, job.id, engine.name, language, err, groups.length);
        inv.healthy.delete(language);
        if (LANGUAGE_WIDE.has(err.kind)) {
          languageFailure ??= err.message;
          return;
        }
        commits.push(committer.commit(outcome({ failed: [{ items: groups.flatMap((g) => g.items), message: err.message }] })));
        return;
      }
      release();
      inv.healthy.add(language);
      let billed = 0;
      const produced: Produced[] = [];
      for (const [g, group] of groups.entries()) {
        billed += group.items[0].characters;
        for (const [i, item] of group.items.entries()) {
          produced.push(produce(item, texts[g], engine.origin, engine.name, i === 0 ? "engine" : "reuse"));
          // A zero-latency engine's answer is here at once: QA of the batch goes in steps too.
          await inv.step(1, "qa");
        }
      }
      // Until the commit lands, a repeat in the language's next slice finds these texts here.
      const sent = groups.map((group, g) => [repeatKey(group.items[0]), [texts[g], engine.origin, engine.name]] as const);
      for (const [key, entry] of sent) unsaved.set(key, entry);
      const commit = committer.commit(outcome({ produced, billed }));
      commits.push(commit);
      const landed = () => {
        for (const [key, entry] of sent) if (unsaved.get(key) === entry) unsaved.delete(key);
      };
      void commit.then(landed, landed);
    };

    for (const batch of batches) {
      // Until the language has a successful batch, the previous one must come back first.
      if (!inv.healthy.has(language) && running.length) await running[running.length - 1];
      if (languageFailure !== undefined || fault !== undefined) break;
      // The deadline and budgets are checked between batches; the first batch of a slice always goes.
      if (running.length && !inv.mayLaunch()) break;
      const release = await gate.acquire();
      if (languageFailure !== undefined || fault !== undefined || !inv.stillRunning(job.id) || (running.length && !inv.mayLaunch())) {
        release();
        break;
      }
      running.push(
        runBatch(batch, release)
          .catch((err) => {
            fault ??= err;
            inv.stop();
          })
          .finally(release),
      );
    }
    await Promise.all(running);
  }
  if (fault !== undefined || languageFailure !== undefined) {
    // The language stops here: its commits (a language-wide failure last) land before the answer.
    if (languageFailure !== undefined && fault === undefined) commits.push(committer.commit(outcome({ languageFailure })));
    const settled = await Promise.allSettled(commits);
    const failedCommit = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (fault !== undefined) throw fault;
    if (failedCommit) throw failedCommit.reason;
    return null;
  }
  return { last: items[items.length - 1].segment_id, committed: Promise.all(commits).then(() => undefined) };
}

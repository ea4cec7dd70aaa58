/**
 * One slice of a job: up to SLICE_ITEMS pending items of one language, bounded by characters
 * too, worked off as engine batches that run concurrently (up to the engine's limit, shared
 * with the job's other languages). Each finished batch is committed on its own (commit.ts).
 * runSlice lists its steps in the order they run: the language's engine, the items loaded and
 * sorted and the memory's look-ups (slice-items.ts), QA of the texts that cost no engine
 * request, the engine batches (slice-batches.ts), the slice's end.
 *
 * Failure isolation: a batch the engine rejects (bad request, invalid answer, text too long
 * after splitting, still unavailable after its retries) fails only its own segments; a whole
 * language fails only when its engine is not configured, out of quota, or does not translate
 * into it. The deadline and the invocation's subrequest budget are checked before each batch
 * is launched; items of batches not launched stay pending for the next slice.
 */

import type { SiteSettings } from "../../control/sites.control";
import { createEngine } from "../../engines/registry";
import type { Engine, EngineLimits, GlossaryTerm } from "../../engines/types";
import { runQA } from "../../qa";
import { glossaryMatcher } from "../../qa/glossary.check";
import { capabilities } from "../settings";
import type { Budget } from "./budget";
import { outcomeOf, type Produced } from "./commit";
import type { Committer } from "./committer";
import type { Invocation } from "./invocation";
import type { JobRow } from "./jobs";
import { jobScope } from "./scope";
import { engineBatches, type Produce, type Stopped, translate, unitContexts } from "./slice-batches";
import { fuzzyExamples, type Known, loadSlice, lookUpShared, type SliceLanguage } from "./slice-items";

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
export async function runSlice(inv: Invocation, job: JobRow, committer: Committer, budget: Budget, language: string, after = 0): Promise<SliceDone | null> {
  // Cancelled (or ended) while the previous step let requests in: no further work for it.
  if (!inv.stillRunning(job.id)) return null;
  const lang = setUpSlice(inv, job, language);
  const slice = await loadSlice(inv, job, lang, after);
  if (!slice) return null;
  if (lang.refused && slice.work.length) {
    await committer.commit(outcomeOf(language, { skipped: slice.skipped, languageFailure: lang.refused }));
    return null;
  }
  await lookUpShared(inv, lang, slice);
  // The slice's work is loaded and sorted (and counted, piece by piece): requests waiting meanwhile get their turn if one is due.
  await inv.step(0, "slice");
  const examples = fuzzyExamples(inv, lang, slice.toSend);
  if (examples) await inv.step(slice.toSend.size, "fuzzy");
  const glossary = slice.work.length ? await inv.glossary(language) : [];
  const produce = qaWith(inv, lang, glossary);
  const free = await checkKnown(inv, slice.known, produce);
  const commits: Promise<void>[] = [];
  if (free.length || slice.skipped.length) commits.push(committer.commit(outcomeOf(language, { produced: free, skipped: slice.skipped })));
  let stopped: Stopped = {};
  if (lang.engine && slice.toSend.size) {
    const batches = engineBatches(lang.engine, slice.toSend);
    const contexts = await unitContexts(inv, slice.toSend);
    stopped = await translate({ inv, job, committer, lang, engine: lang.engine, glossary, produce, examples, contexts, commits, budget }, batches);
  }
  if (stopped.fault !== undefined || stopped.languageFailure !== undefined) return stopLanguage(committer, language, commits, stopped);
  return { last: slice.items[slice.items.length - 1].segment_id, committed: Promise.all(commits).then(() => undefined) };
}

/** The language's settings as they stand now, and its engine or why it fails as a whole. */
function setUpSlice(inv: Invocation, job: JobRow, language: string): SliceLanguage {
  const { store } = inv.deps;
  // Settings may change while engine calls are awaited (an admin change reaches the object at once): each slice reads the current ones.
  const settings = (inv.deps.settings = store.getMeta<SiteSettings>("settings") ?? inv.deps.settings);
  const scope = jobScope(job);
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
  return { language, settings, scope, target, engine, refused, limit };
}

/** QA of one translation, with the language's glossary; errors held unless the site's editors handle them. */
function qaWith(inv: Invocation, lang: SliceLanguage, glossary: GlossaryTerm[]): Produce {
  glossaryMatcher(glossary); // compiled once here, reused by every QA run of the slice
  const holdErrors = !(lang.settings.qaMode === "editors" && capabilities(inv.deps.store).has("qa_errors"));
  /** QA runs as each translation arrives, outside the transaction that stores it. */
  return (item, text, origin, engineName, kind) => {
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
}

/** QA of the texts that cost no engine request (memory hits, texts translated earlier in the job). */
async function checkKnown(inv: Invocation, known: Known[], produce: Produce): Promise<Produced[]> {
  const free: Produced[] = [];
  // QA of texts that cost no engine request is CPU all the way: waiting requests get their turn between steps.
  for (const [item, text, origin, engineName, kind] of known) {
    free.push(produce(item, text, origin, engineName, kind));
    await inv.step(1, "qa");
  }
  return free;
}

/** The language stops here: its commits (a language-wide failure last) land before the answer. */
async function stopLanguage(committer: Committer, language: string, commits: Promise<void>[], stopped: Stopped): Promise<null> {
  const { fault, languageFailure } = stopped;
  if (languageFailure !== undefined && fault === undefined) commits.push(committer.commit(outcomeOf(language, { languageFailure })));
  const settled = await Promise.allSettled(commits);
  const failedCommit = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (fault !== undefined) throw fault;
  if (failedCommit) throw failedCommit.reason;
  return null;
}

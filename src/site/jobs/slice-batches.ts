/**
 * A slice's engine work: its texts in batches of one source language each, sized to the
 * engine's per-request limits, launched while the language, the job and the invocation's
 * budgets allow, and run concurrently up to the engine's limit (shared with the job's other
 * languages). A batch's translations go through QA as they arrive, and each finished batch is
 * committed on its own (committer.ts); a batch the engine rejects fails only its own items,
 * unless the failure concerns the whole language (slice.ts says which failures stop what).
 */

import { splitBatches } from "../../engines/batch";
import { type Engine, EngineError, type EngineRequest, type GlossaryTerm, type SegmentContext } from "../../engines/types";
import type { FuzzyMatch } from "../memory/fuzzy";
import { type Budget, billedCharacters } from "./budget";
import { outcomeOf, type Produced, type SliceItem } from "./commit";
import type { Committer } from "./committer";
import { budgetReached, engineFailed } from "./events";
import type { Invocation } from "./invocation";
import type { JobRow } from "./jobs";
import { bySource, type Group, repeatKey, type SliceLanguage } from "./slice-items";

/** Engine failures that concern the whole language rather than one batch. */
const LANGUAGE_WIDE = new Set(["not_configured", "quota", "unsupported_language"]);

/** QA of one translation as it arrives, outside the transaction that stores it (slice.ts, qaWith). */
export type Produce = (item: SliceItem, text: string, origin: string, engineName: string, kind: Produced["kind"]) => Produced;

/** What stopped a language's engine work: a failure of the whole language, or a fault (a failed commit, a bug) that stops the invocation. */
export interface Stopped {
  languageFailure?: string;
  fault?: unknown;
}

/** What a slice's engine batches share. */
export interface SliceBatches {
  inv: Invocation;
  job: JobRow;
  committer: Committer;
  lang: SliceLanguage;
  engine: Engine;
  glossary: GlossaryTerm[];
  produce: Produce;
  /** Fuzzy matches given to the engine as examples, by group (slice-items.ts, fuzzyExamples). */
  examples: Map<Group, FuzzyMatch[]> | undefined;
  /** The units' contexts of the texts sent, by segment id (unitContexts). */
  contexts: Map<number, SegmentContext> | undefined;
  /** The slice's commits: each batch adds its own. */
  commits: Promise<void>[];
  /** What the job may still bill (budget.ts): groups beyond it are left to the next job. */
  budget: Budget;
}

/** The texts going to the engine in batches: one source language each, sized to the engine's per-request limits. */
export function engineBatches(engine: Engine, toSend: Map<string, Group>): Group[][] {
  return [...bySource(toSend).values()].flatMap((groups) => splitBatches(groups, engine.limits, (g) => g.items[0].characters));
}

/** The unit context of the texts sent (read once per unit for the job's languages: neighbours.ts), unless switched off. */
export async function unitContexts(inv: Invocation, toSend: Map<string, Group>): Promise<Map<number, SegmentContext> | undefined> {
  // Reading and shaping the context is work on the slice's texts, one piece of CPU: counted like other item-steps, ahead.
  if (inv.deps.engineContext !== false) await inv.ahead(toSend.size, "slice");
  return inv.deps.engineContext === false ? undefined : inv.contexts.of([...toSend.values()].map((g) => g.items[0]));
}

/** Launches the batches while the language, the job and the budgets allow; answers what stopped the language once all launched have ended. */
export async function translate(run: SliceBatches, batches: Group[][]): Promise<Stopped> {
  const { inv, job, engine, budget, committer, commits } = run;
  const { language } = run.lang;
  const stopped: Stopped = {};
  const gate = inv.gate(engine.name);
  const running: Promise<void>[] = [];
  for (const batch of batches) {
    // Until the language has a successful batch, the previous one must come back first.
    if (!inv.healthy.has(language) && running.length) await running[running.length - 1];
    if (stopped.languageFailure !== undefined || stopped.fault !== undefined) break;
    // The deadline and budgets are checked between batches; the first batch of a slice always goes.
    if (running.length && !inv.mayLaunch()) break;
    const release = await gate.acquire();
    if (stopped.languageFailure !== undefined || stopped.fault !== undefined || !inv.stillRunning(job.id) || (running.length && !inv.mayLaunch())) {
      release();
      break;
    }
    // The job bills at most its estimate: texts beyond what is left of it are the next job's.
    const { fits, over } = budget.take(batch);
    if (over.length) {
      budgetReached(inv.deps.env, run.lang.settings, job.id, language, over);
      commits.push(committer.commit(outcomeOf(language, { skipped: over.flatMap((g) => g.items) })));
    }
    if (!fits.length) {
      release();
      continue;
    }
    running.push(
      runBatch(run, fits, release, stopped)
        .catch((err) => {
          stopped.fault ??= err;
          inv.stop();
        })
        .finally(release),
    );
  }
  await Promise.all(running);
  return stopped;
}

/** One engine batch; the engine's slot is released as soon as it answers (QA and the commit need no slot). */
async function runBatch(run: SliceBatches, groups: Group[], release: () => void, stopped: Stopped) {
  const { inv, job, committer, engine, produce, commits } = run;
  const { language, settings } = run.lang;
  let texts: string[];
  try {
    texts = await engine.translate(requestOf(run, groups));
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    engineFailed(inv.deps.env, settings, job.id, engine.name, language, err, groups.length);
    // Nothing billed: what the batch took of the job's budget is given back.
    run.budget.giveBack(billedCharacters(groups));
    inv.healthy.delete(language);
    if (LANGUAGE_WIDE.has(err.kind)) {
      stopped.languageFailure ??= err.message;
      return;
    }
    commits.push(committer.commit(outcomeOf(language, { failed: [{ items: groups.flatMap((g) => g.items), message: err.message }] })));
    return;
  }
  release();
  inv.healthy.add(language);
  const billed = billedCharacters(groups);
  const produced: Produced[] = [];
  for (const [g, group] of groups.entries()) {
    for (const [i, item] of group.items.entries()) {
      produced.push(produce(item, texts[g], engine.origin, engine.name, i === 0 ? "engine" : "reuse"));
      // A zero-latency engine's answer is here at once: QA of the batch goes in steps too.
      await inv.step(1, "qa");
    }
  }
  // Until the commit lands, a repeat in the language's next slice finds these texts here.
  const unsaved = inv.unsavedTexts(language);
  const sent = groups.map((group, g) => [repeatKey(group.items[0]), [texts[g], engine.origin, engine.name]] as const);
  for (const [key, entry] of sent) unsaved.set(key, entry);
  const commit = committer.commit(outcomeOf(language, { produced, billed }));
  commits.push(commit);
  const landed = () => {
    for (const [key, entry] of sent) if (unsaved.get(key) === entry) unsaved.delete(key);
  };
  void commit.then(landed, landed);
}

/** The engine request of one batch: the first text of each group, with its context and examples. */
function requestOf(run: SliceBatches, groups: Group[]): EngineRequest {
  const { inv, lang, glossary, examples, contexts } = run;
  return {
    sourceLanguage: groups[0].items[0].source_language,
    targetLanguage: lang.language,
    formality: lang.target!.formality,
    glossary,
    glossaryOwner: String(lang.settings.organizationId),
    segments: groups.map((group) => {
      const first = group.items[0];
      const found = examples?.get(group);
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
  };
}

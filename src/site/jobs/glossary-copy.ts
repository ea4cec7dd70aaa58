/**
 * The organization's glossary as the site object holds it. D1 is the source of truth; the
 * object keeps a copy, replaced whenever the glossary changes (the admin API and the dashboard
 * push the new terms to every site of the organization) and reloaded from D1 when it is older
 * than GLOSSARY_MAX_AGE_MS (a push that did not arrive heals within that time). So
 * `GET /v1/status` and reviews never touch D1 per call.
 */
import { asc, eq } from "drizzle-orm";
import { type ControlDb, controlDb } from "../../control/db";
import { glossaryTerms } from "../../control/schema";
import type { SiteSettings } from "../../control/sites.control";
import type { GlossaryTerm } from "../../engines/types";
import { log, redactError } from "../../obs/log";
import type { Store } from "../store";

export const GLOSSARY_MAX_AGE_MS = 5 * 60_000;

interface GlossaryMeta {
  count: number;
  loadedAt: number;
}

/** The organization's terms from D1 (the source of truth), as engines and QA take them. */
export async function readGlossary(db: ControlDb, organizationId: number): Promise<GlossaryTerm[]> {
  const rows = await db
    .select()
    .from(glossaryTerms)
    .where(eq(glossaryTerms.organizationId, organizationId))
    .orderBy(asc(glossaryTerms.language), asc(glossaryTerms.source), asc(glossaryTerms.id));
  return rows.map((r) => ({ source: r.source, target: r.target, language: r.language, caseSensitive: r.caseSensitive }));
}

/** True when the copy is missing or too old and should be loaded from D1. */
export function glossaryDue(store: Store, nowMs: number): boolean {
  const meta = store.getMeta<GlossaryMeta>("glossary");
  return !meta || nowMs - meta.loadedAt >= GLOSSARY_MAX_AGE_MS || nowMs < meta.loadedAt;
}

export function glossaryCount(store: Store): number {
  return store.getMeta<GlossaryMeta>("glossary")?.count ?? 0;
}

/** Terms whose target language is `language` (any case). */
export function glossaryFor(store: Store, language: string): GlossaryTerm[] {
  return store
    .all<{ source: string; target: string; language: string; case_sensitive: number }>(
      "SELECT source, target, language, case_sensitive FROM glossary WHERE language = ? ORDER BY id",
      language.toLowerCase(),
    )
    .map((r) => ({ source: r.source, target: r.target, language: r.language, caseSensitive: r.case_sensitive === 1 }));
}

/** Replaces the copy in one transaction (one multi-row statement, whatever the number of terms). */
export function replaceGlossary(store: Store, terms: GlossaryTerm[], nowMs: number) {
  store.tx(() => {
    store.run("DELETE FROM glossary");
    if (terms.length)
      store.run(
        `INSERT INTO glossary (language, source, target, case_sensitive)
         SELECT lower(json_extract(j.value, '$[0]')), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]') FROM json_each(?) j`,
        JSON.stringify(terms.map((t) => [t.language, t.source, t.target, t.caseSensitive ? 1 : 0])),
      );
    store.setMeta("glossary", { count: terms.length, loadedAt: nowMs } satisfies GlossaryMeta);
  });
}

/** Loads the organization's glossary from D1 when the object's copy is missing or old (not per request). */
export async function ensureGlossary(store: Store, env: Env, settings: SiteSettings) {
  if (!glossaryDue(store, Date.now())) return;
  let terms: GlossaryTerm[];
  try {
    terms = await readGlossary(controlDb(env.DB), settings.organizationId);
  } catch (err) {
    // D1 unavailable: an old copy serves until the next try; without one the request fails.
    if (store.getMeta("glossary") === undefined) throw err;
    log("warn", "glossary.reload_failed", { error: redactError(err) });
    return;
  }
  replaceGlossary(store, terms, Date.now());
}

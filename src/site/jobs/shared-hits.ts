/**
 * Reading the organization's memory (src/memory/) from a sharing site: a slice's exact matches
 * (one call per slice, with the slice's texts) and an estimate's (calls of SHARED_KEYS texts).
 * Exact matches from there are memory hits like the site's own (unbilled, `tm_exact`); the
 * site's own entry wins (it is read first, and the organization answers other sites' entries only).
 *
 * The organization's object failing never fails a job or an estimate: the texts are then
 * translated (and estimated) as if it held nothing, and the failure is logged.
 */
import type { SiteSettings } from "../../control/sites.control";
import { type OrgMemoryApi, orgMemory } from "../../memory/stub";
import { log, redactError } from "../../obs/log";
import type { Store } from "../store";
import { estimateScope, type JobScope, type ScopeEstimate, type SharedTargets, scopeTexts } from "./scope";

/** Texts per estimate call, and calls at once: a bound value of about 200 KB each. */
export const SHARED_KEYS = 2_000;
const CONCURRENT_CALLS = 4;

/**
 * An estimate's look-up: for every text in scope, which of `languages` the organization's
 * memory holds. Undefined when it holds nothing from other sites (one call) or could not be read.
 * `seen` is told the memory's version as it stood before the look-ups, once they all succeeded
 * (an estimate that read it whole; OrgMemoryObject.version).
 */
export async function sharedTargets(
  store: Store,
  settings: SiteSettings,
  scope: JobScope,
  languages: string[],
  org: OrgMemoryApi,
  seen?: (orgVersion: string) => void,
): Promise<SharedTargets | undefined> {
  try {
    const version = await org.version();
    if (!languages.length || !(await org.holdsOthers(settings.id))) {
      seen?.(version);
      return undefined;
    }
    const lowered = languages.map((l) => l.toLowerCase());
    const chunks: [string, string][][] = [];
    let chunk: [string, string][] = [];
    for (const key of scopeTexts(store, settings, scope, languages)) {
      chunk.push([key[0], key[1]]);
      if (chunk.length === SHARED_KEYS) {
        chunks.push(chunk);
        chunk = [];
      }
    }
    if (chunk.length) chunks.push(chunk);
    const found: SharedTargets = new Map();
    for (let i = 0; i < chunks.length; i += CONCURRENT_CALLS) {
      const answers = await Promise.all(chunks.slice(i, i + CONCURRENT_CALLS).map((keys) => org.targets(settings.id, lowered, keys)));
      for (const rows of answers)
        for (const [source, fingerprint, target] of rows) {
          const key = `${source}\u0000${fingerprint}`;
          const list = found.get(key);
          if (list) list.push(target);
          else found.set(key, [target]);
        }
    }
    seen?.(version);
    return found;
  } catch (err) {
    log("warn", "memory.org_unreadable", { site_id: settings.id, where: "estimate", error: redactError(err) });
    return undefined;
  }
}

/**
 * A job's estimate (its request, and again when it starts unless the stored one holds) with the
 * organization's exact matches counted as memory hits: a sharing site, a job not forced. `seen`:
 * as for sharedTargets.
 */
export async function estimateWithShared(
  store: Store,
  env: Env,
  settings: SiteSettings,
  scope: JobScope,
  languages: string[],
  seen?: (orgVersion: string) => void,
): Promise<ScopeEstimate> {
  const shared = settings.shareMemory && !scope.force ? await sharedTargets(store, settings, scope, languages, orgMemory(env, settings.organizationId), seen) : undefined;
  return estimateScope(store, settings, scope, languages, shared);
}

/**
 * A slice's look-up: the organization memory's texts in `language` for the given (source
 * language, fingerprint) pairs, by `<lowercased source language>\0<fingerprint>`.
 */
export async function sharedHits(settings: SiteSettings, language: string, keys: [string, string][], org: OrgMemoryApi): Promise<Map<string, string>> {
  const hits = new Map<string, string>();
  if (!keys.length) return hits;
  try {
    for (const [source, fingerprint, text] of await org.lookup(settings.id, language, keys)) hits.set(`${source}\u0000${fingerprint}`, text);
  } catch (err) {
    log("warn", "memory.org_unreadable", { site_id: settings.id, where: "slice", error: redactError(err) });
  }
  return hits;
}

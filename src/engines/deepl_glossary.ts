// DeepL glossaries (v2 endpoints): the organization's terms for one language pair become a
// DeepL glossary, created once and found again by a name derived from its content.

import { sha256Hex } from "../digest";
import { utf8Length } from "./batch";
import { callJson, callUpstream, DEFAULT_RETRY_POLICY, realSleep } from "./http";
import { EngineError, type GlossaryTerm, type RequestMeter, type Sleep } from "./types";

/** DeepL limits each glossary source or target phrase to 1024 UTF-8 bytes. */
const MAX_PHRASE_BYTES = 1024;
/** Polls while a new glossary is not yet ready. */
const READY_POLLS = 5;
const READY_POLL_MS = 500;

export interface DeepLGlossaryTarget {
  baseUrl: string;
  apiKey: string;
  /** Glossary languages are root codes in lower case: `en`, `pt`, `zh`. */
  sourceLang: string;
  targetLang: string;
  /**
   * Whose glossary it is (the organization): the glossary's name carries it, and when the
   * owner's terms change, its glossaries for the same pair with other content are deleted
   * (DeepL glossaries cannot be edited, and the account's glossary limit would fill up).
   * Without an owner nothing is deleted: one key serves many organizations.
   */
  owner?: string;
  meter?: RequestMeter;
  /** The wait between retries and readiness polls (the engine's). */
  sleep?: Sleep;
}

/**
 * Characters the official DeepL client refuses in a glossary term: C0 controls (U+0000–U+001F,
 * tab and line breaks included), C1 controls (U+0080–U+009F) and the Unicode line and paragraph
 * separators (U+2028, U+2029).
 */
const REFUSED_IN_TERMS = /[\u0000-\u001f\u0080-\u009f\u2028\u2029]/;

/**
 * In-memory cache per isolate: (key, source, target, entries) hash → glossary id, or null when
 * DeepL refused that glossary (the translation then runs without one). Promises, so
 * concurrent translations share one creation.
 */
const cache = new Map<string, Promise<string | null>>();

/** Forgets cached glossary ids (tests; a new isolate starts empty anyway). */
export function clearDeepLGlossaryCache(): void {
  cache.clear();
}

/**
 * The glossary's TSV entries: phrases trimmed, entries DeepL would refuse (empty, with a
 * control character or a line or paragraph separator, too long) left out, the first target kept for a repeated source, sorted so
 * the same terms in another order give the same glossary.
 */
export function glossaryEntries(terms: readonly GlossaryTerm[]): string {
  const bySource = new Map<string, string>();
  for (const term of terms) {
    const source = term.source.trim();
    const target = term.target.trim();
    if (!source || !target || REFUSED_IN_TERMS.test(source) || REFUSED_IN_TERMS.test(target)) continue;
    if (utf8Length(source) > MAX_PHRASE_BYTES || utf8Length(target) > MAX_PHRASE_BYTES) continue;
    if (!bySource.has(source)) bySource.set(source, target);
  }
  return [...bySource]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([source, target]) => `${source}\t${target}`)
    .join("\n");
}

/**
 * The id of a DeepL glossary holding `terms` for the language pair, creating it when needed.
 * Undefined when there are no usable terms or DeepL refuses the glossary (e.g. an unsupported
 * pair): the translation then goes without one and QA's glossary check reports misses.
 */
export async function deeplGlossaryId(target: DeepLGlossaryTarget, terms: readonly GlossaryTerm[]): Promise<string | undefined> {
  const entries = glossaryEntries(terms);
  if (!entries) return undefined;
  const contentHash = await sha256Hex(JSON.stringify([target.sourceLang, target.targetLang, entries]));
  const cacheKey = `${(await sha256Hex(target.apiKey)).slice(0, 16)}:${target.baseUrl}:${target.owner ?? ""}:${contentHash}`;
  let pending = cache.get(cacheKey);
  if (!pending) {
    pending = findOrCreate(target, `${namePrefix(target.owner)}${contentHash.slice(0, 40)}`, entries);
    cache.set(cacheKey, pending);
    // A failure (quota, outage) is not remembered: the next translation tries again.
    pending.catch(() => cache.delete(cacheKey));
  }
  return (await pending) ?? undefined;
}

/** Glossary names: `transync-<hash>`, or `transync-o<owner>-<hash>` for an owner's glossaries. */
function namePrefix(owner: string | undefined): string {
  return owner ? `transync-o${owner.replace(/[^A-Za-z0-9]/g, "")}-` : "transync-";
}

interface GlossaryInfo {
  glossary_id: string;
  name?: string;
  ready?: boolean;
  source_lang?: string;
  target_lang?: string;
}

async function findOrCreate(target: DeepLGlossaryTarget, name: string, entries: string): Promise<string | null> {
  const headers = { Authorization: `DeepL-Auth-Key ${target.apiKey}` };
  const call = (path: string, init: RequestInit) =>
    callJson({ engine: "DeepL", url: `${target.baseUrl}${path}`, init, secrets: [target.apiKey], classify: classifyGlossary, meter: target.meter, sleep: target.sleep });

  // After an isolate restart the glossary usually exists already: reuse it rather than
  // piling up copies against the account's glossary limit.
  const listed = (await call("/v2/glossaries", { method: "GET", headers })) as { glossaries?: GlossaryInfo[] };
  const samePair = (g: GlossaryInfo) => g.source_lang?.toLowerCase() === target.sourceLang && g.target_lang?.toLowerCase() === target.targetLang;
  let glossary = (listed.glossaries ?? []).find((g) => g.name === name && samePair(g));
  // The owner's glossaries for this pair with other (older) content are superseded by this one.
  const superseded = target.owner ? (listed.glossaries ?? []).filter((g) => samePair(g) && g.name !== name && g.name?.startsWith(namePrefix(target.owner))) : [];

  if (!glossary) {
    try {
      glossary = (await call("/v2/glossaries", {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: JSON.stringify({
          name,
          source_lang: target.sourceLang,
          target_lang: target.targetLang,
          entries,
          entries_format: "tsv",
        }),
      })) as GlossaryInfo;
    } catch (error) {
      if (error instanceof EngineError && error.kind === "rejected") return null;
      throw error;
    }
  }
  if (typeof glossary?.glossary_id !== "string") {
    throw new EngineError("bad_response", "DeepL answered a glossary without an id");
  }

  for (let poll = 0; glossary.ready === false && poll < READY_POLLS; poll++) {
    await (target.sleep ?? realSleep)(READY_POLL_MS);
    glossary = (await call(`/v2/glossaries/${encodeURIComponent(glossary.glossary_id)}`, {
      method: "GET",
      headers,
    })) as GlossaryInfo;
  }
  if (glossary.ready === false) {
    throw new EngineError("unavailable", "DeepL is still preparing the glossary; try again shortly");
  }
  await deleteGlossaries(target, superseded);
  return glossary.glossary_id;
}

/**
 * Deletes superseded glossaries (DELETE /v2/glossaries/{id} answers 204), best effort: a
 * failure leaves the glossary for the next change to delete and never fails a translation.
 */
async function deleteGlossaries(target: DeepLGlossaryTarget, glossaries: GlossaryInfo[]) {
  await Promise.all(
    glossaries.map(async (g) => {
      try {
        await callUpstream({
          engine: "DeepL",
          url: `${target.baseUrl}/v2/glossaries/${encodeURIComponent(g.glossary_id)}`,
          init: { method: "DELETE", headers: { Authorization: `DeepL-Auth-Key ${target.apiKey}` } },
          secrets: [target.apiKey],
          policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2 },
          meter: target.meter,
          sleep: target.sleep,
        });
      } catch (error) {
        if (!(error instanceof EngineError)) throw error;
      }
    }),
  );
}

function classifyGlossary(status: number): EngineError | undefined {
  if (status === 456) return quotaError();
  return undefined;
}

export function quotaError(): EngineError {
  return new EngineError("quota", "DeepL quota exceeded (HTTP 456): the plan's character allowance is used up");
}

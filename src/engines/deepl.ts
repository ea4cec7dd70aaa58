// DeepL API v2 (`POST /v2/translate`).
import type { Formality } from "../limits";
import { codePointLength, utf8Length } from "./batch";
import { type Configured, present, requireConfig, unsupportedSource, unsupportedTarget } from "./config";
import { deeplGlossaryId, quotaError } from "./deepl_glossary";
import type { EngineEntry } from "./entry";
import { callJson, type Verdict } from "./http";
import { lookupLanguage } from "./languages";
import { DEEPL_SOURCES, DEEPL_TARGETS } from "./languages/deepl";
import { type PreparedSegment, planPipeline } from "./pipeline";
import { type Engine, type EngineEnv, EngineError, type EngineLimits, type EngineOptions, type EngineRequest, type EngineSegment } from "./types";

/**
 * 50 texts per request; the request body may be 128 KiB, so texts are measured as the UTF-8
 * bytes they take in the JSON body, with 2 KiB kept for the other fields.
 */
export const DEEPL_LIMITS: EngineLimits = { maxSegments: 50, maxCharacters: 128 * 1024 - 2048 };

export const DEEPL_FORMALITY: Record<Formality, string | undefined> = {
  default: undefined,
  formal: "prefer_more",
  informal: "prefer_less",
};

export interface DeepLConfig {
  apiKey: string;
  /** https://api-free.deepl.com for keys ending in `:fx`, else https://api.deepl.com. */
  baseUrl: string;
}

export function readDeepLConfig(env: EngineEnv): Configured<DeepLConfig> {
  const apiKey = env.DEEPL_API_KEY?.trim();
  if (!present(apiKey)) {
    return { ok: false, message: "DeepL is not configured: set the DEEPL_API_KEY secret." };
  }
  const baseUrl = apiKey.endsWith(":fx") ? "https://api-free.deepl.com" : "https://api.deepl.com";
  return { ok: true, config: { apiKey, baseUrl } };
}

/** The DeepL target code for a site language, or undefined. */
export function deeplTarget(code: string): string | undefined {
  return lookupLanguage(DEEPL_TARGETS, code);
}

/** The DeepL source code for a site language, or undefined. */
export function deeplSource(code: string): string | undefined {
  return lookupLanguage(DEEPL_SOURCES, code);
}

interface DeepLAnswer {
  translations?: { text?: unknown }[];
}

export function createDeepLEngine(env: EngineEnv, options: EngineOptions = {}): Engine {
  const configured = readDeepLConfig(env);
  return {
    name: "deepl",
    origin: "mt",
    limits: DEEPL_LIMITS,
    supports: (targetLanguage) => deeplTarget(targetLanguage) !== undefined,
    async translate(request: EngineRequest): Promise<string[]> {
      const { apiKey, baseUrl } = requireConfig(configured);
      const targetLang = deeplTarget(request.targetLanguage);
      if (!targetLang) throw unsupportedTarget("DeepL", request.targetLanguage);
      const sourceLang = deeplSource(request.sourceLanguage);
      if (!sourceLang) throw unsupportedSource("DeepL", request.sourceLanguage);

      const needsWork = request.segments.some((s) => s.text.trim() !== "");
      const glossaryId =
        needsWork && request.glossary.length > 0
          ? await deeplGlossaryId(
              {
                baseUrl,
                apiKey,
                sourceLang: sourceLang.toLowerCase(),
                // Glossaries use root codes; a PT glossary serves PT-BR and PT-PT alike.
                targetLang: targetLang.split("-")[0].toLowerCase(),
                owner: request.glossaryOwner,
                meter: request.meter,
                sleep: options.sleep,
              },
              request.glossary,
            )
          : undefined;

      // One request per unit: DeepL takes one `context` per request (see unitGroups).
      const groups = unitGroups(request.segments);
      if (groups.length === 1 && groups[0].context === undefined) return translateGroup(request, undefined, DEEPL_LIMITS);
      // Every group is planned (protected, split, a text too long refused) before any is sent.
      const plans = groups.map((group) => {
        const reserved = group.context === undefined ? 0 : utf8Length(JSON.stringify(group.context)) + 16;
        const segments = group.indexes.map((i) => request.segments[i]);
        return planGroup({ ...request, segments }, group.context, { ...DEEPL_LIMITS, maxCharacters: DEEPL_LIMITS.maxCharacters - reserved });
      });
      const out = new Array<string>(request.segments.length);
      for (const [g, group] of groups.entries()) {
        const texts = await plans[g]();
        group.indexes.forEach((index, i) => {
          out[index] = texts[i];
        });
      }
      return out;

      function translateGroup(request: EngineRequest, unitContext: string | undefined, limits: EngineLimits): Promise<string[]> {
        return planGroup(request, unitContext, limits)();
      }

      function planGroup(request: EngineRequest, unitContext: string | undefined, limits: EngineLimits): () => Promise<string[]> {
        return planPipeline(request, {
          engine: "DeepL",
          mode: "html",
          limits,
          // Each text costs its JSON-encoded bytes plus a separating comma.
          measure: (text) => utf8Length(JSON.stringify(text)) + 1,
          send: async (batch, { markup }) => {
            const body: Record<string, unknown> = {
              text: batch.map((item) => item.text),
              source_lang: sourceLang,
              target_lang: targetLang,
              // Keeps the source's capitalization and punctuation: CMS strings such as labels
              // often deliberately lack a final period.
              preserve_formatting: true,
            };
            const formality = DEEPL_FORMALITY[request.formality];
            if (formality) body.formality = formality;
            if (glossaryId) body.glossary_id = glossaryId;
            if (markup) body.tag_handling = "html";
            const context = [batchContext(batch), unitContext].filter(Boolean).join("\n");
            if (context) body.context = context;

            const answer = (await callJson({
              engine: "DeepL",
              url: `${baseUrl}/v2/translate`,
              init: {
                method: "POST",
                headers: { Authorization: `DeepL-Auth-Key ${apiKey}`, "Content-Type": "application/json" },
                body: JSON.stringify(body),
              },
              secrets: [apiKey],
              classify: classifyDeepL,
              meter: request.meter,
              sleep: options.sleep,
            })) as DeepLAnswer;
            return readTranslations(answer, batch.length);
          },
        });
      }
    },
  };
}

/** Characters (code points) of a request's unit context at most: the label and the nearest neighbouring texts. */
export const DEEPL_CONTEXT_CHARACTERS = 1_500;

/** Texts of one unit (same label and path) and the `context` their requests carry. */
interface UnitGroup {
  indexes: number[];
  context: string | undefined;
}

/**
 * Groups a request's texts by unit (label and path), in order of first appearance, each with
 * its unit context: the label, then the neighbouring texts of the group's texts (each once, in
 * page order as far as the slice gave them), cut to DEEPL_CONTEXT_CHARACTERS. DeepL applies a
 * request's `context` to every text in it, so texts of different units cannot share a request
 * without misleading it: a batch of texts from n units becomes n requests (the trade-off is
 * in docs/decisions.md, "What engines are told"). Texts without context form one group that is
 * sent as before.
 */
export function unitGroups(segments: readonly EngineSegment[]): UnitGroup[] {
  const groups = new Map<string, { indexes: number[]; label: string; neighbours: string[] }>();
  segments.forEach((segment, index) => {
    const c = segment.context;
    const label = c?.label ?? "";
    const key = c && (label || c.path || c.before?.length || c.after?.length) ? `u\u0000${label}\u0000${c.path ?? ""}` : "";
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { indexes: [], label, neighbours: [] }));
    group.indexes.push(index);
    if (key) group.neighbours.push(...(c?.before ?? []), ...(c?.after ?? []));
  });
  return [...groups.entries()].map(([key, group]) => {
    if (!key) return { indexes: group.indexes, context: undefined };
    const own = new Set(group.indexes.map((i) => segments[i].text));
    const parts = [group.label, ...new Set(group.neighbours.filter((t) => t && !own.has(t)))].filter(Boolean);
    let context = "";
    for (const part of parts) {
      const next = context ? `${context}\n${part}` : part;
      if (codePointLength(next) > DEEPL_CONTEXT_CHARACTERS) break;
      context = next;
    }
    return { indexes: group.indexes, context: context || undefined };
  });
}

/** DeepL answers 456 when the plan's characters are used up: retrying cannot help. */
function classifyDeepL(status: number): Verdict {
  return status === 456 ? quotaError() : undefined;
}

function readTranslations(answer: DeepLAnswer, expected: number): string[] {
  const list = answer?.translations;
  if (!Array.isArray(list) || list.length !== expected || list.some((t) => typeof t?.text !== "string")) {
    throw new EngineError("bad_response", `DeepL answered an unexpected body for ${expected} texts`);
  }
  return list.map((t) => t.text as string);
}

/**
 * DeepL's `context` (not translated, not billed) for a batch whose texts all come from the
 * same kind of content and field, e.g. `Website content: the "title" field of a "product".`
 * Mixed batches get none: context applies to every text of a request.
 */
export function batchContext(batch: readonly PreparedSegment[]): string | undefined {
  const kinds = new Set(batch.map((item) => item.segment.kind ?? ""));
  const fields = new Set(batch.map((item) => item.segment.field ?? ""));
  const kind = kinds.size === 1 ? [...kinds][0] : "";
  const field = fields.size === 1 ? [...fields][0] : "";
  if (!kind && !field) return undefined;
  if (kind && field) return `Website content: the "${field}" field of a "${kind}".`;
  return kind ? `Website content of a "${kind}".` : `Website content: the "${field}" field.`;
}

declare module "./types" {
  /** What DeepL reads from the Worker's vars and secrets. */
  interface EngineEnv {
    DEEPL_API_KEY?: string;
  }
}

/** The engine's entry in the registry (registry.ts). */
export const DEEPL: EngineEntry<"deepl"> = { name: "deepl", label: "DeepL", concurrency: 4, create: createDeepLEngine, configuration: readDeepLConfig };

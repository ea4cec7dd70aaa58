// Azure AI Translator v3 (`POST /translate?api-version=3.0`).
import { codePointLength } from "./batch";
import { type Configured, present, requireConfig, unsupportedSource, unsupportedTarget } from "./config";
import type { EngineEntry } from "./entry";
import { callJson, parseJsonBody, type Verdict } from "./http";
import { lookupLanguage } from "./languages";
import { AZURE_LANGUAGES } from "./languages/azure";
import { runPipeline } from "./pipeline";
import { type Engine, type EngineEnv, EngineError, type EngineLimits, type EngineOptions, type EngineRequest } from "./types";

export const AZURE_DEFAULT_ENDPOINT = "https://api.cognitive.microsofttranslator.com";

/** 1,000 elements and 50,000 characters per request (one target language per request here). */
export const AZURE_LIMITS: EngineLimits = { maxSegments: 1000, maxCharacters: 50_000 };

/**
 * Characters per request from AZURE_TRANSLATOR_MAX_CHARACTERS (1,000–50,000), else 50,000.
 * The free tier (F0) enforces its hourly allowance as about 33,300 characters a minute, so it
 * refuses a 50,000-character request with 429001 every time: set 10,000 or so there.
 */
export function azureMaxCharacters(raw: string | undefined): number {
  const value = Number(raw);
  if (!present(raw) || !Number.isInteger(value) || value < 1) return AZURE_LIMITS.maxCharacters;
  return Math.min(AZURE_LIMITS.maxCharacters, Math.max(1_000, value));
}

/** Azure's code for a site language, or undefined. */
export function azureLanguage(code: string): string | undefined {
  return lookupLanguage(AZURE_LANGUAGES, code);
}

export interface AzureConfig {
  key: string;
  /** Required for regional and multi-service resources; omitted for global ones. */
  region?: string;
  /** Base URL the `/translate` path is appended to. */
  endpoint: string;
}

export function readAzureConfig(env: EngineEnv): Configured<AzureConfig> {
  if (!present(env.AZURE_TRANSLATOR_KEY)) {
    return {
      ok: false,
      message: "Azure Translator is not configured: set the AZURE_TRANSLATOR_KEY secret (and AZURE_TRANSLATOR_REGION for a regional resource).",
    };
  }
  const endpoint = (present(env.AZURE_TRANSLATOR_ENDPOINT) ? env.AZURE_TRANSLATOR_ENDPOINT.trim() : AZURE_DEFAULT_ENDPOINT).replace(/\/+$/, "");
  return {
    ok: true,
    config: {
      key: env.AZURE_TRANSLATOR_KEY.trim(),
      region: present(env.AZURE_TRANSLATOR_REGION) ? env.AZURE_TRANSLATOR_REGION.trim() : undefined,
      endpoint,
    },
  };
}

/**
 * Azure error bodies carry a six-digit code: 403001 means the free tier's characters are used
 * up (quota), 429000–429002 are rate limits (retried by the default rules).
 */
function classifyAzure(status: number, body: string): Verdict {
  const code = (parseJsonBody(body) as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (code === 403001 || code === "403001") {
    return new EngineError("quota", "Azure Translator quota exceeded (code 403001): the subscription's free characters are used up");
  }
  if (status === 400 && (code === 400036 || code === 400019 || code === 400035)) {
    return new EngineError("unsupported_language", `Azure Translator refused the language (code ${code})`);
  }
  return undefined;
}

export function createAzureEngine(env: EngineEnv, options: EngineOptions = {}): Engine {
  const configured = readAzureConfig(env);
  const limits: EngineLimits = { ...AZURE_LIMITS, maxCharacters: azureMaxCharacters(env.AZURE_TRANSLATOR_MAX_CHARACTERS) };
  return {
    name: "azure",
    origin: "mt",
    limits,
    supports: (targetLanguage) => azureLanguage(targetLanguage) !== undefined,
    async translate(request: EngineRequest): Promise<string[]> {
      const { key, region, endpoint } = requireConfig(configured);
      const to = azureLanguage(request.targetLanguage);
      if (!to) throw unsupportedTarget("Azure Translator", request.targetLanguage);
      const from = azureLanguage(request.sourceLanguage);
      if (!from) throw unsupportedSource("Azure Translator", request.sourceLanguage);

      const headers: Record<string, string> = {
        "Ocp-Apim-Subscription-Key": key,
        "Content-Type": "application/json; charset=UTF-8",
      };
      if (region) headers["Ocp-Apim-Subscription-Region"] = region;

      return runPipeline(request, {
        engine: "Azure Translator",
        mode: "html",
        limits,
        measure: codePointLength,
        send: async (batch, { markup }) => {
          const query = new URLSearchParams({ "api-version": "3.0", from, to, textType: markup ? "html" : "plain" });
          const answer = await callJson({
            engine: "Azure Translator",
            url: `${endpoint}/translate?${query}`,
            init: { method: "POST", headers, body: JSON.stringify(batch.map((item) => ({ Text: item.text }))) },
            secrets: [key],
            classify: classifyAzure,
            meter: request.meter,
            sleep: options.sleep,
          });
          if (!Array.isArray(answer) || answer.length !== batch.length) {
            throw new EngineError("bad_response", `Azure Translator answered an unexpected body for ${batch.length} texts`);
          }
          return answer.map((element: { translations?: { text?: unknown }[] }) => {
            const text = element?.translations?.[0]?.text;
            if (typeof text !== "string") {
              throw new EngineError("bad_response", "Azure Translator answered an element without a translation");
            }
            return text;
          });
        },
      });
    },
  };
}

declare module "./types" {
  /** What Azure Translator reads from the Worker's vars and secrets. */
  interface EngineEnv {
    AZURE_TRANSLATOR_KEY?: string;
    AZURE_TRANSLATOR_REGION?: string;
    AZURE_TRANSLATOR_ENDPOINT?: string;
    /** Characters per Azure request (default 50,000; the free tier needs less, see azureMaxCharacters). */
    AZURE_TRANSLATOR_MAX_CHARACTERS?: string;
  }
}

/** The engine's entry in the registry (registry.ts). */
export const AZURE: EngineEntry<"azure"> = { name: "azure", label: "Azure Translator", concurrency: 4, create: createAzureEngine, configuration: readAzureConfig };

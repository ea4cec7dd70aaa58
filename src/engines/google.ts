// Google Cloud Translation v3 (`projects/{project}/locations/global:translateText`).
import { codePointLength } from "./batch";
import { type Configured, present, requireConfig, unsupportedSource, unsupportedTarget } from "./config";
import type { EngineEntry } from "./entry";
import { parseServiceAccount, type ServiceAccount, serviceAccountToken } from "./google_auth";
import { callJson, parseJsonBody, type Verdict } from "./http";
import { lookupLanguage } from "./languages";
import { GOOGLE_LANGUAGES } from "./languages/google";
import { runPipeline } from "./pipeline";
import { type Engine, type EngineEnv, EngineError, type EngineLimits, type EngineOptions, type EngineRequest, type Sleep } from "./types";

/** 1,024 strings and about 30,000 code points per request. */
export const GOOGLE_LIMITS: EngineLimits = { maxSegments: 1024, maxCharacters: 30_000 };

/** Google's code for a site language, or undefined. */
export function googleLanguage(code: string): string | undefined {
  return lookupLanguage(GOOGLE_LANGUAGES, code);
}

export type GoogleAuth = { kind: "token"; token: string } | { kind: "service_account"; account: ServiceAccount };

export interface GoogleConfig {
  project: string;
  auth: GoogleAuth;
}

const NOT_CONFIGURED = "Google Cloud Translation is not configured: set the GOOGLE_SERVICE_ACCOUNT secret (or GOOGLE_ACCESS_TOKEN) and GOOGLE_PROJECT_ID.";

/** The service account is preferred: a fixed GOOGLE_ACCESS_TOKEN expires within an hour. */
export function readGoogleConfig(env: EngineEnv): Configured<GoogleConfig> {
  let auth: GoogleAuth | undefined;
  let projectFromAccount: string | undefined;
  if (present(env.GOOGLE_SERVICE_ACCOUNT)) {
    const account = parseServiceAccount(env.GOOGLE_SERVICE_ACCOUNT);
    if (!account) {
      return {
        ok: false,
        message: "Google Cloud Translation is not configured: GOOGLE_SERVICE_ACCOUNT is not a service-account key (JSON with client_email and private_key).",
      };
    }
    auth = { kind: "service_account", account };
    projectFromAccount = account.project_id;
  } else if (present(env.GOOGLE_ACCESS_TOKEN)) {
    auth = { kind: "token", token: env.GOOGLE_ACCESS_TOKEN.trim() };
  }
  const project = present(env.GOOGLE_PROJECT_ID) ? env.GOOGLE_PROJECT_ID.trim() : projectFromAccount;
  if (!auth || !present(project)) return { ok: false, message: NOT_CONFIGURED };
  return { ok: true, config: { project, auth } };
}

async function accessToken(auth: GoogleAuth, sleep?: Sleep): Promise<string> {
  return auth.kind === "token" ? auth.token : serviceAccountToken(auth.account, Date.now, sleep);
}

interface GoogleErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    /** v2-style reasons (`rateLimitExceeded`, `dailyLimitExceeded` …). */
    errors?: { reason?: string; message?: string }[];
    /** v3: google.rpc details, among them `ErrorInfo` with `reason` and `metadata`. */
    details?: { "@type"?: string; reason?: string; metadata?: Record<string, string> }[];
  };
}

/** Reasons of an error body, v2 `errors[].reason` and v3 `ErrorInfo.reason`, and the quota limits named in ErrorInfo metadata. */
export function googleReasons(body: string): { reasons: string[]; limits: string[]; status: string; message: string } {
  const error = (parseJsonBody(body) as GoogleErrorBody | undefined)?.error;
  const infos = (error?.details ?? []).filter((d) => typeof d?.["@type"] === "string" && d["@type"].endsWith("google.rpc.ErrorInfo"));
  return {
    reasons: [...(error?.errors ?? []).map((e) => e?.reason), ...infos.map((d) => d.reason)].filter((r): r is string => typeof r === "string"),
    limits: infos.flatMap((d) =>
      Object.entries(d.metadata ?? {})
        .filter(([k]) => /quota_?limit|quota_?metric/i.test(k))
        .map(([, v]) => String(v)),
    ),
    status: typeof error?.status === "string" ? error.status : "",
    message: typeof error?.message === "string" ? error.message.replace(/\s+/g, " ").slice(0, 200) : "",
  };
}

const PER_DAY = /per.?day|daily/i;

/**
 * Google reports quota and rate limits as 403 or 429, with reasons in v2's `errors[].reason`
 * or v3's `ErrorInfo` (compared case-insensitively): a daily limit (`dailyLimitExceeded`,
 * `quotaExceeded`, or a rate limit whose quota is per day) is quota, which retrying cannot fix
 * before tomorrow; a per-minute limit (`rateLimitExceeded`, `userRateLimitExceeded`,
 * `RATE_LIMIT_EXCEEDED`, status `RESOURCE_EXHAUSTED`) is retried. Any other 403 is shown with
 * its reason (a disabled API, a missing permission), never retried.
 */
export function classifyGoogle(status: number, body: string): Verdict {
  if (status === 403 || status === 429) {
    const { reasons, limits, status: state, message } = googleReasons(body);
    const lower = reasons.map((r) => r.toLowerCase().replace(/_/g, ""));
    const daily =
      lower.some((r) => r === "dailylimitexceeded" || r === "quotaexceeded") || (limits.some((l) => PER_DAY.test(l)) && lower.some((r) => r.includes("ratelimitexceeded")));
    if (daily) {
      return new EngineError("quota", `Google Cloud Translation quota exceeded (HTTP ${status}: ${reasons.join(", ") || state}): the daily limit is used up`);
    }
    if (lower.some((r) => r === "ratelimitexceeded" || r === "userratelimitexceeded") || state === "RESOURCE_EXHAUSTED") return "retry";
    if (status === 403) {
      const why = [reasons[0] ?? state, message].filter(Boolean).join(": ");
      return new EngineError("rejected", `Google Cloud Translation refused the request (HTTP 403${why ? `: ${why}` : ""})`);
    }
  }
  if (status === 400 && /not supported|Target language/i.test(body)) {
    const parsed = parseJsonBody(body) as { error?: { message?: string } } | undefined;
    const reason = parsed?.error?.message?.slice(0, 200);
    return new EngineError("unsupported_language", `Google Cloud Translation refused the language pair${reason ? `: ${reason}` : ""}`);
  }
  return undefined;
}

export function createGoogleEngine(env: EngineEnv, options: EngineOptions = {}): Engine {
  const configured = readGoogleConfig(env);
  return {
    name: "google",
    origin: "mt",
    limits: GOOGLE_LIMITS,
    supports: (targetLanguage) => googleLanguage(targetLanguage) !== undefined,
    async translate(request: EngineRequest): Promise<string[]> {
      const { project, auth } = requireConfig(configured);
      const targetLanguageCode = googleLanguage(request.targetLanguage);
      if (!targetLanguageCode) throw unsupportedTarget("Google Cloud Translation", request.targetLanguage);
      const sourceLanguageCode = googleLanguage(request.sourceLanguage);
      if (!sourceLanguageCode) throw unsupportedSource("Google Cloud Translation", request.sourceLanguage);
      const url = `https://translation.googleapis.com/v3/projects/${encodeURIComponent(project)}/locations/global:translateText`;

      return runPipeline(request, {
        engine: "Google Cloud Translation",
        mode: "html",
        limits: GOOGLE_LIMITS,
        measure: codePointLength,
        send: async (batch, { markup }) => {
          const token = await accessToken(auth, options.sleep);
          const answer = (await callJson({
            engine: "Google Cloud Translation",
            url,
            init: {
              method: "POST",
              headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json; charset=utf-8" },
              body: JSON.stringify({
                contents: batch.map((item) => item.text),
                sourceLanguageCode,
                targetLanguageCode,
                mimeType: markup ? "text/html" : "text/plain",
              }),
            },
            secrets: [token],
            classify: classifyGoogle,
            meter: request.meter,
            sleep: options.sleep,
          })) as { translations?: { translatedText?: unknown }[] };
          const list = answer?.translations;
          if (!Array.isArray(list) || list.length !== batch.length || list.some((t) => typeof t?.translatedText !== "string")) {
            throw new EngineError("bad_response", `Google Cloud Translation answered an unexpected body for ${batch.length} texts`);
          }
          return list.map((t) => t.translatedText as string);
        },
      });
    },
  };
}

declare module "./types" {
  /** What Google Cloud Translation reads from the Worker's vars and secrets. */
  interface EngineEnv {
    GOOGLE_PROJECT_ID?: string;
    /** Service-account JSON (client_email, private_key) used to mint OAuth tokens for Cloud Translation v3. */
    GOOGLE_SERVICE_ACCOUNT?: string;
    /** Alternatively a ready OAuth access token (local testing). */
    GOOGLE_ACCESS_TOKEN?: string;
  }
}

/** The engine's entry in the registry (registry.ts). */
export const GOOGLE: EngineEntry<"google"> = { name: "google", label: "Google Cloud Translation", concurrency: 8, create: createGoogleEngine, configuration: readGoogleConfig };

// Fault-injection fixtures: HTTP engines (DeepL, an OpenAI-compatible API) mocked with MSW
// handlers that keep a ledger of what they were sent and answered, engine secrets handed to
// the site object, flaky D1 handles, and the invariants every fault test checks afterwards.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { expect } from "vitest";
import { characters } from "../../src/site/fingerprint";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, type SiteOptions, unit } from "./api";
import { type FetchMock, mockFetch } from "./http";
import { allResults } from "./jobs";
import { recordObjectSleeps, TEST_DEPS } from "./seams";
import { objectEnv, runnerDeps, setObjectEnv, stubOf } from "./site";

type Client = ReturnType<typeof client>;

export const DEEPL_KEY = "5be0c5a8-91d2-4c7e-b7a3-2f6d1e0c9a44:fx";
export const OPENAI_KEY = "sk-test-Zq8xW3vN5mK2pR7tY4uB9cD1eF6gH0jLmN";
/** The secrets the test environment lacks; the site object gets them through `arm`/`slice`. */
export const SECRETS = { DEEPL_API_KEY: DEEPL_KEY, OPENAI_API_KEY: OPENAI_KEY };
export const DEEPL_URL = "https://api-free.deepl.com/v2/translate";
export const OPENAI_URL = "https://api.openai.com/v1/chat/completions";

/** What a scripted call answers instead of a translation: a response, a timeout, or a lost connection. */
export type Fault = Response | "timeout" | "network" | undefined;
/** Decides the fault of call `n` (1-based, over all calls to that engine) carrying `texts`. */
export type Script = (n: number, texts: string[]) => Fault;

export interface EngineLog {
  /** Every call, with the texts it carried. */
  calls: string[][];
  /** Calls answered with a usable translation, with their texts. */
  accepted: string[][];
  /** Source characters in accepted calls: what the engine translated and would bill. */
  acceptedCharacters: number;
}

const newLog = (): EngineLog => ({ calls: [], accepted: [], acceptedCharacters: 0 });

export const deeplTranslation = (text: string, target: string) => `${target}: ${text}`;
export const openaiTranslation = (text: string, target: string) => `[${target}] ${text}`;

function timeout(): never {
  // What fetch() rejects with when AbortSignal.timeout() fires.
  throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
}

/** The shapes DeepL and the OpenAI API use for a request that could not be handled. */
export const deeplError = (status: number, message = "Internal error") => HttpResponse.json({ message }, { status });
export const openaiError = (status: number, message = "The server had an error", code: string | null = null) =>
  HttpResponse.json({ error: { message, type: "server_error", code } }, { status });

export interface Engines {
  fetch: FetchMock;
  deepl: EngineLog;
  openai: EngineLog;
  /** Backoff waits the retries asked for (they return at once). */
  sleeps: number[];
}

/**
 * Mocks DeepL and the OpenAI chat completions API for the rest of the test. Each engine
 * translates by tagging the text with the target language, unless its script answers a fault.
 */
export function mockEngines(scripts: { deepl?: Script; openai?: Script } = {}): Engines {
  const deepl = newLog();
  const openai = newLog();
  const sleeps = recordObjectSleeps();

  const fetch = mockFetch([
    http.post(DEEPL_URL, async ({ request }) => {
      if (request.headers.get("Authorization") !== `DeepL-Auth-Key ${DEEPL_KEY}`) return deeplError(403, "Wrong key");
      const body = (await request.json()) as { text: string[]; target_lang: string };
      deepl.calls.push(body.text);
      const fault = scripts.deepl?.(deepl.calls.length, body.text);
      if (fault === "timeout") timeout();
      if (fault === "network") return HttpResponse.error();
      if (fault) return fault;
      deepl.accepted.push(body.text);
      deepl.acceptedCharacters += body.text.reduce((n, t) => n + characters(t), 0);
      return HttpResponse.json({
        translations: body.text.map((t) => ({ detected_source_language: "EN", text: deeplTranslation(t, body.target_lang) })),
      });
    }),
    http.post(OPENAI_URL, async ({ request }) => {
      if (request.headers.get("Authorization") !== `Bearer ${OPENAI_KEY}`) return openaiError(401, "Incorrect API key provided");
      const body = (await request.json()) as { messages: { role: string; content: string }[] };
      const items = (JSON.parse(body.messages[1].content) as { items: { id: string; text: string }[] }).items;
      const texts = items.map((i) => i.text);
      const target = /into [^(]*\(([a-z-]+)\)/i.exec(body.messages[0].content)?.[1] ?? "xx";
      openai.calls.push(texts);
      const fault = scripts.openai?.(openai.calls.length, texts);
      if (fault === "timeout") timeout();
      if (fault === "network") return HttpResponse.error();
      if (fault) return fault;
      openai.accepted.push(texts);
      openai.acceptedCharacters += texts.reduce((n, t) => n + characters(t), 0);
      const content = JSON.stringify({ items: items.map((i) => ({ id: i.id, translation: openaiTranslation(i.text, target) })) });
      return HttpResponse.json({ id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] });
    }),
  ]);
  return { fetch, deepl, openai, sleeps };
}

/**
 * Hands the engine secrets (and optionally other bindings, e.g. a flaky DB) to the live site
 * object instance: its alarm reads `this.env`. An evicted object starts again without them.
 */
export async function arm(siteId: number, extra: Partial<Env> = {}) {
  await runInDurableObject(stubOf(siteId), async (o: SiteObject) => {
    setObjectEnv(o, { ...objectEnv(o), ...SECRETS, DB: env.DB, ...extra });
  });
}

/** One alarm of the site object, with the secrets set. Resolves whether an alarm ran. */
export async function alarm(siteId: number, extra: Partial<Env> = {}) {
  await arm(siteId, extra);
  return runDurableObjectAlarm(stubOf(siteId));
}

/** One slice of the current job (an alarm invocation whose time budget ends after a slice). */
export async function slice(siteId: number, extra: Partial<Env> = {}) {
  return runInDurableObject(stubOf(siteId), async (o: SiteObject) =>
    runJobs(runnerDeps(o, { sleep: TEST_DEPS.sleep, env: { ...SECRETS, DB: env.DB, ...extra } }), { maxSlices: 1 }),
  );
}

/**
 * A site translating de through DeepL and fr through the OpenAI API, one unit of `segments`
 * and its confirmed job, whose answer must match `estimate`.
 */
export async function startJob(segments: { key: string; text: string }[], estimate: Record<string, number>) {
  const site = await createSite({
    target_languages: [
      { code: "de", engine: "deepl" },
      { code: "fr", engine: "openai" },
    ],
  });
  const c = client(site.key);
  expect((await c.put("/v1/units", unit("product:1", segments))).status).toBe(200);
  const created = await c.post("/v1/jobs", { confirm: true });
  expect(created.status).toBe(202);
  expect(created.body).toMatchObject(estimate);
  return { site, c, jobId: created.body.id as number };
}

/** Runs alarms until the job has finished. GET /v1/jobs/{id} re-arms a lost alarm, as in production. */
export async function runToEnd(c: Client, siteId: number, jobId: number, maxAlarms = 30) {
  for (let i = 0; i < maxAlarms; i++) {
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    if (!["queued", "running"].includes(job.status)) return job;
    await alarm(siteId);
  }
  throw new Error(`job ${jobId} did not finish`);
}

/** Sum of the usage ledger of a site, and its rows per (job, slice). */
export async function ledger(siteId: number) {
  const sum = await env.DB.prepare("SELECT coalesce(sum(characters), 0) AS n FROM usage_ledger WHERE site_id = ?").bind(siteId).first<{ n: number }>();
  const { results: rows } = await env.DB.prepare("SELECT job_id, slice, characters FROM usage_ledger WHERE site_id = ? ORDER BY job_id, slice")
    .bind(siteId)
    .all<{ job_id: number; slice: number; characters: number }>();
  return { sum: sum!.n, rows };
}

export const sumCharacters = (texts: Iterable<string>) => [...texts].reduce((n, t) => n + characters(t), 0);

/** `n` distinct plain texts (digits keep the QA number check quiet for tagged translations). */
export const texts = (n: number, prefix = "Catalogue entry") => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1} of the shop`);

/** Segments keyed s0000, s0001… (`digits` wide) with the texts of `list`, in order. */
export const keyed = (list: string[], digits = 4) => list.map((text, i) => ({ key: `s${String(i).padStart(digits, "0")}`, text }));

/** A site translating into `languages` (the rest from `options`) with one unit, page:1, of `segments`. */
export async function siteWithPage(languages: string[], segments: { key: string; text: string }[], options: SiteOptions = {}) {
  const site = await createSite({ ...options, target_languages: languages.map((code) => ({ code })) });
  const c = client(site.key);
  expect((await c.put("/v1/units", unit("page:1", segments))).status).toBe(200);
  return { site, c };
}

/**
 * The invariants of every fault: no result lost or duplicated, counters that add up, and a
 * usage ledger equal to `billed` (and to the job's `characters`).
 */
export async function expectConsistent(c: Client, siteId: number, job: any, billed: number) {
  const results = await allResults(c);
  const ids = results.map((r) => r.id);
  expect(new Set(ids).size, "result ids are unique").toBe(ids.length);
  const pairs = results.map((r) => `${r.unit}/${r.key}/${r.language}`);
  expect(new Set(pairs).size, "one result per segment and language").toBe(pairs.length);
  expect(job.qa_failed_segments).toBe(0);
  expect(results.length, "every translated segment is delivered").toBe(job.done_segments);
  expect(job.done_segments + job.failed_segments, "done + failed = estimated").toBe(job.estimated_segments);
  expect(job.failed_segments, "failed segments are reported in errors").toBe(job.errors.reduce((n: number, e: any) => n + e.segments, 0));
  const usage = await ledger(siteId);
  expect(usage.sum, "usage ledger = characters the engines translated").toBe(billed);
  expect(job.characters, "job characters = ledger").toBe(billed);
  const slices = usage.rows.filter((r) => r.job_id === job.id).map((r) => r.slice);
  expect(new Set(slices).size, "one ledger row per slice").toBe(slices.length);
  return results;
}

/** Each text in at most one accepted call, over all accepted calls of a log. */
export function translatedOnce(log: EngineLog) {
  const all = log.accepted.flat();
  expect(new Set(all).size, "no text translated twice").toBe(all.length);
  return new Set(all);
}

/** Per-language counts from GET /v1/status. */
export async function languageCounts(c: Client) {
  const res = await c.get("/v1/status");
  return Object.fromEntries(res.body.languages.map((l: any) => [l.code, { review: l.review, missing: l.missing, stale: l.stale, attention: l.attention }]));
}

/**
 * A D1 handle whose statements fail while `down()` says so: at prepare (the request never
 * reaches D1), or (`lose`) after the statement ran, as when D1 commits a write and the answer
 * is lost on the way back. `slow` delays the statements it matches and logs when each ran.
 */
export function flakyDb(
  real: D1Database,
  fault: {
    down?: (sql: string) => boolean;
    lose?: (sql: string) => boolean;
    slow?: { matches: (sql: string) => boolean; delayMs: number; log: { start: number; end: number }[] };
  },
): D1Database {
  const failure = () => new Error("D1_ERROR: Network connection lost.");
  const wrapStatement = (stmt: D1PreparedStatement, sql: string): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        const value = (target as any)[prop];
        if (prop === "bind") return (...args: unknown[]) => wrapStatement(value.apply(target, args), sql);
        if (["run", "all", "raw", "first"].includes(prop as string))
          return async (...args: unknown[]) => {
            const slow = fault.slow?.matches(sql) ? { start: Date.now(), end: Number.POSITIVE_INFINITY } : undefined;
            if (slow) {
              fault.slow!.log.push(slow);
              await new Promise((resolve) => setTimeout(resolve, fault.slow!.delayMs));
            }
            const out = await value.apply(target, args);
            if (slow) slow.end = Date.now();
            if (fault.lose?.(sql)) throw failure();
            return out;
          };
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "prepare")
        return (sql: string) => {
          if (fault.down?.(sql)) throw failure();
          return wrapStatement(target.prepare(sql), sql);
        };
      const value = (target as any)[prop];
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

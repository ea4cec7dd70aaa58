// Engine faults through the real runner and the HTTP API: DeepL (de) and an OpenAI-compatible
// model (fr) are mocked at the HTTP level and misbehave in scripted ways. After each fault the
// job must account for every segment exactly once and bill exactly what was translated.
import { env } from "cloudflare:workers";
import { HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { deeplError, expectConsistent, keyed, languageCounts, mockEngines, openaiError, runToEnd, startJob, sumCharacters, texts, translatedOnce } from "../helpers/faults";
import { allResults } from "../helpers/jobs";

/** 500 distinct texts plus 40 repeats: per language slices of 250, 250 and 40 (the repeats reuse slice 1). */
const DISTINCT = texts(500);
const SEGMENTS = keyed([...DISTINCT, ...DISTINCT.slice(0, 40)], 3);
const PER_LANGUAGE = SEGMENTS.length;
const CHARS = sumCharacters(DISTINCT);
/** DeepL takes 50 texts a request: calls 1–5 are slice 1, 6–10 slice 2. */
const SLICE1 = new Set(DISTINCT.slice(0, 250));

/** The job over SEGMENTS, confirmed, with its estimate checked. */
const start = () => startJob(SEGMENTS, { estimated_segments: 2 * PER_LANGUAGE, estimated_characters: 2 * CHARS });

const missingId = (_n: number) => (_: number, texts: string[]) =>
  HttpResponse.json({
    choices: [
      {
        message: { role: "assistant", content: JSON.stringify({ items: texts.slice(1).map((t, i) => ({ id: String(i + 2), translation: `[fr] ${t}` })) }) },
        finish_reason: "stop",
      },
    ],
  });

describe("engine faults", () => {
  it("5xx and 429 bursts that end within the retry limit: the job succeeds, every text translated once", async () => {
    // DeepL's batches run side by side, so faults are scripted per batch (by its first text) and attempt.
    const deeplFaults: Record<string, number[]> = { [DISTINCT[50]]: [503, 503], [DISTINCT[300]]: [500], [DISTINCT[350]]: [502], [DISTINCT[400]]: [529] };
    const attempts = new Map<string, number>();
    const engines = mockEngines({
      deepl: (_, texts) => {
        const attempt = (attempts.get(texts[0]) ?? 0) + 1;
        attempts.set(texts[0], attempt);
        const status = deeplFaults[texts[0]]?.[attempt - 1];
        return status ? deeplError(status, status === 529 ? "Too many requests" : undefined) : undefined;
      },
      openai: (n) =>
        n === 1
          ? openaiError(500)
          : n === 2
            ? openaiError(503)
            : n === 9
              ? HttpResponse.json({ error: { message: "Rate limit reached", code: "rate_limit_exceeded" } }, { status: 429, headers: { "retry-after-ms": "1500" } })
              : undefined,
    });
    const { site, c, jobId } = await start();
    const job = await runToEnd(c, site.siteId, jobId);

    expect(job).toMatchObject({ status: "succeeded", done_segments: 2 * PER_LANGUAGE, failed_segments: 0, errors: [], reused_segments: 80 });
    // Every failed call was repeated with the same texts, and no text was translated twice.
    expect(engines.deepl.calls).toHaveLength(10 + 5);
    // Every failed call was repeated with the same texts.
    for (const [first, faults] of Object.entries(deeplFaults)) expect(engines.deepl.calls.filter((call) => call[0] === first)).toHaveLength(faults.length + 1);
    expect([...translatedOnce(engines.deepl)].sort()).toEqual([...DISTINCT].sort());
    expect([...translatedOnce(engines.openai)].sort()).toEqual([...DISTINCT].sort());
    expect(engines.sleeps).toHaveLength(5 + 3);
    expect(engines.sleeps).toContain(1500); // the 429's retry-after-ms was honoured
    const results = await expectConsistent(c, site.siteId, job, engines.deepl.acceptedCharacters + engines.openai.acceptedCharacters);
    expect(engines.deepl.acceptedCharacters + engines.openai.acceptedCharacters).toBe(2 * CHARS);
    expect(results.find((r) => r.key === "s001" && r.language === "de")).toMatchObject({ text: `DE: ${DISTINCT[1]}`, engine: "deepl", origin: "mt" });
    expect(results.find((r) => r.key === "s001" && r.language === "fr")).toMatchObject({ text: `[fr] ${DISTINCT[1]}`, engine: "openai", origin: "llm" });
    expect(await languageCounts(c)).toEqual({ de: { review: PER_LANGUAGE, missing: 0, stale: 0, attention: 0 }, fr: { review: PER_LANGUAGE, missing: 0, stale: 0, attention: 0 } });
  });

  it("timeouts: a few are retried away; an engine that never answers fails each batch after 4 attempts, one batch at a time", async () => {
    const engines = mockEngines({ deepl: (n) => (n <= 2 ? "timeout" : n === 6 ? "network" : undefined), openai: () => "timeout" });
    const { site, c, jobId } = await start();
    const job = await runToEnd(c, site.siteId, jobId, 60);

    expect(job).toMatchObject({ status: "succeeded", done_segments: PER_LANGUAGE, failed_segments: PER_LANGUAGE });
    expect(job.errors).toEqual([{ language: "fr", message: expect.stringMatching(/did not answer within 120 s; gave up after 4 attempts$/), segments: PER_LANGUAGE }]);
    // Each batch of at most 40 texts was tried 4 times; none of them ran beside another (no success opened the concurrency).
    const batches = new Map<string, number>();
    for (const call of engines.openai.calls) batches.set(JSON.stringify(call), (batches.get(JSON.stringify(call)) ?? 0) + 1);
    // (slice 3's repeats of slice 1's first texts make the same batch again: 8)
    expect([...batches.values()].every((n) => n % 4 === 0)).toBe(true);
    expect(engines.openai.calls.length).toBe([...batches.values()].reduce((a, b) => a + b, 0));
    expect(engines.deepl.calls).toHaveLength(10 + 3);
    translatedOnce(engines.deepl);
    await expectConsistent(c, site.siteId, job, engines.deepl.acceptedCharacters);
    expect(engines.deepl.acceptedCharacters).toBe(CHARS);
    expect(await languageCounts(c)).toMatchObject({ de: { review: PER_LANGUAGE, missing: 0 }, fr: { review: 0, missing: PER_LANGUAGE } });
  });

  it("5xx past the retry limit after a slice succeeded: each later batch fails on its own, what was done is kept, the other language is done", async () => {
    const engines = mockEngines({ deepl: (n) => (n >= 6 ? deeplError(503, "Service temporarily unavailable") : undefined) });
    const { site, c, jobId } = await start();
    const job = await runToEnd(c, site.siteId, jobId);

    // Slice 2's 250 distinct texts fail; slice 3's 40 repeats reuse slice 1's translations.
    const left = 250;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 2 * PER_LANGUAGE - left, failed_segments: left });
    expect(job.errors).toEqual([{ language: "de", message: "DeepL is unavailable (HTTP 503: Service temporarily unavailable); gave up after 4 attempts", segments: left }]);
    expect(engines.deepl.calls).toHaveLength(5 + 5 * 4); // slice 1, then 5 batches tried 4 times each
    expect(translatedOnce(engines.deepl)).toEqual(SLICE1);
    translatedOnce(engines.openai);
    const results = await expectConsistent(c, site.siteId, job, engines.deepl.acceptedCharacters + engines.openai.acceptedCharacters);
    expect(results.filter((r) => r.language === "de")).toHaveLength(PER_LANGUAGE - left);
    expect(results.filter((r) => r.language === "fr")).toHaveLength(PER_LANGUAGE);
    expect(await languageCounts(c)).toMatchObject({ de: { review: PER_LANGUAGE - left, missing: left }, fr: { review: PER_LANGUAGE, missing: 0 } });
    // The failed segments are work for the next job: it covers exactly them.
    const next = await c.post("/v1/jobs", { estimate_only: true });
    expect(next.body).toMatchObject({ languages: ["de", "fr"], estimated_segments: left });
  });

  it("a malformed body fails only its batch (not retried); the model is asked again and recovers", async () => {
    const engines = mockEngines({
      deepl: (n) => (n === 6 ? new HttpResponse("<html><body>502 Bad Gateway</body></html>", { status: 200, headers: { "content-type": "text/html" } }) : undefined),
      // One of fr's batches is answered with an id missing; asked again, the model answers well.
      openai: (n, texts) => (n === 8 ? missingId(n)(n, texts) : undefined),
    });
    const { site, c, jobId } = await start();
    const job = await runToEnd(c, site.siteId, jobId);

    // Call 6 is a batch of slice 2, whose texts have no repeats in the job.
    const rejected = new Set(engines.deepl.calls[5]);
    expect(rejected.size).toBe(50);
    expect([...rejected].some((t) => SLICE1.has(t))).toBe(false);
    const failed = 50;
    expect(job).toMatchObject({ status: "succeeded", done_segments: 2 * PER_LANGUAGE - failed, failed_segments: failed });
    expect(job.errors).toEqual([{ language: "de", message: "DeepL answered with a body that is not JSON", segments: failed }]);
    expect(engines.deepl.calls.filter((call) => call.some((t) => rejected.has(t)))).toHaveLength(1); // a 200 with a bad body is not retried
    const retried = JSON.stringify(engines.openai.calls[7]);
    expect(engines.openai.calls.slice(8).some((call) => JSON.stringify(call) === retried)).toBe(true);
    expect([...translatedOnce(engines.openai)].sort()).toEqual([...DISTINCT].sort());
    await expectConsistent(c, site.siteId, job, engines.deepl.acceptedCharacters + engines.openai.acceptedCharacters);
    expect(await languageCounts(c)).toMatchObject({ de: { review: PER_LANGUAGE - failed, missing: failed }, fr: { review: PER_LANGUAGE, missing: 0 } });
  });

  it("a malformed answer in the middle of a slice fails only that batch: the slice's other batches are stored and billed", async () => {
    // One call of slice 2 is answered with one translation too few.
    const engines = mockEngines({
      deepl: (n, texts) => (n === 8 ? HttpResponse.json({ translations: texts.slice(1).map((text) => ({ text })) }) : undefined),
    });
    const { site, c, jobId } = await start();
    const job = await runToEnd(c, site.siteId, jobId);

    const rejected = engines.deepl.calls[7];
    expect(job.errors).toEqual([{ language: "de", message: "DeepL answered an unexpected body for 50 texts", segments: 50 }]);
    expect(job).toMatchObject({ status: "succeeded", failed_segments: 50, done_segments: 2 * PER_LANGUAGE - 50 });
    expect(engines.deepl.calls).toHaveLength(10);
    // Billed and stored: everything but the rejected batch. Its 50 texts stay missing, not billed.
    const kept = sumCharacters(DISTINCT) - sumCharacters(rejected);
    await expectConsistent(c, site.siteId, job, kept + engines.openai.acceptedCharacters);
    expect(await languageCounts(c)).toMatchObject({ de: { review: PER_LANGUAGE - 50, missing: 50 } });
    const results = await allResults(c);
    expect(results.filter((r) => r.language === "de" && rejected.includes(SEGMENTS.find((s) => s.key === r.key)!.text))).toEqual([]);
  });

  it("DeepL 456 (quota exceeded): one request, the language fails at once; the other language is done", async () => {
    const engines = mockEngines({ deepl: () => deeplError(456, "Quota exceeded. The character limit has been reached.") });
    const { site, c, jobId } = await start();
    const job = await runToEnd(c, site.siteId, jobId);

    expect(engines.deepl.calls).toHaveLength(1);
    expect(engines.sleeps).toEqual([]);
    expect(job).toMatchObject({ status: "succeeded", done_segments: PER_LANGUAGE, failed_segments: PER_LANGUAGE });
    expect(job.errors).toEqual([{ language: "de", message: expect.stringMatching(/quota/i), segments: PER_LANGUAGE }]);
    await expectConsistent(c, site.siteId, job, engines.openai.acceptedCharacters);
    expect(engines.openai.acceptedCharacters).toBe(CHARS);
    expect(await languageCounts(c)).toMatchObject({ de: { review: 0, missing: PER_LANGUAGE }, fr: { review: PER_LANGUAGE } });
  });

  it("both engines out of quota (DeepL 456, OpenAI insufficient_quota): the job fails, nothing billed, nothing reserved", async () => {
    const engines = mockEngines({
      deepl: () => deeplError(456, "Quota exceeded"),
      openai: () => openaiError(429, "You exceeded your current quota, please check your plan and billing details.", "insufficient_quota"),
    });
    const { site, c, jobId } = await start();
    const job = await runToEnd(c, site.siteId, jobId);

    expect([engines.deepl.calls.length, engines.openai.calls.length]).toEqual([1, 1]);
    expect(engines.sleeps).toEqual([]);
    expect(job).toMatchObject({ status: "failed", done_segments: 0, failed_segments: 2 * PER_LANGUAGE, characters: 0 });
    expect(job.errors.map((e: any) => [e.language, e.segments])).toEqual([
      ["de", PER_LANGUAGE],
      ["fr", PER_LANGUAGE],
    ]);
    expect(job.errors[1].message).toMatch(/quota is used up/);
    await expectConsistent(c, site.siteId, job, 0);
    const reserved = await env.DB.prepare("SELECT count(*) AS n FROM reservations WHERE site_id = ?").bind(site.siteId).first<{ n: number }>();
    expect(reserved!.n).toBe(0);
  });
});

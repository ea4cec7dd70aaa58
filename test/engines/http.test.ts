import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { codePointLength, mapWithConcurrency, splitBatches } from "../../src/engines/batch";
import { backoffDelay, callJson, DEFAULT_RETRY_POLICY, parseRetryAfter, redact, upstreamReason } from "../../src/engines/http";
import { languageTable, lookupLanguage } from "../../src/engines/languages";
import { engineError, recordSleeps } from "../helpers/engines";
import { mockFetch } from "../helpers/http";

const URL_ = "https://upstream.test/api";
const call = (overrides: Partial<Parameters<typeof callJson>[0]> = {}) =>
  callJson({
    engine: "Upstream",
    url: URL_,
    init: { method: "POST", headers: { Authorization: "Key sekret-key-123" }, body: "{}" },
    secrets: ["sekret-key-123"],
    ...overrides,
  });

describe("parseRetryAfter", () => {
  it("reads delta-seconds, HTTP dates and retry-after-ms", () => {
    expect(parseRetryAfter(new Headers({ "Retry-After": "3" }))).toBe(3000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "Retry-After": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ "Retry-After": "Wed, 31 Dec 2025 00:00:00 GMT" }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "Retry-After": "9" }))).toBe(250);
    expect(parseRetryAfter(new Headers({ "Retry-After": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("grows exponentially within the jitter band and is capped", () => {
    const p = DEFAULT_RETRY_POLICY;
    expect(backoffDelay(1, p, () => 0.5)).toBe(1000);
    expect(backoffDelay(2, p, () => 0.5)).toBe(2000);
    expect(backoffDelay(3, p, () => 0)).toBe(3000); // 4000 − 25 %
    expect(backoffDelay(3, p, () => 1)).toBe(5000); // 4000 + 25 %
    expect(backoffDelay(20, p, () => 0.5)).toBe(p.maxDelayMs);
  });
});

describe("callJson", () => {
  it("counts every attempt in the request meter (the platform's subrequest limit counts retries too)", async () => {
    const { sleep } = recordSleeps();
    let n = 0;
    const mock = mockFetch([http.post(URL_, () => (++n <= 2 ? new HttpResponse("busy", { status: 503 }) : HttpResponse.json({ ok: true })))]);
    const meter = { requests: 0 };
    await expect(call({ meter, sleep })).resolves.toEqual({ ok: true });
    await expect(call({ meter, sleep })).resolves.toEqual({ ok: true });
    expect(mock.requests).toHaveLength(4);
    expect(meter.requests).toBe(4);
  });

  it("holds at most 6 connections open at once, whatever the callers' concurrency", async () => {
    let open = 0;
    let peak = 0;
    mockFetch([
      http.post(URL_, async () => {
        peak = Math.max(peak, ++open);
        // A few turns of the event loop (no wait on the clock): the other callers queue meanwhile.
        for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
        open--;
        return HttpResponse.json({ ok: true });
      }),
    ]);
    await Promise.all(Array.from({ length: 20 }, () => call()));
    expect(peak).toBe(6);
  });

  it("retries 429 honouring Retry-After, then succeeds", async () => {
    const { sleep, sleeps } = recordSleeps();
    let n = 0;
    const mock = mockFetch([http.post(URL_, () => (++n === 1 ? new HttpResponse(null, { status: 429, headers: { "Retry-After": "2" } }) : HttpResponse.json({ ok: true })))]);
    await expect(call({ sleep })).resolves.toEqual({ ok: true });
    expect(mock.requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  it("retries a 5xx burst with growing backoff, then succeeds", async () => {
    const { sleep, sleeps } = recordSleeps();
    let n = 0;
    const statuses = [500, 503, 529];
    mockFetch([http.post(URL_, () => (n < 3 ? new HttpResponse("oops", { status: statuses[n++] }) : HttpResponse.json([1])))]);
    await expect(call({ sleep })).resolves.toEqual([1]);
    expect(sleeps).toHaveLength(3);
    expect(sleeps[0]).toBeGreaterThanOrEqual(750);
    expect(sleeps[0]).toBeLessThanOrEqual(1250);
    expect(sleeps[1]).toBeGreaterThanOrEqual(1500);
    expect(sleeps[1]).toBeLessThanOrEqual(2500);
    expect(sleeps[2]).toBeGreaterThanOrEqual(3000);
    expect(sleeps[2]).toBeLessThanOrEqual(5000);
  });

  it("gives up after the attempt cap with unavailable", async () => {
    const { sleep } = recordSleeps();
    const mock = mockFetch([http.post(URL_, () => HttpResponse.json({ message: "down" }, { status: 503 }))]);
    const error = await engineError(call({ sleep }));
    expect(error.kind).toBe("unavailable");
    expect(error.message).toBe("Upstream is unavailable (HTTP 503: down); gave up after 4 attempts");
    expect(mock.requests).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
  });

  it("stops when Retry-After asks for more than the longest wait", async () => {
    const { sleep, sleeps } = recordSleeps();
    const mock = mockFetch([http.post(URL_, () => new HttpResponse(null, { status: 429, headers: { "Retry-After": "3600" } }))]);
    const error = await engineError(call({ sleep }));
    expect(error.kind).toBe("unavailable");
    expect(error.message).toContain("asked to wait 3600 s");
    expect(mock.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("caps the total time spent waiting", async () => {
    const { sleep, sleeps } = recordSleeps();
    mockFetch([http.post(URL_, () => new HttpResponse(null, { status: 429, headers: { "Retry-After": "25" } }))]);
    const error = await engineError(call({ sleep }));
    expect(error.kind).toBe("unavailable");
    // 25 s + 25 s fit in the 60 s budget; a third wait would not.
    expect(sleeps).toEqual([25_000, 25_000]);
  });

  it("does not retry other 4xx and reports them as rejected with the upstream reason", async () => {
    const { sleep, sleeps } = recordSleeps();
    const mock = mockFetch([http.post(URL_, () => HttpResponse.json({ error: { message: "Bad target_lang" } }, { status: 400 }))]);
    const error = await engineError(call({ sleep }));
    expect(error.kind).toBe("rejected");
    expect(error.message).toBe("Upstream rejected the request (HTTP 400: Bad target_lang)");
    expect(mock.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("never quotes an authentication failure's body nor any secret", async () => {
    const { sleep } = recordSleeps();
    mockFetch([http.post(URL_, () => HttpResponse.json({ error: { message: "Incorrect API key provided: sekret-key-123" } }, { status: 401 }))]);
    const error = await engineError(call({ sleep }));
    expect(error.kind).toBe("rejected");
    expect(error.message).toBe("Upstream refused the credentials (HTTP 401)");
  });

  it("redacts a secret an upstream echoes in another error", async () => {
    const { sleep } = recordSleeps();
    mockFetch([http.post(URL_, () => HttpResponse.json({ message: "key sekret-key-123 is malformed" }, { status: 400 }))]);
    const error = await engineError(call({ sleep }));
    expect(error.message).toBe("Upstream rejected the request (HTTP 400: key [redacted] is malformed)");
  });

  it("treats network failures as retryable", async () => {
    const { sleep } = recordSleeps();
    let n = 0;
    mockFetch([http.post(URL_, () => (++n === 1 ? HttpResponse.error() : HttpResponse.json({ ok: 1 })))]);
    await expect(call({ sleep })).resolves.toEqual({ ok: 1 });
  });

  it("lets the engine classify an error answer as final", async () => {
    const { sleep } = recordSleeps();
    const { EngineError } = await import("../../src/engines/types");
    const mock = mockFetch([http.post(URL_, () => new HttpResponse(null, { status: 456 }))]);
    const error = await engineError(call({ sleep, classify: (s) => (s === 456 ? new EngineError("quota", "used up") : undefined) }));
    expect(error.kind).toBe("quota");
    expect(mock.requests).toHaveLength(1);
  });

  it("reports a body that is not JSON as bad_response", async () => {
    mockFetch([http.post(URL_, () => new HttpResponse("<html>", { status: 200 }))]);
    expect((await engineError(call())).kind).toBe("bad_response");
  });
});

describe("redact and upstreamReason", () => {
  it("removes secrets and long token-like runs", () => {
    expect(redact("bad key abc123secret here", ["abc123secret"])).toBe("bad key [redacted] here");
    expect(redact("token ya29.a0AfH6SMBx3kqJ0aV9fW2mQ7xY8zL1pR4tN6uE here", [])).toBe("token [redacted] here");
    expect(redact("A plain sentence stays as it is.", [])).toBe("A plain sentence stays as it is.");
  });

  it("finds the message of common error shapes and ignores HTML", () => {
    expect(upstreamReason('{"message":"Quota"}')).toBe("Quota");
    expect(upstreamReason('{"error":{"code":400036,"message":"The target language is not valid."}}')).toBe("The target language is not valid.");
    expect(upstreamReason('{"error":"invalid_grant","error_description":"Invalid JWT"}')).toBe("Invalid JWT");
    expect(upstreamReason("<html><body>502</body></html>")).toBe("");
    expect(upstreamReason("x".repeat(500))).toHaveLength(0);
  });
});

describe("splitBatches", () => {
  it("splits by count and by size, preserving order", () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    expect(splitBatches(items, { maxSegments: 3, maxCharacters: 100 }, () => 1)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(splitBatches(["aaaa", "bbbb", "cc", "d"], { maxSegments: 10, maxCharacters: 6 })).toEqual([["aaaa"], ["bbbb", "cc"], ["d"]]);
  });

  it("sends an item larger than the limit alone", () => {
    expect(splitBatches(["ab", "x".repeat(20), "cd"], { maxSegments: 10, maxCharacters: 5 })).toEqual([["ab"], ["x".repeat(20)], ["cd"]]);
  });

  it("counts code points, not UTF-16 units", () => {
    expect(codePointLength("😀a")).toBe(2);
    expect("😀a".length).toBe(3);
    expect(splitBatches(["😀😀", "😀"], { maxSegments: 10, maxCharacters: 3 })).toEqual([["😀😀", "😀"]]);
  });
});

describe("mapWithConcurrency", () => {
  it("keeps at most `limit` calls in flight and results in order", async () => {
    let running = 0;
    let peak = 0;
    const out = await mapWithConcurrency([5, 1, 4, 2, 3, 0], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      // n turns of the event loop: calls end out of order (no wait on the clock).
      for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(2);
  });

  it("starts nothing new after a failure", async () => {
    const started: number[] = [];
    await expect(
      mapWithConcurrency([1, 2, 3, 4], 1, async (n) => {
        started.push(n);
        if (n === 2) throw new Error("boom");
        return n;
      }),
    ).rejects.toThrow("boom");
    expect(started).toEqual([1, 2]);
  });
});

describe("lookupLanguage", () => {
  const table = languageTable(["de", "pt-BR", "zh-Hans"], { zh: "zh-Hans", "zh-hant": null });
  it("normalizes case and separators and falls back subtag by subtag", () => {
    expect(lookupLanguage(table, "DE")).toBe("de");
    expect(lookupLanguage(table, "de_AT")).toBe("de");
    expect(lookupLanguage(table, "pt-br")).toBe("pt-BR");
    expect(lookupLanguage(table, "zh-Hans-CN")).toBe("zh-Hans");
    expect(lookupLanguage(table, "zh-TW")).toBe("zh-Hans");
    expect(lookupLanguage(table, "zh-Hant-TW")).toBeUndefined();
    expect(lookupLanguage(table, "fr")).toBeUndefined();
  });
});

/**
 * Shared pieces of the hostile-input suites: a site with some state in it, a snapshot of what
 * a site stores (read through the API), and the assertion every refused request must pass.
 */
import { expect } from "vitest";
import { ADMIN, type Call, client, createSite, request, type TestSite, unit } from "./api";
import { allResults, job } from "./jobs";

export type Client = ReturnType<typeof client>;

/**
 * A site with units, translations in every state (missing, review acknowledged and not, ok,
 * imported), a finished job and a queued one.
 */
export async function seededSite(): Promise<TestSite & { c: Client; queuedJob: number; resultIds: string[] }> {
  const site = await createSite({ handshake: { capabilities: ["qa_errors"] } });
  const c = client(site.key);
  await c.put(
    "/v1/units",
    unit("post:1", [
      { key: "a", text: "Hello" },
      { key: "b", text: "World", translations: { de: "Welt" } },
      { key: "c", text: "Bye" },
    ]),
  );
  await c.put("/v1/units", unit("page:1", [{ key: "a", text: "Hello" }]));
  await job(c, site.siteId, { languages: ["fr"] });
  const results = await allResults(c);
  await c.post("/v1/results/ack", { ids: [results[0].id] });
  await c.post("/v1/reviews", { reviews: [{ id: results[1].id, outcome: "approved" }] });
  const queued = await c.post("/v1/jobs", { languages: ["de"] });
  expect(queued.status).toBe(202);
  return { ...site, c, queuedJob: queued.body.id, resultIds: results.map((r) => r.id) };
}

/** Everything a refused request must leave as it was, read through the public and admin APIs. */
export async function snapshot(site: TestSite) {
  const c = client(site.key);
  const adminGet = (path: string) => request("GET", path, { key: ADMIN });
  const calls = await Promise.all([
    c.get("/v1/status"),
    c.get("/v1/units/post:1/status"),
    c.get("/v1/units/page:1/status"),
    c.get("/v1/results?limit=500"),
    c.get("/v1/jobs"),
    c.get("/v1/site"),
    c.get("/v1/usage"),
    c.get("/v1/units?limit=500"),
    c.get("/v1/attention"),
    adminGet(`/admin/v1/sites/${site.siteId}/keys`),
  ]);
  for (const call of calls) expect([200, 404], JSON.stringify(call.body)).toContain(call.status);
  const [status, post, page, results, jobs, siteInfo, usage, units, attention, keys] = calls.map((call) => call.body);
  return {
    status,
    post,
    page,
    results,
    jobs,
    site: siteInfo,
    usage,
    units,
    attention,
    // last_used_at is written after the response, at most once a minute: not state a request changes.
    keys: keys?.keys?.map(({ last_used_at: _l, ...k }: Record<string, unknown>) => k),
  };
}
export type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** An answer of the error path: 4xx, JSON, `ErrorOut` (`detail` a non-empty string). */
export function expectErrorOut(res: Call, context: string) {
  expect(res.status, `${context}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${context}: ${JSON.stringify(res.body)?.slice(0, 300)}`).toBeLessThan(500);
  expect(res.headers.get("content-type") ?? "", context).toMatch(/^application\/json/);
  expect(typeof res.body?.detail, `${context}: ${JSON.stringify(res.body)?.slice(0, 300)}`).toBe("string");
  expect(res.body.detail.length, context).toBeGreaterThan(0);
}

/** A 2xx answer with a JSON body (or none, for 204). */
export function expectSuccess(res: Call, context: string) {
  expect(res.status, `${context}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
  expect(res.status, `${context}: ${JSON.stringify(res.body)?.slice(0, 300)}`).toBeLessThan(300);
  if (res.status !== 204) expect(res.headers.get("content-type") ?? "", context).toMatch(/^application\/json/);
}

/** Either answer is fine, but never a 5xx or a body that is not JSON. */
export function expectHandled(res: Call, context: string) {
  if (res.status >= 200 && res.status < 300) expectSuccess(res, context);
  else expectErrorOut(res, context);
}

/**
 * Tracks a site's stored state across hostile requests: a refused request must leave it as it
 * was; after an accepted one (valid input) the new state becomes the baseline.
 *
 * Snapshots cost a dozen reads, so refused requests are checked lazily: the comparison runs
 * before the next request that may be accepted (`send` with valid not false) or at `settle()`,
 * and its message names every refused request since the last comparison.
 */
export class StateGuard {
  private pending: string[] = [];

  private constructor(
    readonly site: TestSite,
    private base: Snapshot,
  ) {}

  static async of(site: TestSite) {
    return new StateGuard(site, await snapshot(site));
  }

  /** Sends a request and checks its answer (see `check`). */
  async send(context: string, valid: boolean | "either", call: () => Promise<Call>) {
    if (valid !== false) await this.settle();
    await this.check(await call(), context, valid);
  }

  /** Checks an answer: refused → ErrorOut and nothing changed; accepted → only if `valid` allows it. */
  async check(res: Call, context: string, valid: boolean | "either" = false) {
    if (res.status >= 200 && res.status < 300) {
      expect(valid, `${context}: accepted (${res.status}) although invalid: ${JSON.stringify(res.body)?.slice(0, 300)}`).not.toBe(false);
      expectSuccess(res, context);
      // Anything refused before this request was compared in `send`; when `check` is called directly, compare now.
      this.pending = [];
      this.base = await snapshot(this.site);
      return;
    }
    expectErrorOut(res, context);
    expect(valid, `${context}: refused although valid: ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`).not.toBe(true);
    this.pending.push(context);
  }

  /**
   * Checks the answer to a request that must change nothing whether accepted or refused (a
   * read, or a write naming nothing stored); the state is compared at the next `settle()`.
   */
  read(res: Call, context: string, valid: boolean | "either" = "either") {
    this.answer(res, context, valid);
    this.pending.push(context);
  }

  /** Compares the state with the baseline if a refused request came since the last comparison. */
  async settle() {
    if (!this.pending.length) return;
    const refused = this.pending.splice(0);
    expect(await snapshot(this.site), `state changed by one of these refused requests:\n  ${refused.join("\n  ").slice(0, 3000)}`).toEqual(this.base);
  }

  /** Checks an answer whose state check is left to `unchanged()` (a group where nothing may change). */
  answer(res: Call, context: string, valid: boolean | "either" = false) {
    if (res.status >= 200 && res.status < 300) {
      expect(valid, `${context}: accepted (${res.status}) although invalid: ${JSON.stringify(res.body)?.slice(0, 300)}`).not.toBe(false);
      expectSuccess(res, context);
      return;
    }
    expectErrorOut(res, context);
    expect(valid, `${context}: refused although valid: ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`).not.toBe(true);
  }

  /** Checks that nothing changed since the baseline. */
  async unchanged(context: string) {
    this.pending = [];
    expect(await snapshot(this.site), `${context}: state changed`).toEqual(this.base);
  }

  async rebase() {
    this.pending = [];
    this.base = await snapshot(this.site);
  }
}

export const JSON_HEADERS = { "content-type": "application/json" };

/** Sends a raw body (any bytes) with the given headers. */
export function raw(method: string, path: string, key: string | undefined, body: string | undefined, headers: Record<string, string> = JSON_HEADERS) {
  return request(method, path, { key, raw: body, headers });
}

/** 10,000 nested arrays: `[[[…]]]`. */
export const deepArrays = (depth = 10_000) => "[".repeat(depth) + "]".repeat(depth);
/** 10,000 nested objects: `{"a":{"a":…}}`. */
export const deepObjects = (depth = 10_000) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** Strings that make parsers, databases and renderers stumble. */
export const ODD_STRINGS: Record<string, string> = {
  "lone high surrogate": "a\ud800b",
  "lone low surrogate": "a\udc00b",
  "reversed surrogate pair": "\udc00\ud800",
  NUL: "a\u0000b",
  "RTL override": "\u202Eabc\u202C",
  "RTL mark": "\u200Fשלום\u200F",
  emoji: "😀👩‍👩‍👧‍👦🇩🇪",
  "combining marks": "e\u0301\u0302\u0303\u0304\u0305",
  "zero width": "\u200B\u200C\u200D\uFEFF",
  "line separators": "a\u2028b\u2029c",
  "control characters": "\u0001\u0007\u001b[31m\u007f",
  "SQL quote": "'; DROP TABLE units; --",
  "SQL like": "%_\\",
  "path traversal": "../../etc/passwd",
  html: "<script>alert(1)</script>",
  "json-looking": '{"__proto__":{"x":1}}',
  noncharacters: "\uFFFE\uFFFF\u{10FFFF}",
};

/**
 * Hostile keys, routes, path parameters and query parameters on every public endpoint:
 * every answer is a 2xx for valid input or a 4xx ErrorOut, and nothing a refused request
 * touches changes.
 */
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, admin, request } from "../helpers/api";
import { expectErrorOut, ODD_STRINGS, raw, StateGuard, seededSite } from "../helpers/hostile";
import type { Validity } from "../helpers/validity";

type Site = Awaited<ReturnType<typeof seededSite>>;

let site: Site;
let guard: StateGuard;
let revokedKey: string;

beforeAll(async () => {
  site = await seededSite();
  const extra = await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "to revoke" });
  revokedKey = extra.body.key;
  await admin("DELETE", `/admin/v1/sites/${site.siteId}/keys/${extra.body.id}`);
  guard = await StateGuard.of(site);
});

afterEach(() => guard.settle());

/** Every public endpoint with a request that would be valid (and, for writes, would change something). */
const endpoints = (s: Site): { method: string; path: string; body?: unknown }[] => [
  { method: "GET", path: "/v1/site" },
  { method: "POST", path: "/v1/handshake", body: { connector_version: "x", source_language: "en", languages: [] } },
  { method: "GET", path: "/v1/status" },
  { method: "GET", path: "/v1/usage" },
  { method: "PUT", path: "/v1/units", body: { external_key: "post:1", adapter: "wordpress", segments: [] } },
  { method: "GET", path: "/v1/units" },
  { method: "PUT", path: "/v1/units/batch", body: { units: [{ external_key: "post:1", adapter: "wordpress", segments: [] }] } },
  { method: "DELETE", path: "/v1/units/post:1" },
  { method: "GET", path: "/v1/units/post:1/status" },
  { method: "POST", path: "/v1/jobs", body: { force: true } },
  { method: "GET", path: "/v1/jobs" },
  { method: "GET", path: `/v1/jobs/${s.queuedJob}` },
  { method: "POST", path: `/v1/jobs/${s.queuedJob}/cancel` },
  { method: "GET", path: "/v1/results" },
  { method: "POST", path: "/v1/results/ack", body: { ids: s.resultIds } },
  { method: "POST", path: "/v1/reviews", body: { reviews: s.resultIds.map((id) => ({ id, outcome: "rejected" })) } },
  { method: "GET", path: "/v1/attention" },
];

describe("authentication on every endpoint", () => {
  it("a missing, malformed, unknown, revoked or foreign key is 401 ErrorOut with WWW-Authenticate, and changes nothing", async () => {
    const bad: (string | undefined)[] = [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "Basic dXNlcjpwYXNz",
      `Bearer tsk_${"A".repeat(32)}`,
      `Bearer ${site.key}x`,
      `Bearer ${site.key.slice(0, -1)}`,
      `Bearer ${site.key} ${site.key}`,
      `Bearer ${revokedKey}`,
      `Bearer ${ADMIN}`,
      `Bearer ${"x".repeat(10_000)}`,
      "Bearer tsk_' OR '1'='1",
      "Bearer tsk_\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",
      `Token ${site.key}`,
    ];
    for (const ep of endpoints(site)) {
      for (const authorization of bad) {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (authorization !== undefined) headers.authorization = authorization;
        const res = await raw(ep.method, ep.path, undefined, ep.body === undefined ? undefined : JSON.stringify(ep.body), headers);
        const context = `${ep.method} ${ep.path} with ${JSON.stringify(authorization?.slice(0, 40))}`;
        expect(res.status, context).toBe(401);
        expectErrorOut(res, context);
        expect(res.headers.get("www-authenticate"), context).toMatch(/^Bearer/);
      }
    }
    await guard.unchanged("after unauthenticated requests");
  });

  it("health and the OpenAPI document need no key; junk in their query changes nothing", async () => {
    for (const path of ["/v1/health", "/v1/health?x=%00&y='", "/v1/openapi.json", "/v1/openapi.json?format=%E0%A4%A"]) {
      const res = await request("GET", path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
    }
  });
});

describe("unknown routes and methods", () => {
  it("are 404 or 405 ErrorOut", async () => {
    const cases: [string, string][] = [
      ["GET", "/"],
      ["GET", "/v1"],
      ["GET", "/v2/status"],
      ["GET", "/v1/status/"],
      ["GET", "/V1/STATUS"],
      ["GET", "/v1/units/post:1/status/extra"],
      ["GET", "/v1/jobs/1/cancel"],
      ["PATCH", "/v1/units"],
      ["DELETE", "/v1/status"],
      ["POST", "/v1/results"],
      ["PUT", "/v1/jobs"],
      ["OPTIONS", "/v1/units"],
      ["TRACE", "/v1/status"],
      ["GET", `/v1/${"x".repeat(20_000)}`],
      ["GET", "/v1/%00"],
      ["GET", "/v1/%E0%A4%A"],
      ["GET", "/admin"],
      ["GET", "/admin/v1/sites"],
    ];
    for (const [method, path] of cases) {
      const res = await request(method, path, { key: site.key });
      // /admin/* answers 401 to anything without the admin token, before routing.
      expect(path.startsWith("/admin") ? [401, 404, 405] : [404, 405], `${method} ${path}: ${res.status}`).toContain(res.status);
      expectErrorOut(res, `${method} ${path}`);
    }
    await guard.unchanged("after unknown routes");
  });
});

/** Path segments that try injection, traversal, encoding tricks and sheer size. */
const NASTY_SEGMENTS = [
  "'",
  "' OR '1'='1",
  "1;DROP TABLE units",
  "..%2F..%2Fadmin",
  "%2e%2e%2f",
  "%00",
  "post%3A1%00",
  "a%0Ab",
  "%E0%A4%A",
  "%",
  "%25",
  "%F0%9F%98%80",
  "%E2%80%AEpost",
  "%D8%B3%D9%84%D8%A7%D9%85",
  "e%CC%81",
  "%ED%A0%80",
  "x".repeat(256),
  "x".repeat(10_000),
  "null",
  "undefined",
  "-1",
  "0",
  "1.5",
  "1e3",
  "Infinity",
  "NaN",
  "9".repeat(30),
  "%20",
  "post:1%20",
  "POST:1",
  "%7B%7D",
  "%5B%5D",
];

describe("path parameters", () => {
  it("unit keys: DELETE and status answer 2xx/404 for well-formed keys, 4xx ErrorOut otherwise; nothing changes", async () => {
    for (const segment of NASTY_SEGMENTS) {
      for (const [method, path] of [
        ["GET", `/v1/units/${segment}/status`],
        ["DELETE", `/v1/units/${segment}`],
      ]) {
        const res = await request(method, path, { key: site.key });
        // None of these names a stored unit, so even an accepted DELETE changes nothing.
        guard.read(res, `${method} ${path.slice(0, 80)}`, "either");
        if (method === "DELETE" && res.status < 300) expect(res.status).toBe(204);
      }
    }
  });

  it("job ids: 4xx ErrorOut for anything but an existing job; cancel of a refused id cancels nothing", async () => {
    for (const segment of NASTY_SEGMENTS) {
      for (const [method, path] of [
        ["GET", `/v1/jobs/${segment}`],
        ["POST", `/v1/jobs/${segment}/cancel`],
      ]) {
        const res = await request(method, path, { key: site.key });
        await guard.check(res, `${method} ${path.slice(0, 80)}`, false);
      }
    }
  });

  it("fuzzed unit keys and job ids (fast-check)", async () => {
    const segment = fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 40 }), fc.string({ unit: fc.constantFrom(..."%.:/\\'\"-_ 0aZ"), minLength: 1, maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(segment, fc.constantFrom("GET status", "DELETE", "GET job", "cancel"), async (s, which) => {
        const enc = encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "\ufffd"));
        const [method, path] =
          which === "GET status"
            ? ["GET", `/v1/units/${enc}/status`]
            : which === "DELETE"
              ? ["DELETE", `/v1/units/${enc}`]
              : which === "GET job"
                ? ["GET", `/v1/jobs/${enc}`]
                : ["POST", `/v1/jobs/${enc}/cancel`];
        // A value that names a stored unit or job would really delete or cancel it: not what this checks.
        if (/^(post:1|page:1)$/.test(s) || (which.includes("job") && Number.isFinite(Number(s)))) return;
        const res = await request(method, path, { key: site.key });
        guard.read(res, `${method} ${path.slice(0, 80)}`, which.includes("job") ? false : "either");
      }),
      { numRuns: 150 },
    );
  });
});

describe("query parameters", () => {
  it("GET /v1/status?prefix: any string is a prefix (no injection), bounds refused with ErrorOut", async () => {
    for (const [name, value] of Object.entries({ ...ODD_STRINGS, empty: "", long: "p".repeat(255), "dot dot": "../", percent: "%", underscore: "_" })) {
      const res = await request("GET", `/v1/status?prefix=${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, "\ufffd"))}`, { key: site.key });
      guard.read(res, `status prefix ${name}`, name === "empty" ? true : "either");
      if (res.status === 200 && name !== "empty") expect(res.body, `prefix ${name} matches no unit`).toMatchObject({ units_total: 0, segments_total: 0 });
    }
    const all = await request("GET", "/v1/status?prefix=", { key: site.key });
    expect(all.body.units_total).toBe(2);
  });

  it("GET /v1/units, /v1/results, /v1/attention, /v1/jobs: limits, cursors, languages, unit keys", async () => {
    const cases: [string, Validity][] = [
      ["/v1/units?limit=0", false],
      ["/v1/units?limit=1", true],
      ["/v1/units?limit=500", true],
      ["/v1/units?limit=501", false],
      ["/v1/units?limit=-1", false],
      ["/v1/units?limit=1.5", false],
      ["/v1/units?limit=abc", false],
      ["/v1/units?limit=", "either"],
      ["/v1/units?limit=1e2", "either"],
      ["/v1/units?limit=99999999999999999999999", false],
      ["/v1/units?limit=%00", false],
      ["/v1/units?limit=1&limit=2", "either"],
      ["/v1/units?language=d", false],
      ["/v1/units?language=de", true],
      ["/v1/units?language=DE", true],
      [`/v1/units?language=${"e".repeat(15)}`, true],
      [`/v1/units?language=${"e".repeat(16)}`, false],
      ["/v1/units?language=de%27--", false],
      ["/v1/units?prefix=%27%20OR%201%3D1", true],
      ["/v1/units?prefix=%00", true],
      ["/v1/units?cursor=abc", false],
      ["/v1/units?cursor=%%%", false],
      [`/v1/units?cursor=${btoa("42")}`, false],
      [`/v1/units?cursor=${btoa('"post:0"')}`, true],
      [`/v1/units?cursor=${"A".repeat(10_000)}`, false],
      ["/v1/results?limit=0", false],
      ["/v1/results?limit=500", true],
      ["/v1/results?limit=501", false],
      ["/v1/results?unit=post:1", true],
      [`/v1/results?unit=${"x".repeat(255)}`, true],
      [`/v1/results?unit=${"x".repeat(256)}`, false],
      ["/v1/results?unit=post%201", false],
      ["/v1/results?unit=%27", false],
      ["/v1/results?unit=", false],
      ["/v1/results?cursor=xyz", false],
      [`/v1/results?cursor=${btoa('"r_1"')}`, false],
      [`/v1/results?cursor=${btoa("-5")}`, "either"],
      [`/v1/results?cursor=${btoa("1e400")}`, false],
      ["/v1/attention?limit=0", false],
      ["/v1/attention?limit=501", false],
      ["/v1/attention?cursor=%00", false],
      ["/v1/jobs?active=true", true],
      ["/v1/jobs?active=false", true],
      ["/v1/jobs?active=yes", false],
      ["/v1/jobs?active=%27", false],
      ["/v1/jobs?active=", "either"],
    ];
    for (const [path, valid] of cases) guard.read(await request("GET", path, { key: site.key }), `GET ${path.slice(0, 80)}`, valid);
  });

  it("fuzzed query values (fast-check)", async () => {
    const value = fc.oneof(fc.string({ unit: "binary", maxLength: 30 }), fc.string({ unit: fc.constantFrom(..."%'\"-_=&?#;:.0123456789aZ "), maxLength: 20 }));
    const path = fc.constantFrom("/v1/units", "/v1/results", "/v1/attention", "/v1/status", "/v1/jobs");
    const param = fc.constantFrom("limit", "cursor", "prefix", "language", "unit", "active", "other");
    await fc.assert(
      fc.asyncProperty(path, param, value, async (p, name, v) => {
        const res = await request("GET", `${p}?${name}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "\ufffd"))}`, { key: site.key });
        guard.read(res, `GET ${p}?${name}=${JSON.stringify(v)}`, "either");
      }),
      { numRuns: 150 },
    );
  });
});

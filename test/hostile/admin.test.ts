/**
 * Hostile input on every admin endpoint (the OpenAPI document; docs/decisions.md "Requests: keys, limits, hostile input, errors"): tokens, path parameters,
 * bodies (malformed, wrong types, bounds, fuzzed fields). Every answer is a 2xx for valid
 * input or a 4xx ErrorOut, and a refused request leaves the site as it was.
 */
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, admin, client, createSite, request, type TestSite, unit } from "../helpers/api";
import { deepArrays, deepObjects, expectErrorOut, raw, StateGuard, seededSite } from "../helpers/hostile";
import { job } from "../helpers/jobs";
import { glossaryValidity, keyCreateValidity, organizationValidity, siteCreateValidity, sitePatchValidity, subscriptionValidity, type Validity } from "../helpers/validity";

type Site = Awaited<ReturnType<typeof seededSite>>;

let site: Site; // org A, the site whose state is guarded
let other: TestSite; // org B
let held: TestSite & { resultId: string };
let guard: StateGuard;
let heldGuard: StateGuard;

const x = (n: number, c = "x") => c.repeat(n);
const adminRaw = (method: string, path: string, body: string | undefined, headers: Record<string, string> = { "content-type": "application/json" }) =>
  raw(method, path, undefined, body, { ...headers, authorization: `Bearer ${ADMIN}` });

beforeAll(async () => {
  site = await seededSite();
  other = await createSite();
  // A translation held back for the review queue: qa_mode separate, and the pseudo engine overruns max_length.
  const q = await createSite({ qa_mode: "separate" });
  await client(q.key).put("/v1/units", unit("post:1", [{ key: "title", text: "Hello world", max_length: 12 }]));
  await job(client(q.key), q.siteId, { languages: ["de"] });
  const items = (await admin("GET", `/admin/v1/sites/${q.siteId}/attention`)).body.items;
  expect(items).toHaveLength(1);
  held = { ...q, resultId: items[0].id };
  guard = await StateGuard.of(site);
  heldGuard = await StateGuard.of(held);
});

afterEach(async () => {
  await guard.settle();
  await heldGuard.settle();
});

/** Every admin endpoint with a body that would be valid. */
const endpoints = () => [
  { method: "POST", path: "/admin/v1/organizations", body: { name: "Org" } },
  { method: "PUT", path: `/admin/v1/organizations/${site.orgId}/subscription`, body: { plan: "pro", status: "paused", site_ids: [] } },
  { method: "DELETE", path: `/admin/v1/organizations/${site.orgId}/subscription` },
  { method: "PUT", path: `/admin/v1/organizations/${site.orgId}/glossary`, body: { terms: [] } },
  { method: "POST", path: "/admin/v1/sites", body: { organization_id: site.orgId, name: "S", source_language: "en", target_languages: [] } },
  { method: "PATCH", path: `/admin/v1/sites/${site.siteId}`, body: { target_languages: [] } },
  { method: "POST", path: `/admin/v1/sites/${site.siteId}/keys`, body: { name: "k" } },
  { method: "GET", path: `/admin/v1/sites/${site.siteId}/keys` },
  { method: "DELETE", path: `/admin/v1/sites/${site.siteId}/keys/${site.keyId}` },
  { method: "GET", path: `/admin/v1/sites/${site.siteId}/attention` },
  { method: "POST", path: `/admin/v1/sites/${held.siteId}/attention/${held.resultId}`, body: { action: "discard" } },
];

describe("admin token", () => {
  it("a missing or wrong token is 401 ErrorOut on every admin endpoint, and changes nothing", async () => {
    const bad: (string | undefined)[] = [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      `Bearer ${ADMIN}x`,
      `Bearer ${ADMIN.slice(0, -1)}`,
      `Bearer ${ADMIN.toUpperCase()}`,
      `Basic ${btoa(`admin:${ADMIN}`)}`,
      `${ADMIN}`,
      `Bearer ${site.key}`,
      `Bearer ${"x".repeat(10_000)}`,
      "Bearer ' OR '1'='1",
    ];
    for (const ep of endpoints()) {
      for (const authorization of bad) {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (authorization !== undefined) headers.authorization = authorization;
        const res = await raw(ep.method, ep.path, undefined, ep.body === undefined ? undefined : JSON.stringify(ep.body), headers);
        const context = `${ep.method} ${ep.path} with ${JSON.stringify(authorization?.slice(0, 40))}`;
        expect(res.status, context).toBe(401);
        expectErrorOut(res, context);
      }
    }
    await guard.unchanged("after unauthenticated admin requests");
    await heldGuard.unchanged("after unauthenticated admin requests");
    // The site's key still works.
    expect((await client(site.key).get("/v1/site")).status).toBe(200);
  });
});

describe("admin bodies", () => {
  const INVALID = ["", "{", "{'name':1}", '{"name":}', "null", "[]", '"x"', "0", deepArrays(), deepArrays(100_000)];

  it("invalid JSON, non-object bodies, deep nesting and wrong content types are 4xx ErrorOut", async () => {
    for (const ep of endpoints().filter((e) => e.body !== undefined)) {
      const g = ep.path.includes(`/sites/${held.siteId}/`) ? heldGuard : guard;
      for (const body of INVALID) await g.send(`${ep.method} ${ep.path} ${JSON.stringify(body.slice(0, 30))}`, false, () => adminRaw(ep.method, ep.path, body));
      // Deep objects: one unknown field nested past 32 levels, a 422 naming it, even where every field is optional (issue 23).
      const deep = await adminRaw(ep.method, ep.path, deepObjects());
      await g.check(deep, `${ep.path} deep objects`, false);
      expect(deep.body.detail).toBe("a must be nested at most 32 levels deep");
      for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
        await g.send(`${ep.path} ${type}`, false, () => adminRaw(ep.method, ep.path, "a=1", { "content-type": type }));
      }
    }
  });

  it("bounds and types, judged by the admin API's schemas", async () => {
    const term = (extra: Record<string, unknown> = {}) => ({ source: "cat", language: "de", target: "Katze", ...extra });
    const target = (extra: Record<string, unknown> = {}) => ({ code: "de", engine: "pseudo", ...extra });
    const newSite = (extra: Record<string, unknown> = {}) => ({ organization_id: other.orgId, name: "Hostile", source_language: "en", target_languages: [target()], ...extra });
    const cases: [string, string, unknown, Validity][] = [
      ["POST", "/admin/v1/organizations", {}, organizationValidity({})],
      ["POST", "/admin/v1/organizations", { name: 5 }, false],
      ["POST", "/admin/v1/organizations", { name: null }, false],
      ["POST", "/admin/v1/organizations", { name: x(200) }, true],
      ["POST", "/admin/v1/organizations", { name: "'; DROP TABLE organizations; --" }, true],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "gold", status: "active", site_ids: [site.siteId] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "ACTIVE", site_ids: [site.siteId] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active" }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: ["1"] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [0] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [1.5] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [999_999] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [other.siteId] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [site.siteId], included_characters: -1 }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [site.siteId], included_characters: 1.5 }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [site.siteId], included_characters: "5" }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: "cat" }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [term({ source: "" })] }, glossaryValidity({ terms: [term({ source: "" })] })],
      ["PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [term({ source: x(500) })] }, true],
      ["PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [term({ language: "d" })] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [term({ target: 5 })] }, false],
      ["PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [term({ case_sensitive: "yes" })] }, false],
      ["POST", "/admin/v1/sites", newSite({ organization_id: 999_999 }), false],
      ["POST", "/admin/v1/sites", newSite({ organization_id: "1" }), false],
      ["POST", "/admin/v1/sites", newSite({ name: undefined }), false],
      ["POST", "/admin/v1/sites", newSite({ source_language: "e" }), false],
      ["POST", "/admin/v1/sites", newSite({ target_languages: [target({ engine: "babelfish" })] }), false],
      ["POST", "/admin/v1/sites", newSite({ target_languages: [target({ formality: "rude" })] }), false],
      ["POST", "/admin/v1/sites", newSite({ target_languages: [target({ code: "d" })] }), false],
      ["POST", "/admin/v1/sites", newSite({ target_languages: [target(), target({ code: "DE" })] }), false],
      ["POST", "/admin/v1/sites", newSite({ target_languages: [target({ writable: "no" })] }), false],
      ["POST", "/admin/v1/sites", newSite({ enabled_adapters: ["joomla"] }), false],
      ["POST", "/admin/v1/sites", newSite({ enabled_engines: ["babelfish"] }), false],
      ["POST", "/admin/v1/sites", newSite({ qa_mode: "strict" }), false],
      ["POST", "/admin/v1/sites", newSite({ review_mode: "publish" }), false],
      ["PATCH", `/admin/v1/sites/${site.siteId}`, { name: 5 }, false],
      ["PATCH", `/admin/v1/sites/${site.siteId}`, { target_languages: [target(), target()] }, false],
      ["PATCH", `/admin/v1/sites/${site.siteId}`, { target_languages: "de" }, false],
      ["PATCH", `/admin/v1/sites/${site.siteId}`, { qa_mode: null }, false],
      ["PATCH", `/admin/v1/sites/${site.siteId}`, { source_language: x(16, "e") }, false],
      ["PATCH", `/admin/v1/sites/${site.siteId}`, {}, true],
      ["PATCH", `/admin/v1/sites/${site.siteId}`, { unknown: true }, true],
      ["POST", `/admin/v1/sites/${site.siteId}/keys`, { name: 5 }, false],
      ["POST", `/admin/v1/sites/${site.siteId}/keys`, {}, false],
      ["POST", `/admin/v1/sites/${site.siteId}/keys`, { name: x(200) }, true],
    ];
    for (const [method, path, body, valid] of cases)
      await guard.send(`${method} ${path} ${JSON.stringify(body).slice(0, 120)}`, valid, () => adminRaw(method, path, JSON.stringify(body)));
  });

  it("review-queue decisions: bad actions, texts and ids are refused and the translation stays held back", async () => {
    const path = `/admin/v1/sites/${held.siteId}/attention/${held.resultId}`;
    const cases: [unknown, Validity][] = [
      [{}, false],
      [{ action: "approve" }, false],
      [{ action: "fix" }, false],
      [{ action: "fix", text: 5 }, false],
      [{ action: "fix", text: x(100_001) }, false],
      [{ action: ["discard"] }, false],
      [{ action: "DISCARD" }, false],
    ];
    for (const [body, valid] of cases) await heldGuard.send(`decide ${JSON.stringify(body).slice(0, 60)}`, valid, () => adminRaw("POST", path, JSON.stringify(body)));
    for (const id of ["r_1", "r_0", "r_-1", "x".repeat(64), "x".repeat(65), "%27%20OR%201%3D1", "%00", "..%2F..", "%E0%A4%A", encodeURIComponent(`${held.resultId}\u0000`)]) {
      const res = await adminRaw("POST", `/admin/v1/sites/${held.siteId}/attention/${id}`, JSON.stringify({ action: "discard" }));
      await heldGuard.check(res, `decide ${id.slice(0, 30)}`, false);
    }
    // A result of another site is not this site's to decide.
    const foreign = await adminRaw("POST", `/admin/v1/sites/${site.siteId}/attention/${held.resultId}`, JSON.stringify({ action: "discard" }));
    await heldGuard.check(foreign, "decide a result of another site", false);
    await guard.unchanged("after decisions on another site");
  });

  it("fuzzed fields of every admin body (fast-check)", async () => {
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.constantFrom(undefined, null, "", 0, -1, 1.5, true, [], {}, "de", x(201), [site.siteId], [other.siteId]),
    );
    const replace = <T extends Record<string, unknown>>(base: T, fields: string[]) =>
      fc.tuple(fc.constantFrom(...fields), value).map(([f, v]) => ({ ...base, [f]: v }) as Record<string, unknown>);
    const knownSites = [site.siteId];
    const arb = fc.oneof(
      replace({ name: "Org" }, ["name"]).map((b) => ["POST", "/admin/v1/organizations", b, organizationValidity(b)] as const),
      replace({ plan: "scale", status: "active", site_ids: [site.siteId] }, ["plan", "status", "site_ids", "included_characters"]).map(
        (b) => ["PUT", `/admin/v1/organizations/${site.orgId}/subscription`, b, subscriptionValidity(b, knownSites)] as const,
      ),
      replace({ source: "cat", language: "de", target: "Katze" }, ["source", "language", "target", "case_sensitive"]).map((t) => {
        const b: Record<string, unknown> = { terms: [t] };
        return ["PUT", `/admin/v1/organizations/${site.orgId}/glossary`, b, glossaryValidity(b)] as const;
      }),
      replace({ organization_id: other.orgId, name: "S", source_language: "en", target_languages: [{ code: "de", engine: "pseudo" }] }, [
        "organization_id",
        "name",
        "source_language",
        "target_languages",
        "enabled_adapters",
        "enabled_engines",
        "qa_mode",
        "review_mode",
      ]).map((b) => ["POST", "/admin/v1/sites", b, siteCreateValidity(b, [site.orgId, other.orgId])] as const),
      replace({}, ["name", "source_language", "target_languages", "enabled_adapters", "enabled_engines", "qa_mode", "review_mode"]).map(
        (b) => ["PATCH", `/admin/v1/sites/${other.siteId}`, b, sitePatchValidity(b)] as const,
      ),
      replace({ name: "k" }, ["name"]).map((b) => ["POST", `/admin/v1/sites/${site.siteId}/keys`, b, keyCreateValidity(b)] as const),
      replace({ action: "fix", text: "Hallo" }, ["action", "text"]).map(
        // Only invalid decisions: a valid one would take the translation out of the queue.
        (b) => ["POST", `/admin/v1/sites/${held.siteId}/attention/${held.resultId}`, b, false] as const,
      ),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([method, path, body, valid]) => {
        if (path.includes("/attention/") && (body.action === "discard" || (body.action === "fix" && typeof body.text === "string" && body.text.length <= 100_000))) return;
        const g = path.includes(`/sites/${held.siteId}/`) ? heldGuard : guard;
        await g.send(`${method} ${path} ${JSON.stringify(body)?.slice(0, 200)}`, valid, () => adminRaw(method, path, JSON.stringify(body)));
      }),
      { numRuns: 150 },
    );
  });
});

describe("admin path parameters", () => {
  const NASTY = ["0", "-1", "1.5", "abc", "Infinity", "NaN", "9".repeat(30), "'", "%27%20OR%201%3D1", "%00", "..%2F..", "%E0%A4%A", "%F0%9F%98%80", "x".repeat(5000), "999999"];

  it("organization, site and key ids: 4xx ErrorOut (422 malformed, 404 unknown), nothing changes", async () => {
    for (const id of NASTY) {
      const cases: [string, string, unknown][] = [
        ["PUT", `/admin/v1/organizations/${id}/subscription`, { plan: "scale", status: "active", site_ids: [] }],
        ["DELETE", `/admin/v1/organizations/${id}/subscription`, undefined],
        ["PUT", `/admin/v1/organizations/${id}/glossary`, { terms: [] }],
        ["PATCH", `/admin/v1/sites/${id}`, { name: "renamed" }],
        ["POST", `/admin/v1/sites/${id}/keys`, { name: "k" }],
        ["GET", `/admin/v1/sites/${id}/keys`, undefined],
        ["DELETE", `/admin/v1/sites/${id}/keys/${site.keyId}`, undefined],
        ["DELETE", `/admin/v1/sites/${site.siteId}/keys/${id}`, undefined],
        ["GET", `/admin/v1/sites/${id}/attention`, undefined],
        ["POST", `/admin/v1/sites/${id}/attention/${held.resultId}`, { action: "discard" }],
      ];
      for (const [method, path, body] of cases) {
        const res = await adminRaw(method, path, body === undefined ? undefined : JSON.stringify(body));
        guard.answer(res, `${method} ${path.slice(0, 80)}`, false);
      }
    }
    await guard.unchanged("after admin requests with bad ids");
    await heldGuard.unchanged("after admin requests with bad ids");
  });

  it("a key id of another site does not revoke that key", async () => {
    const res = await adminRaw("DELETE", `/admin/v1/sites/${site.siteId}/keys/${other.keyId}`, undefined);
    expect(res.status).toBe(404);
    expectErrorOut(res, "revoke a key through another site");
    expect((await client(other.key).get("/v1/site")).status).toBe(200);
    await guard.unchanged("after revoking a foreign key");
  });

  it("GET attention query parameters", async () => {
    for (const [q, valid] of [
      ["limit=0", false],
      ["limit=501", false],
      ["limit=abc", false],
      ["limit=500", true],
      ["cursor=%00", false],
      [`cursor=${"A".repeat(600)}`, false],
    ] as [string, Validity][]) {
      const res = await request("GET", `/admin/v1/sites/${held.siteId}/attention?${q}`, { key: ADMIN });
      heldGuard.answer(res, `attention ${q}`, valid);
    }
    await heldGuard.unchanged("after attention reads");
  });
});

/**
 * Odd Unicode (lone surrogates, NUL, RTL marks, emoji, combining marks, …) in every
 * free-text field, deep nesting where free-form JSON is allowed, and unit keys that URLs
 * cannot carry. A string is either refused with a 4xx ErrorOut or stored exactly; what is
 * stored behaves like any other value (an identical push changes nothing).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { admin, client, createSite, unit } from "../helpers/api";
import { deepArrays, expectErrorOut, expectHandled, ODD_STRINGS, raw, StateGuard } from "../helpers/hostile";
import { allResults, job } from "../helpers/jobs";

const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
const hasNul = (s: string) => s.includes("\u0000");
/** Strings every text field stores: well-formed and without U+0000 (docs/decisions.md "Pushes" refuses NUL with a 422 naming the field). */
const WELL_FORMED = Object.fromEntries(Object.entries(ODD_STRINGS).filter(([, s]) => !hasLoneSurrogate(s) && !hasNul(s)));
const LONE = Object.fromEntries(Object.entries(ODD_STRINGS).filter(([, s]) => hasLoneSurrogate(s)));

async function setup() {
  const site = await createSite({ handshake: { capabilities: ["qa_errors"] } });
  return { site, c: client(site.key) };
}

describe("odd Unicode in pushed units", () => {
  it("is stored exactly in every free-text field, and an identical push changes nothing", async () => {
    const { c } = await setup();
    for (const [name, s] of Object.entries(WELL_FORMED)) {
      const body = unit("odd:1", [{ key: s, text: s, field: s, kind: s.slice(0, 50), parent_key: s, translations: { de: s } }], { label: s, path: s, metadata: { [s]: s } });
      const first = await c.put("/v1/units", body);
      expect(first.status, name).toBe(200);
      const again = await c.put("/v1/units", body);
      expect(again.body, name).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 1, stale_translations: 0, imported_translations: 0 });
      const status = await c.get("/v1/units/odd:1/status");
      expect(status.body, name).toMatchObject({ label: s, path: s, segments_total: 1 });
      expect(status.body.segments[0], name).toMatchObject({ key: s, field: s, kind: s.slice(0, 50), parent_key: s, states: { de: "ok", fr: "missing" } });
      await c.del("/v1/units/odd:1");
    }
  });

  it("fuzzed well-formed strings (fast-check): stored exactly, pushes idempotent", async () => {
    const { c } = await setup();
    const text = fc.string({ unit: "binary", minLength: 1, maxLength: 30 }).filter((s) => !hasLoneSurrogate(s) && !hasNul(s));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(text, { minLength: 1, maxLength: 4 }), text, async (keys, label) => {
        const key = `fuzz:${++n}`;
        const body = unit(
          key,
          keys.map((k) => ({ key: k, text: k })),
          { label },
        );
        const first = await c.put("/v1/units", body);
        expect(first.body, JSON.stringify(keys)).toMatchObject({ added: keys.length, unit_created: true });
        const again = await c.put("/v1/units", body);
        expect(again.body, JSON.stringify(keys)).toMatchObject({ added: 0, removed: 0, changed: 0, unchanged: keys.length });
        const status = await c.get(`/v1/units/${key}/status`);
        expect(status.body.label).toBe(label);
        expect(status.body.segments.map((s: any) => s.key).sort()).toEqual([...keys].sort());
      }),
      { numRuns: 60 },
    );
  });

  // Lone surrogates cannot be stored as UTF-8. The service may refuse them or store them, but a
  // segment key is the segment's identity: the same snapshot again must change nothing.
  it("a segment key with a lone surrogate: refused, or an identical second push changes nothing", async () => {
    for (const [name, s] of Object.entries(LONE)) {
      const { c } = await setup();
      const body = unit("post:1", [{ key: `k${s}`, text: "Hello", translations: { de: "Hallo" } }]);
      const first = await c.put("/v1/units", body);
      if (first.status !== 200) {
        expectErrorOut(first, name);
        continue;
      }
      const again = await c.put("/v1/units", body);
      expect(again.body, name).toMatchObject({ added: 0, removed: 0, unchanged: 1 });
      // …and the segment keeps its imported translation.
      expect(
        (await c.get("/v1/units/post:1/status")).body.segments.map((x: any) => x.states),
        name,
      ).toEqual([{ de: "ok", fr: "missing" }]);
    }
  });

  it("two segment keys that differ only in lone surrogates: refused, or an empty snapshot removes both", async () => {
    const { c } = await setup();
    const first = await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "\ud800", text: "a" },
        { key: "\udbff", text: "b" },
      ]),
    );
    if (first.status !== 200) return expectErrorOut(first, "two lone surrogate keys");
    const emptied = await c.put("/v1/units", unit("post:1", []));
    expect(emptied.body).toMatchObject({ removed: 2 });
    expect((await c.get("/v1/units/post:1/status")).body.segments).toEqual([]);
    expect((await c.get("/v1/status")).body.segments_total).toBe(0);
  });

  it("a unit key with a lone surrogate or NUL is refused by the unit key pattern", async () => {
    const { site, c } = await setup();
    const guard = await StateGuard.of(site);
    for (const key of ["post:\ud800", "post:\u0000", "post:\u202e1", "post:😀", "post:e\u0301"]) {
      await guard.send(`external_key ${JSON.stringify(key)}`, false, () => c.put("/v1/units", unit(key, [])));
    }
    await guard.settle();
  });
});

describe("U+0000 (a 422 naming the field)", () => {
  const NUL = "a\u0000b";
  it("in any text of a pushed unit is a 422 whose detail names the field; nothing is stored", async () => {
    const { site, c } = await setup();
    const guard = await StateGuard.of(site);
    const cases: [string, unknown][] = [
      ["segments[0].text", unit("post:1", [{ key: "a", text: NUL }])],
      ["segments[0].key", unit("post:1", [{ key: NUL, text: "Hello" }])],
      ["segments[0].field", unit("post:1", [{ key: "a", text: "Hello", field: NUL }])],
      ["segments[0].kind", unit("post:1", [{ key: "a", text: "Hello", kind: NUL }])],
      ["segments[0].parent_key", unit("post:1", [{ key: "a", text: "Hello", parent_key: NUL }])],
      ["segments[0].translations.de", unit("post:1", [{ key: "a", text: "Hello", translations: { de: NUL } }])],
      ["label", unit("post:1", [{ key: "a", text: "Hello" }], { label: NUL })],
      ["path", unit("post:1", [{ key: "a", text: "Hello" }], { path: NUL })],
    ];
    for (const [field, body] of cases) {
      const res = await c.put("/v1/units", body);
      expect(res.status, field).toBe(422);
      expect(res.body.detail, field).toBe(`${field} must not contain U+0000 (NUL)`);
    }
    expect((await c.get("/v1/status")).body.units_total).toBe(0);
    await guard.settle();
  });

  it("in a batch: that unit is ok: false naming the field, the others are stored", async () => {
    const { c } = await setup();
    const res = await c.put("/v1/units/batch", { units: [unit("post:1", [{ key: "a", text: NUL }]), unit("post:2", [{ key: "a", text: "Hello" }])] });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ external_key: "post:1", ok: false, result: null });
    expect(res.body.results[0].error).toMatch(/segments\[0\]\.text must not contain U\+0000/);
    expect(res.body.results[1]).toMatchObject({ external_key: "post:2", ok: true });
    expect((await c.get("/v1/status")).body.units_total).toBe(1);
  });

  it("in other request texts: handshake, attention fix, admin names and glossary terms", async () => {
    const { site, c } = await setup();
    const cases: [Promise<any>, string][] = [
      [c.post("/v1/handshake", { connector_version: NUL, source_language: "en", languages: ["de"] }), "connector_version"],
      [admin("POST", "/admin/v1/organizations", { name: NUL }), "name"],
      [admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: NUL }), "name"],
      [admin("PATCH", `/admin/v1/sites/${site.siteId}`, { name: NUL }), "name"],
      [admin("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [{ source: "a", language: "de", target: NUL }] }), "terms[0].target"],
      [admin("POST", `/admin/v1/sites/${site.siteId}/attention/r_1`, { action: "fix", text: NUL }), "text"],
    ];
    for (const [call, field] of cases) {
      const res = await call;
      expect(res.status, field).toBe(422);
      expect(res.body.detail, field).toBe(`${field} must not contain U+0000 (NUL)`);
    }
  });
});

describe("odd Unicode elsewhere", () => {
  it("handshake, job, ack and review fields, and admin names: refused with ErrorOut or accepted, never a 5xx", async () => {
    const { site, c } = await setup();
    await c.put(
      "/v1/units",
      unit(
        "post:1",
        Object.keys(ODD_STRINGS).map((name, i) => ({ key: `k${i}`, text: `Text ${name}` })),
      ),
    );
    await job(c, site.siteId, { languages: ["de"] });
    const results = await allResults(c);
    let i = 0;
    for (const [name, s] of Object.entries(ODD_STRINGS)) {
      const calls = [
        c.post("/v1/handshake", { connector_version: s.slice(0, 50), source_language: "en", languages: ["de", "fr"], adapters: [s], capabilities: ["qa_errors", s] }),
        c.post("/v1/jobs", { estimate_only: true, prefix: `post:${s}`, languages: ["de", s] }),
        c.post("/v1/jobs", { type: "translate", units: [s], estimate_only: true }),
        c.post("/v1/results/ack", { ids: [s, `r_${s}`] }),
        c.post("/v1/reviews", { reviews: [{ id: s, outcome: "approved" }] }),
        admin("POST", "/admin/v1/organizations", { name: s }),
        admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: s }),
        admin("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [{ source: s, language: "de", target: s }] }),
        admin("PATCH", `/admin/v1/sites/${site.siteId}`, { name: s }),
      ];
      for (const res of await Promise.all(calls)) expectHandled(res, name);
      // A real review with an odd final text and reviewer is applied; a text that is not
      // well-formed Unicode (a lone surrogate) is refused with a 422 naming the field.
      const r = results[i++];
      const reviewed = await c.post("/v1/reviews", { reviews: [{ id: r.id, outcome: "approved", text: s, reviewer: s }] });
      if (/[\uD800-\uDFFF\u0000]/u.test(s)) {
        expect(reviewed.status, name).toBe(422);
        expect(reviewed.body.detail, name).toMatch(hasNul(s) ? /^reviews\[0\]\.text must not contain U\+0000/ : /^reviews\[0\]\.text must be well-formed Unicode/);
        expect((await c.post("/v1/reviews", { reviews: [{ id: r.id, outcome: "approved" }] })).body, name).toEqual({ updated: 1, ignored: [] });
      } else expect(reviewed.body, name).toEqual({ updated: 1, ignored: [] });
    }
    expect((await c.get("/v1/status")).body.languages[0]).toMatchObject({ code: "de", ok: Object.keys(ODD_STRINGS).length, review: 0 });
  });
});

describe("deep nesting where free-form JSON is allowed", () => {
  // metadata is "free-form, any properties" (64 KiB as JSON): 10,000 nested arrays are 20 KB.
  it("PUT /v1/units with 10,000 nested arrays in metadata: stored or refused with 4xx ErrorOut, never a 5xx", async () => {
    const { site } = await setup();
    const guard = await StateGuard.of(site);
    const body = `{"external_key":"post:1","adapter":"wordpress","segments":[{"key":"a","text":"Hello"}],"metadata":{"x":${deepArrays(10_000)}}}`;
    await guard.send("metadata 10,000 deep", "either", () => raw("PUT", "/v1/units", site.key, body));
    await guard.settle();
  });

  it("PUT /v1/units/batch with 10,000 nested arrays in one unit's metadata: the other units are still applied", async () => {
    const { site, c } = await setup();
    const deep = `{"external_key":"post:1","adapter":"wordpress","segments":[],"metadata":{"x":${deepArrays(10_000)}}}`;
    const fine = JSON.stringify(unit("post:2", [{ key: "a", text: "Hello" }]));
    const res = await raw("PUT", "/v1/units/batch", site.key, `{"units":[${deep},${fine}]}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results[1]).toMatchObject({ external_key: "post:2", ok: true });
    expect((await c.get("/v1/units/post:2/status")).status).toBe(200);
  });
});

describe("unit keys that a URL path cannot carry", () => {
  // The unit key pattern admits "." and "..", but URL normalization turns /v1/units/.. into
  // /v1/: a unit pushed under such a key could never be deleted or read.
  for (const key of [".", ".."]) {
    it(`"${key}": refused by the push, or deletable (DELETE answers 204)`, async () => {
      const { site, c } = await setup();
      const pushed = await c.put("/v1/units", unit(key, [{ key: "a", text: "Hello" }]));
      if (pushed.status !== 200) return expectErrorOut(pushed, `push ${key}`);
      const encoded = key.replace(/\./g, "%2E");
      const deleted = await c.del(`/v1/units/${encoded}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
      expect((await c.get("/v1/status")).body.units_total).toBe(0);
      void site;
    });
  }
});

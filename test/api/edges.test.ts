// The corners docs/interface.md leaves open, as docs/decisions.md decides them, one test per row.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { UnitSnapshotIn } from "../../src/api/schemas";
import type { SiteSettings } from "../../src/control/sites.control";
import { GLOSSARY_MAX_AGE_MS } from "../../src/site/jobs/glossary-copy";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { admin, client, createSite, request, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { allResults, job } from "../helpers/jobs";
import { runnerDeps, stubOf } from "../helpers/site";

describe("units on a delta job", () => {
  it("is a 422 naming the rule, and creates, reserves and bills nothing", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    await c.put("/v1/units", unit("post:2", [{ key: "a", text: "World" }]));
    for (const body of [{ units: ["post:1"] }, { type: "delta", units: ["post:1"], confirm: true }, { type: "delta", units: [] }, { units: ["post:1"], estimate_only: true }]) {
      const res = await c.post("/v1/jobs", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail).toBe('units is only allowed for translate jobs (narrow a delta job with "prefix")');
    }
    expect((await c.get("/v1/jobs")).body).toEqual([]);
    const reserved = await env.DB.prepare("SELECT count(*) AS n FROM reservations WHERE site_id = ?").bind(site.siteId).first<{ n: number }>();
    expect(reserved!.n).toBe(0);
    // units: null is "not given": a whole-site delta job as asked.
    expect((await c.post("/v1/jobs", { units: null, estimate_only: true })).body.estimated_segments).toBe(4);
    // The same units on a translate job narrow it.
    expect((await c.post("/v1/jobs", { type: "translate", units: ["post:1"], estimate_only: true })).body.estimated_segments).toBe(2);
  });
});

describe("ack and reviews with unknown or malformed ids", () => {
  it("never refuse the request: ack does not count them, reviews list them in ignored", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "Hello" },
        { key: "b", text: "World" },
      ]),
    );
    await job(c, site.siteId);
    const [r1, r2] = await allResults(c);
    const odd = ["", "x".repeat(65), "r_0", "r_-1", "R_1", " r_1", "r_99999999999999999999", "r_1e3", "'; DROP TABLE results; --", "r_\u0000", "😀", "y".repeat(5000)];
    const ack = await c.post("/v1/results/ack", { ids: [r1.id, ...odd] });
    expect(ack.status).toBe(200);
    expect(ack.body).toEqual({ acknowledged: 1 });
    const reviews = await c.post("/v1/reviews", { reviews: [{ id: r2.id, outcome: "approved" }, ...odd.map((id) => ({ id, outcome: "rejected" }))] });
    expect(reviews.status).toBe(200);
    expect(reviews.body).toEqual({ updated: 1, ignored: odd });
    // Only the documented shape and the bounds on counts are rules.
    expect((await c.post("/v1/results/ack", { ids: [1] })).status).toBe(422);
    expect((await c.post("/v1/results/ack", { ids: Array.from({ length: 1001 }, (_, i) => `r_${i + 1}`) })).status).toBe(422);
    expect((await c.post("/v1/reviews", { reviews: [{ id: 5, outcome: "approved" }] })).status).toBe(422);
    expect((await c.post("/v1/reviews", { reviews: Array.from({ length: 501 }, () => ({ id: "r_1", outcome: "approved" })) })).status).toBe(422);
  });
});

describe("DELETE /v1/units/{key}", () => {
  it("answers 204 for every key, one that could never exist included", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    const keys = ["post:1", "post:1", "never:1", "x".repeat(256), "a%20b", "%00", "%E0%A4%A", "%F0%9F%98%80", "..%2F..%2Fetc", "post%3A1%2Fx", "a'b", "%25", "~!$&()*+,;=@"];
    for (const key of keys) {
      const res = await c.del(`/v1/units/${key}`);
      expect(res.status, key).toBe(204);
    }
    expect((await c.get("/v1/units/post:1/status")).status).toBe(404);
    expect((await c.get("/v1/status")).body.units_total).toBe(0);
  });
});

describe("body size", () => {
  it("a body of exactly 10,485,760 bytes is 413; one byte less is read", async () => {
    const site = await createSite();
    const LIMIT = 10 * 1024 * 1024;
    const pad = (n: number) => {
      const head = '{"external_key":"big:1","adapter":"wordpress","segments":[],"label":"';
      const tail = '"}';
      return head + "x".repeat(n - head.length - tail.length) + tail;
    };
    const exact = await request("PUT", "/v1/units", { key: site.key, raw: pad(LIMIT), headers: { "content-type": "application/json" } });
    expect(exact.status).toBe(413);
    expect(exact.body.detail).toMatch(/too large/);
    const under = await request("PUT", "/v1/units", { key: site.key, raw: pad(LIMIT - 1), headers: { "content-type": "application/json" } });
    // Read (the label is far beyond any field's length, refused by the text pass): a 422, not a 413.
    expect(under.status).toBe(422);
    expect(under.body.detail).toMatch(/^label is too long/);
  });
});

// The pseudo engine lengthens text by about 30%: a max_length below that is a QA error.
const tooLong = { key: "title", text: "Hello world", max_length: 12 };

describe("QA of human text", () => {
  it("an edited approval gets its own findings, shown but never holding it back; qa describes the current text", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }], handshake: { capabilities: ["qa_errors"] } });
    await admin("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [{ source: "world", language: "de", target: "Welt" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [tooLong, { key: "body", text: "Hello world" }]));
    await job(c, site.siteId);
    const results = await allResults(c);
    const title = results.find((r) => r.key === "title");
    const body = results.find((r) => r.key === "body");
    expect(title.qa.map((q: any) => q.code)).toContain("max_length");
    // title: a short human text fixes the machine's error; body: a human text that misses the glossary term and adds a placeholder.
    const reviewed = await c.post("/v1/reviews", {
      reviews: [
        { id: title.id, outcome: "approved", text: "Hallo Welt" },
        { id: body.id, outcome: "approved", text: "Hallo Erde {name}" },
      ],
    });
    expect(reviewed.body).toEqual({ updated: 2, ignored: [] });
    const status = (await c.get("/v1/units/post:1/status")).body;
    const seg = (key: string) => status.segments.find((s: any) => s.key === key);
    expect(seg("title").states).toEqual({ de: "ok" });
    expect(seg("title").qa).toBeUndefined(); // the machine's max_length error no longer describes the text
    expect(seg("body").states).toEqual({ de: "ok" }); // an error (an added placeholder) never holds human text back
    expect(
      seg("body")
        .qa.de.map((q: any) => q.code)
        .sort(),
    ).toEqual(["glossary", "placeholders"]);
  });

  it("a fix from the review queue gets its own findings: errors need a confirmation, then are shown but never hold it back", async () => {
    const site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [tooLong]));
    await job(c, site.siteId);
    const [item] = (await c.get("/v1/attention")).body.items;
    // A fix with a QA error is saved only when confirmed (the findings come with the refusal).
    const unconfirmed = await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${item.id}`, { action: "fix", text: "Hallo schoene Welt" });
    expect(unconfirmed.status).toBe(409);
    expect(unconfirmed.body.qa.map((q: any) => q.code)).toEqual(["max_length"]);
    const fixed = await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${item.id}`, { action: "fix", text: "Hallo schoene Welt", confirm: true });
    expect(fixed.body).toEqual({ id: item.id, state: "ok" });
    const status = (await c.get("/v1/units/post:1/status")).body;
    expect(status.segments[0].states).toEqual({ de: "ok" });
    expect(status.segments[0].qa.de).toEqual([
      expect.objectContaining({ code: "max_length", severity: "error", message: expect.stringMatching(/18 characters long; the limit is 12/) }),
    ]);
    expect((await c.get("/v1/status")).body.languages[0]).toMatchObject({ ok: 1, attention: 0 });
  });
});

describe("attention items whose source changed", () => {
  it("leave /v1/attention, answer 404 to fix and discard, and counts agree with the list", async () => {
    const site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [tooLong, { ...tooLong, key: "sub" }]));
    await job(c, site.siteId);
    const items = (await c.get("/v1/attention")).body.items;
    expect(items).toHaveLength(2);
    expect((await c.get("/v1/status")).body.languages[0]).toMatchObject({ attention: 2 });
    // The source of "title" changes: its item is stale.
    await c.put(
      "/v1/units",
      unit("post:1", [
        { ...tooLong, text: "Hello new world" },
        { ...tooLong, key: "sub" },
      ]),
    );
    const after = (await c.get("/v1/attention")).body.items;
    expect(after.map((i: any) => i.key)).toEqual(["sub"]);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}/attention`)).body.items.map((i: any) => i.key)).toEqual(["sub"]);
    expect((await c.get("/v1/status")).body.languages[0]).toMatchObject({ attention: 1, stale: 1 });
    const stale = items.find((i: any) => i.key === "title");
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${stale.id}`, { action: "fix", text: "Hallo" })).status).toBe(404);
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${stale.id}`, { action: "discard" })).status).toBe(404);
    expect((await c.get("/v1/units/post:1/status")).body.segments.find((s: any) => s.key === "title").states).toEqual({ de: "stale" });
    // Reverting the text makes it current again: back in the queue, and counted.
    await c.put("/v1/units", unit("post:1", [tooLong, { ...tooLong, key: "sub" }]));
    expect((await c.get("/v1/attention")).body.items).toHaveLength(2);
    expect((await c.get("/v1/status")).body.languages[0]).toMatchObject({ attention: 2 });
    // A language no longer targeted: neither counted nor listed.
    await admin("PATCH", `/admin/v1/sites/${site.siteId}`, { target_languages: [{ code: "fr", engine: "pseudo" }] });
    expect((await c.get("/v1/attention")).body.items).toEqual([]);
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${stale.id}`, { action: "discard" })).status).toBe(404);
  });
});

describe("GET /v1/status and the glossary", () => {
  it("the glossary-term count is held by the site object: current at once after a change, no D1 read per call", async () => {
    const site = await createSite();
    const c = client(site.key);
    expect((await c.get("/v1/status")).body.glossary_terms).toBe(0);
    await admin("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, {
      terms: [
        { source: "world", language: "de", target: "Welt" },
        { source: "home", language: "fr", target: "maison" },
      ],
    });
    expect((await c.get("/v1/status")).body.glossary_terms).toBe(2);
    // A row written to D1 behind the service's back is not seen per call: status does not read D1…
    await env.DB.prepare("INSERT INTO glossary_terms (organization_id, source, language, target, case_sensitive) VALUES (?, 'a', 'de', 'b', 0)").bind(site.orgId).run();
    expect((await c.get("/v1/status")).body.glossary_terms).toBe(2);
    // …and the next change through the service brings it up to date.
    await admin("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [{ source: "world", language: "de", target: "Welt" }] });
    expect((await c.get("/v1/status")).body.glossary_terms).toBe(1);
  });

  it("reloads from D1 when its copy is older than the maximum age", async () => {
    const site = await createSite();
    const c = client(site.key);
    expect((await c.get("/v1/status")).body.glossary_terms).toBe(0);
    await env.DB.prepare("INSERT INTO glossary_terms (organization_id, source, language, target, case_sensitive) VALUES (?, 'a', 'de', 'b', 0)").bind(site.orgId).run();
    await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => o.store.setMeta("glossary", { count: 0, loadedAt: Date.now() - GLOSSARY_MAX_AGE_MS }));
    expect((await c.get("/v1/status")).body.glossary_terms).toBe(1);
  });
});

describe("an import that meets a running job", () => {
  it("wins: the connector's text is kept and the job's result for that segment and language is not delivered", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    const segments = [
      { key: "a", text: "Hello" },
      { key: "b", text: "World" },
    ];
    await c.put("/v1/units", unit("post:1", segments));
    const created = (await c.post("/v1/jobs", { confirm: true })).body;
    let imported = false;
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const settings = o.store.getMeta<SiteSettings>("settings")!;
      const engine = fakeEngine({
        limits: { maxSegments: 1000, maxCharacters: 1e9 },
        translation: (text, r) => `MT ${r.targetLanguage}: ${text}`,
        during: async () => {
          if (!imported) {
            imported = true;
            // While the engine works on de, the connector pushes a human translation of "a" in de.
            await o.pushUnit(settings, UnitSnapshotIn.parse(unit("post:1", [{ key: "a", text: "Hello", translations: { de: "Hallo (vom Menschen)" } }, segments[1]])));
          }
        },
      });
      await runJobs(runnerDeps(o, { settings, engineFor: () => engine }), 60_000);
    });
    expect(imported).toBe(true);
    const finished = (await c.get(`/v1/jobs/${created.id}`)).body;
    expect(finished.status).toBe("succeeded");
    const results = await allResults(c);
    expect(results.map((r) => `${r.key}/${r.language}`).sort()).toEqual(["a/fr", "b/de", "b/fr"]);
    const status = (await c.get("/v1/units/post:1/status")).body;
    expect(status.segments.find((s: any) => s.key === "a").states).toEqual({ de: "ok", fr: "review" });
    expect((await c.get("/v1/status")).body.languages.find((l: any) => l.code === "de")).toMatchObject({ ok: 1, review: 1, missing: 0 });
    // The import stays the translation: a later forced-free delta finds nothing to do for it.
    expect((await c.post("/v1/jobs", { estimate_only: true })).body.estimated_segments).toBe(0);
  });
});

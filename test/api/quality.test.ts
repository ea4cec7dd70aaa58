import { describe, expect, it } from "vitest";
import { admin, client, createSite, unit } from "../helpers/api";
import { allResults, job } from "../helpers/jobs";

// The pseudo engine lengthens text by about 30%: a max_length below that is a QA error.
const tooLong = { key: "title", text: "Hello world", max_length: 12 };
const fine = { key: "body", text: "Welcome home" };

async function translate(qaMode: "editors" | "separate", capabilities: string[]) {
  const site = await createSite({ qa_mode: qaMode, target_languages: [{ code: "de" }], handshake: { capabilities } });
  const c = client(site.key);
  await c.put("/v1/units", unit("post:1", [tooLong, fine]));
  const done = await job(c, site.siteId);
  return { site, c, done, results: await allResults(c), status: (await c.get("/v1/units/post:1/status")).body };
}

describe("QA routing (qa_mode × qa_errors)", () => {
  it("editors + qa_errors: delivered in review with the errors flagged", async () => {
    const { done, results, status, c } = await translate("editors", ["qa_errors"]);
    expect(done).toMatchObject({ done_segments: 2, qa_failed_segments: 0 });
    const title = results.find((r) => r.key === "title");
    expect(title.qa).toEqual([{ code: "max_length", severity: "error", message: expect.stringMatching(/limit is 12/) }]);
    expect(status.segments.find((s: any) => s.key === "title")).toMatchObject({ states: { de: "review" }, qa: { de: [expect.objectContaining({ code: "max_length" })] } });
    expect(status.segments.find((s: any) => s.key === "title").held_back).toBeUndefined();
    expect((await c.get("/v1/attention")).body.items).toEqual([]);
  });

  it.each([
    ["editors", []],
    ["separate", ["qa_errors"]],
    ["separate", []],
  ] as const)("%s with capabilities %j: held back for attention, not delivered", async (mode, caps) => {
    const { site, done, results, status, c } = await translate(mode, [...caps]);
    expect(done).toMatchObject({ done_segments: 2, qa_failed_segments: 1 });
    expect(results.map((r) => r.key)).toEqual(["body"]);
    const title = status.segments.find((s: any) => s.key === "title");
    expect(title).toMatchObject({ states: { de: "attention" }, held_back: ["de"], qa: { de: [expect.objectContaining({ code: "max_length", severity: "error" })] } });
    expect(status.languages[0]).toMatchObject({ code: "de", attention: 1, review: 1, attention_url: `https://dash.test/sites/${site.siteId}/attention?unit=post%3A1&language=de` });
    const attention = (await c.get("/v1/attention")).body;
    expect(attention).toEqual({
      items: [
        {
          id: expect.stringMatching(/^r_/),
          unit: "post:1",
          key: "title",
          language: "de",
          text: expect.any(String),
          source_text: "Hello world",
          qa: [expect.objectContaining({ code: "max_length" })],
          job_id: done.id,
          created_at: expect.any(String),
          dashboard_url: expect.stringContaining("/attention?unit=post%3A1&language=de"),
        },
      ],
      next_cursor: null,
    });
    // without force, held-back segments are not retranslated
    expect((await c.post("/v1/jobs", { estimate_only: true })).body.estimated_segments).toBe(0);
    expect((await c.get("/v1/units")).body.units[0].languages).toEqual([
      { code: "de", missing: 0, stale: 0, review: 1, attention: 1, attention_url: expect.stringContaining("/attention?") },
    ]);
  });
});

describe("the review queue", () => {
  it("fix: origin human, ok, into the memory", async () => {
    const { site, c } = await translate("separate", []);
    const [item] = (await c.get("/v1/attention")).body.items;
    const fixed = await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${item.id}`, { action: "fix", text: "Hallo Welt" });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toEqual({ id: item.id, state: "ok" });
    expect((await c.get("/v1/units/post:1/status")).body.segments[0].states).toEqual({ de: "ok" });
    expect((await c.get("/v1/attention")).body.items).toEqual([]);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}/attention`)).body.items).toEqual([]);
    // a second decision on the same result is refused
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${item.id}`, { action: "discard" })).status).toBe(404);
    // the fixed text is delivered to the connector: a new result (origin human) to write and acknowledge
    const delivered = (await allResults(c)).filter((r) => r.key === "title");
    expect(delivered).toEqual([expect.objectContaining({ unit: "post:1", key: "title", language: "de", text: "Hallo Welt", origin: "human", engine: "human", job_id: null })]);
    expect(delivered[0].id).not.toBe(item.id);
    // it is an editor's decision already: acknowledged like any result, a review of it is ignored
    expect((await c.post("/v1/results/ack", { ids: [delivered[0].id] })).body).toEqual({ acknowledged: 1 });
    expect((await allResults(c)).filter((r) => r.key === "title")).toEqual([]);
    expect((await c.post("/v1/reviews", { reviews: [{ id: delivered[0].id, outcome: "rejected" }] })).body).toEqual({ updated: 0, ignored: [delivered[0].id] });
    expect((await c.get("/v1/units/post:1/status")).body.segments[0].states).toEqual({ de: "ok" });
    // the fix is in the memory
    await c.put("/v1/units", unit("post:2", [{ key: "t", text: "Hello world" }]));
    const est = await c.post("/v1/jobs", { estimate_only: true });
    expect(est.body).toMatchObject({ estimated_segments: 1, estimated_tm_segments: 1, estimated_characters: 0 });
  });

  it("discard: missing, translated again by the next job", async () => {
    const { site, c } = await translate("separate", []);
    const listed = (await admin("GET", `/admin/v1/sites/${site.siteId}/attention`)).body.items;
    expect(listed).toHaveLength(1);
    const res = await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${listed[0].id}`, { action: "discard" });
    expect(res.body).toEqual({ id: listed[0].id, state: "missing" });
    expect((await c.get("/v1/units/post:1/status")).body.segments[0].states).toEqual({ de: "missing" });
    // nothing is delivered for a discarded translation
    expect((await allResults(c)).filter((r) => r.key === "title")).toEqual([]);
    expect((await c.post("/v1/jobs", { estimate_only: true })).body.estimated_segments).toBe(1);
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/attention/r_1`, { action: "fix" })).status).toBe(422);
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/attention/r_1`, { action: "discard" })).status).toBe(404);
  });

  it("force retranslates held-back segments", async () => {
    const { site, c } = await translate("separate", []);
    const forced = await job(c, site.siteId, { force: true });
    expect(forced).toMatchObject({ estimated_segments: 2, qa_failed_segments: 1 });
    const items = (await c.get("/v1/attention")).body.items;
    expect(items).toHaveLength(1);
    expect(items[0].job_id).toBe(forced.id);
  });
});

describe("warnings and glossary", () => {
  it("warnings are always delivered in qa, the glossary is checked", async () => {
    const site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
    await admin("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [{ source: "world", language: "de", target: "Welt" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello world" }]));
    await job(c, site.siteId);
    const [r] = await allResults(c);
    expect(r.qa).toEqual([{ code: "glossary", severity: "warning", message: expect.stringMatching(/Welt/) }]);
  });
});

import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { allResults, job, runJob } from "../helpers/jobs";
import { runnerDeps, stubOf } from "../helpers/site";

type Client = ReturnType<typeof client>;

async function setup(opts: Parameters<typeof createSite>[0] = {}) {
  const site = await createSite(opts);
  return { site, c: client(site.key) };
}

async function states(c: Client, key: string) {
  const res = await c.get(`/v1/units/${key}/status`);
  return Object.fromEntries(res.body.segments.map((s: any) => [s.key, s.states]));
}

const byKey = (results: any[], key: string, language: string) => results.filter((r) => r.key === key && r.language === language);

describe("POST /v1/jobs", () => {
  it("estimate_only answers 200 JobEstimateOut and creates nothing", async () => {
    const { c } = await setup();
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "Hello" },
        { key: "b", text: "Hello" },
        { key: "c", text: "World!" },
      ]),
    );
    const res = await c.post("/v1/jobs", { estimate_only: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      languages: ["de", "fr"],
      estimated_segments: 6,
      // per language: "Hello" once (the repeat is free) + "World!"
      estimated_characters: 2 * (5 + 6),
      estimated_tm_segments: 0,
      cost: expect.objectContaining({ characters: 22, currency: "usd", requires_confirmation: false }),
    });
    expect((await c.get("/v1/jobs")).body).toEqual([]);
  });

  it("filters languages to writable targets and answers 422 when none remain", async () => {
    const { c } = await setup({ target_languages: [{ code: "de" }, { code: "fr" }, { code: "es", writable: false }], handshake: { languages: ["de", "fr", "es"] } });
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    const est = await c.post("/v1/jobs", { estimate_only: true, languages: ["FR", "es", "it"] });
    expect(est.body.languages).toEqual(["fr"]);
    const none = await c.post("/v1/jobs", { languages: ["es", "it"] });
    expect(none.status).toBe(422);
    expect(none.body.detail).toMatch(/^languages: none of es, it is a writable target language/);
    const noHandshake = await setup({ handshake: false });
    const res = await noHandshake.c.post("/v1/jobs", {});
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/no writable target language/);
  });

  it("validates JobIn", async () => {
    const { c } = await setup();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: "translate" }, /^units is required/],
      [{ type: "delta", prefix: "Post:" }, /^prefix must match the pattern/],
      [{ prefix: `${"p".repeat(250)}:${"x".repeat(10)}` }, /^prefix must have at most 255 characters/],
      [{ type: "translate", units: Array(1001).fill("a:1") }, /^units must have at most 1000 items/],
      [{ type: "translate", units: ["bad key"] }, /^units\[0\] must match the pattern/],
      [{ type: "translate", units: ["a:1"], prefix: "post:" }, /^prefix is only allowed for delta jobs/],
      [{ type: "full" }, /^type must be one of "delta", "translate"/],
      [{ force: "yes" }, /^force must be of type boolean/],
    ];
    for (const [body, detail] of cases) {
      const res = await c.post("/v1/jobs", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail, JSON.stringify(body)).toMatch(detail);
    }
  });

  it("a delta job translates missing and stale segments, narrowed by prefix; translate jobs by units (unknown keys refused: test/api/jobs-units.test.ts)", async () => {
    const { site, c } = await setup();
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    await c.put("/v1/units", unit("page:1", [{ key: "a", text: "Two" }]));
    await c.put("/v1/units", unit("page:2", [{ key: "a", text: "Three" }]));
    const posts = await job(c, site.siteId, { prefix: "post:" });
    expect(posts).toMatchObject({ status: "succeeded", prefix: "post:", estimated_segments: 2, done_segments: 2 });
    expect(await states(c, "page:1")).toEqual({ a: { de: "missing", fr: "missing" } });
    const translate = await job(c, site.siteId, { type: "translate", units: ["page:1"], languages: ["de"] });
    expect(translate).toMatchObject({ status: "succeeded", units: ["page:1"], languages: ["de"], done_segments: 1 });
    expect(await states(c, "page:1")).toEqual({ a: { de: "review", fr: "missing" } });
    expect(await states(c, "page:2")).toEqual({ a: { de: "missing", fr: "missing" } });
  });

  it("lists jobs (20 most recent; active) and answers 404 for unknown ids", async () => {
    const { site, c } = await setup();
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    const ids: number[] = [];
    for (let i = 0; i < 22; i++) ids.push((await c.post("/v1/jobs", {})).body.id);
    const active = await c.get("/v1/jobs?active=true");
    expect(active.body.map((j: any) => j.id)).toEqual(ids);
    const recent = await c.get("/v1/jobs");
    expect(recent.body.map((j: any) => j.id)).toEqual(ids.slice(2).reverse());
    await runJob(c, site.siteId, ids[21]);
    expect((await c.get("/v1/jobs?active=true")).body).toEqual([]);
    expect((await c.get("/v1/jobs/999")).status).toBe(404);
    expect((await c.post("/v1/jobs/999/cancel")).status).toBe(404);
    expect((await c.get("/v1/jobs/abc")).status).toBe(422);
  });
});

describe("runner", () => {
  it("runs two jobs in request order; the second finds only what is left", async () => {
    const { site, c } = await setup();
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Two" },
      ]),
    );
    const first = (await c.post("/v1/jobs", {})).body;
    const second = (await c.post("/v1/jobs", {})).body;
    expect([first.status, second.status]).toEqual(["queued", "queued"]);
    const done2 = await runJob(c, site.siteId, second.id);
    const done1 = (await c.get(`/v1/jobs/${first.id}`)).body;
    expect(done1).toMatchObject({ status: "succeeded", done_segments: 4 });
    expect(done2).toMatchObject({ status: "succeeded", estimated_segments: 0, done_segments: 0 });
    expect(Date.parse(done1.finished_at)).toBeLessThanOrEqual(Date.parse(done2.started_at));
  });

  it("cancel from queued or running keeps what was translated", async () => {
    const { site, c } = await setup();
    await c.put(
      "/v1/units",
      unit(
        "post:1",
        Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, text: `Text ${i}` })),
      ),
    );
    const queued = (await c.post("/v1/jobs", {})).body;
    const cancelled = await c.post(`/v1/jobs/${queued.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: "cancelled", finished_at: expect.any(String) });
    expect((await c.post(`/v1/jobs/${queued.id}/cancel`)).body.status).toBe("cancelled");

    const running = (await c.post("/v1/jobs", {})).body;
    const stub = stubOf(site.siteId);
    await runInDurableObject(stub, async (o: SiteObject) => {
      await runJobs(runnerDeps(o), 0);
    });
    const mid = (await c.get(`/v1/jobs/${running.id}`)).body;
    expect(mid).toMatchObject({ status: "running", done_segments: 250 });
    expect((await c.post(`/v1/jobs/${running.id}/cancel`)).body).toMatchObject({ status: "cancelled", done_segments: 250 });
    await runDurableObjectAlarm(stub);
    expect((await c.get(`/v1/jobs/${running.id}`)).body).toMatchObject({ status: "cancelled", done_segments: 250 });
    expect((await allResults(c)).length).toBe(250);
    expect((await c.get("/v1/status")).body.languages[0]).toMatchObject({ code: "de", review: 250, missing: 50 });
  });

  it("resumes after the object is evicted mid-job: every segment translated once, exact counters", async () => {
    const { site, c } = await setup();
    const segments = Array.from({ length: 600 }, (_, i) => ({ key: `k${i}`, text: `Text ${i % 500}` }));
    await c.put("/v1/units", unit("post:1", segments));
    const created = (await c.post("/v1/jobs", {})).body;
    expect(created.estimated_characters).toBe(2 * Array.from({ length: 500 }, (_, i) => `Text ${i}`.length).reduce((a, b) => a + b));
    const stub = stubOf(site.siteId);
    await runInDurableObject(stub, async (o: SiteObject) => {
      await runJobs(runnerDeps(o), 0);
    });
    await evictDurableObject(stub);
    const done = await runJob(c, site.siteId, created.id);
    expect(done).toMatchObject({
      status: "succeeded",
      estimated_segments: 1200,
      done_segments: 1200,
      failed_segments: 0,
      characters: created.estimated_characters,
      reused_segments: 200,
    });
    const results = await allResults(c);
    expect(results).toHaveLength(1200);
    expect(new Set(results.map((r) => `${r.key}/${r.language}`)).size).toBe(1200);
  });

  it("D1 failing after a slice's engine call: the slice stays stored, its ledger row waits in the object, nothing is translated or billed twice", async () => {
    const { site, c } = await setup();
    await c.put(
      "/v1/units",
      unit(
        "post:1",
        Array.from({ length: 400 }, (_, i) => ({ key: `k${i}`, text: `Text ${i}` })),
      ),
    );
    const created = (await c.post("/v1/jobs", { languages: ["de"] })).body;
    const stub = stubOf(site.siteId);
    let calls = 0;
    const flaky = fakeEngine({ limits: { maxSegments: 1000, maxCharacters: 1e9 }, translation: (text) => `T:${text}` });
    await runInDurableObject(stub, async (o: SiteObject) => {
      const deps = runnerDeps(o, { engineFor: () => flaky });
      const realDb = deps.env.DB;
      // D1 goes down after the job's start (its subscription checked, its characters reserved, the glossary read): the writes of the ledger row fail
      deps.env = {
        ...deps.env,
        DB: new Proxy(realDb, {
          get: (t, p) =>
            p === "prepare" && ++calls > 4 && calls < 7
              ? () => {
                  throw new Error("D1 down");
                }
              : ((t as any)[p]?.bind?.(t) ?? (t as any)[p]),
        }),
      };
      await expect(runJobs(deps, 60_000)).rejects.toThrow(/metering a job's progress: D1 down/);
      // The slice is stored with its ledger row, which waits in the object for D1.
      expect(o.store.all("SELECT job_id, n, characters FROM ledger_outbox")).toEqual([{ job_id: created.id, n: 1, characters: created.estimated_characters }]);
    });
    expect(calls).toBe(6);
    const mid = (await c.get(`/v1/jobs/${created.id}`)).body;
    // Still running: a job is settled, and finished, only once its ledger rows are in D1.
    expect(mid).toMatchObject({ status: "running", done_segments: 400, characters: created.estimated_characters });
    const billed = () => env.DB.prepare("SELECT sum(characters) AS n FROM usage_ledger WHERE site_id = ?").bind(site.siteId).first<{ n: number | null }>();
    expect((await billed())!.n).toBeNull();
    const done = await runJob(c, site.siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 400, characters: created.estimated_characters });
    expect(flaky.requests).toHaveLength(1);
    expect(await allResults(c)).toHaveLength(400);
    expect((await billed())!.n).toBe(created.estimated_characters);
    expect(await runInDurableObject(stub, async (o: SiteObject) => o.store.all("SELECT * FROM ledger_outbox"))).toEqual([]);
  });

  it("reports per-language engine problems in errors; those segments stay missing", async () => {
    const { site, c } = await setup({ target_languages: [{ code: "de" }, { code: "fr", engine: "deepl" }] });
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Two" },
      ]),
    );
    const done = await job(c, site.siteId);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 2, failed_segments: 2 });
    expect(done.errors).toEqual([{ language: "fr", message: expect.stringMatching(/DEEPL_API_KEY/), segments: 2 }]);
    expect(await states(c, "post:1")).toEqual({ a: { de: "review", fr: "missing" }, b: { de: "review", fr: "missing" } });
  });
});

describe("results, acknowledgements and reviews", () => {
  it("lists current unacknowledged results again until acknowledged; ack is idempotent", async () => {
    const { site, c } = await setup();
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Two" },
      ]),
    );
    await job(c, site.siteId);
    const first = await allResults(c);
    expect(first).toHaveLength(4);
    expect(first[0]).toEqual({
      id: expect.stringMatching(/^r_\d+$/),
      unit: "post:1",
      key: expect.any(String),
      language: expect.any(String),
      text: expect.any(String),
      format: "plain",
      source_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      origin: "mt",
      engine: "pseudo",
      job_id: expect.any(Number),
      qa: [],
    });
    expect(await allResults(c)).toEqual(first);
    const ids = first.slice(0, 3).map((r) => r.id);
    expect((await c.post("/v1/results/ack", { ids: [...ids, "r_999", "bogus"] })).body).toEqual({ acknowledged: 3 });
    expect((await c.post("/v1/results/ack", { ids })).body).toEqual({ acknowledged: 3 });
    expect((await allResults(c)).map((r) => r.id)).toEqual([first[3].id]);
    // acknowledged results count as in review
    expect((await c.get("/v1/status")).body.languages.map((l: any) => l.review)).toEqual([2, 2]);
    expect((await c.post("/v1/results/ack", { ids: Array(1001).fill("r_1") })).body.detail).toMatch(/^ids must have at most 1000 items/);
  });

  it("paginates with a keyset cursor and filters by unit", async () => {
    const { site, c } = await setup({ target_languages: [{ code: "de" }] });
    for (let u = 0; u < 3; u++)
      await c.put(
        "/v1/units",
        unit(
          `post:${u}`,
          Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, text: `U${u} text ${i}` })),
        ),
      );
    await job(c, site.siteId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await c.get(`/v1/results?limit=4${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.body.results.length).toBeLessThanOrEqual(4);
      seen.push(...res.body.results.map((r: any) => r.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(15);
    expect(new Set(seen).size).toBe(15);
    const one = await allResults(c, "&unit=post:1");
    expect(one.map((r) => r.unit)).toEqual(Array(5).fill("post:1"));
    expect((await c.get("/v1/results?unit=bad%20key")).status).toBe(422);
    expect((await c.get("/v1/results?cursor=%%%")).status).toBe(422);
  });

  it("a result whose source changed is not listed, and the next job translates the segment again", async () => {
    const { site, c } = await setup({ target_languages: [{ code: "de" }] });
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Two" },
      ]),
    );
    await job(c, site.siteId);
    const before = await allResults(c);
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "One!" },
        { key: "b", text: "Two" },
      ]),
    );
    expect((await allResults(c)).map((r) => r.key)).toEqual(["b"]);
    expect((await states(c, "post:1")).a).toEqual({ de: "stale" });
    await job(c, site.siteId);
    const after = await allResults(c);
    const a = byKey(after, "a", "de");
    expect(a).toHaveLength(1);
    expect(a[0].id).not.toBe(byKey(before, "a", "de")[0].id);
    // the earlier result is superseded: a review of it is ignored
    const review = await c.post("/v1/reviews", { reviews: [{ id: byKey(before, "a", "de")[0].id, outcome: "approved" }] });
    expect(review.body).toEqual({ updated: 0, ignored: [byKey(before, "a", "de")[0].id] });
  });

  it("reverting a source makes the old translation current again and it is not retranslated", async () => {
    const { site, c } = await setup({ target_languages: [{ code: "de" }] });
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    await job(c, site.siteId);
    const [r] = await allResults(c);
    await c.post("/v1/reviews", { reviews: [{ id: r.id, outcome: "approved" }] });
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Uno" }]));
    expect((await states(c, "post:1")).a).toEqual({ de: "stale" });
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    expect((await states(c, "post:1")).a).toEqual({ de: "ok" });
    const next = await job(c, site.siteId);
    expect(next).toMatchObject({ estimated_segments: 0, done_segments: 0 });
  });

  it("reviews: approved with text (human, memory), approved as is, rejected (missing, retranslated by the next delta job)", async () => {
    const { site, c } = await setup({ target_languages: [{ code: "de" }] });
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Two" },
        { key: "c", text: "Three" },
      ]),
    );
    await job(c, site.siteId);
    const rs = await allResults(c);
    const [ra, rb, rc] = ["a", "b", "c"].map((k) => byKey(rs, k, "de")[0]);
    await c.post("/v1/results/ack", { ids: [ra.id] });
    const res = await c.post("/v1/reviews", {
      reviews: [
        { id: ra.id, outcome: "approved", text: "Eins", reviewer: "editor" },
        { id: rb.id, outcome: "approved" },
        { id: rc.id, outcome: "rejected" },
        { id: "r_12345", outcome: "approved" },
        { id: ra.id, outcome: "rejected" },
      ],
    });
    expect(res.body).toEqual({ updated: 3, ignored: ["r_12345", ra.id] });
    expect(await states(c, "post:1")).toEqual({ a: { de: "ok" }, b: { de: "ok" }, c: { de: "missing" } });
    // reviewed results are no longer listed; repeating the reviews changes nothing
    expect(await allResults(c)).toEqual([]);
    expect((await c.post("/v1/reviews", { reviews: [{ id: rb.id, outcome: "rejected" }] })).body).toEqual({ updated: 0, ignored: [rb.id] });
    const next = await job(c, site.siteId);
    expect(next).toMatchObject({ estimated_segments: 1, done_segments: 1 });
    expect((await allResults(c)).map((r) => r.key)).toEqual(["c"]);

    // the approved texts are in the memory: the same source elsewhere is a memory hit, not billed
    await c.put(
      "/v1/units",
      unit("post:2", [
        { key: "x", text: "One" },
        { key: "y", text: "Two" },
        { key: "z", text: "Four" },
      ]),
    );
    const est = await c.post("/v1/jobs", { estimate_only: true });
    expect(est.body).toMatchObject({ estimated_segments: 3, estimated_tm_segments: 2, estimated_characters: 4 });
    const tm = await job(c, site.siteId);
    expect(tm).toMatchObject({ done_segments: 3, tm_segments: 2, tm_characters: 6, characters: 4 });
    const hits = (await allResults(c, "&unit=post:2")).filter((r) => r.origin === "tm_exact");
    expect(hits.map((r) => [r.key, r.text, r.engine])).toEqual([
      ["x", "Eins", "memory"],
      ["y", rb.text, "memory"],
    ]);
    expect((await c.post("/v1/reviews", { reviews: Array(501).fill({ id: "r_1", outcome: "approved" }) })).body.detail).toMatch(/^reviews must have at most 500 items/);
    expect((await c.post("/v1/reviews", { reviews: [{ id: "r_1", outcome: "maybe" }] })).body.detail).toMatch(/^reviews\[0\]\.outcome must be one of/);
  });

  it("unreviewed machine output never enters the memory; imports do", async () => {
    const { site, c } = await setup({ target_languages: [{ code: "de" }] });
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "One" },
        { key: "b", text: "Imported", translations: { de: "Importiert" } },
      ]),
    );
    await job(c, site.siteId);
    await c.put(
      "/v1/units",
      unit("post:2", [
        { key: "a", text: "One" },
        { key: "b", text: "Imported" },
      ]),
    );
    const est = await c.post("/v1/jobs", { estimate_only: true });
    expect(est.body).toMatchObject({ estimated_segments: 2, estimated_tm_segments: 1 });
  });

  it("force retranslates the whole scope with new ids and supersedes the earlier ones", async () => {
    const { site, c } = await setup({ target_languages: [{ code: "de" }] });
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "One", translations: { de: "Eins" } },
        { key: "b", text: "Two" },
        { key: "c", text: "Three" },
      ]),
    );
    await job(c, site.siteId);
    const first = await allResults(c);
    await c.post("/v1/reviews", { reviews: [{ id: byKey(first, "b", "de")[0].id, outcome: "approved" }] });
    await c.post("/v1/results/ack", { ids: [byKey(first, "c", "de")[0].id] });
    const forced = await job(c, site.siteId, { force: true });
    expect(forced).toMatchObject({ force: true, estimated_segments: 3, done_segments: 3, tm_segments: 0 });
    const after = await allResults(c);
    expect(after.map((r) => r.key).sort()).toEqual(["a", "b", "c"]);
    for (const r of after) expect(first.map((x) => x.id)).not.toContain(r.id);
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" }, b: { de: "review" }, c: { de: "review" } });
    const oldC = byKey(first, "c", "de")[0].id;
    expect((await c.post("/v1/reviews", { reviews: [{ id: oldC, outcome: "approved" }] })).body.ignored).toEqual([oldC]);
    expect((await c.post("/v1/results/ack", { ids: [oldC] })).body.acknowledged).toBe(0);
  });

  it("ack and reviews ignore another site's ids", async () => {
    const a = await setup({ target_languages: [{ code: "de" }] });
    const b = await setup({ target_languages: [{ code: "de" }] });
    await a.c.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    await b.c.put("/v1/units", unit("post:1", [{ key: "a", text: "One" }]));
    await job(a.c, a.site.siteId);
    await job(b.c, b.site.siteId);
    const [ra] = await allResults(a.c);
    const [rb] = await allResults(b.c);
    expect(ra.id).not.toBe(rb.id);
    expect((await b.c.post("/v1/results/ack", { ids: [ra.id] })).body.acknowledged).toBe(0);
    expect((await b.c.post("/v1/reviews", { reviews: [{ id: ra.id, outcome: "rejected" }] })).body).toEqual({ updated: 0, ignored: [ra.id] });
    expect(await allResults(a.c)).toHaveLength(1);
    expect(await allResults(b.c)).toHaveLength(1);
    expect((await states(a.c, "post:1")).a).toEqual({ de: "review" });
  });

  it("whole_unit delivers a unit's results in one language only once complete, and never splits a group across pages", async () => {
    const { site, c } = await setup({ target_languages: [{ code: "de" }, { code: "fr" }], handshake: { capabilities: ["whole_unit"] } });
    await c.put(
      "/v1/units",
      unit(
        "post:1",
        Array.from({ length: 3 }, (_, i) => ({ key: `k${i}`, text: `One ${i}` })),
      ),
    );
    await c.put(
      "/v1/units",
      unit(
        "post:2",
        Array.from({ length: 4 }, (_, i) => ({ key: `k${i}`, text: `Two ${i}` })),
      ),
    );
    await job(c, site.siteId, { languages: ["de"] });
    // post:1/de and post:2/de complete; fr untranslated
    const seen: any[][] = [];
    let cursor: string | null = null;
    do {
      const res: any = await c.get(`/v1/results?limit=5${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(res.body.results);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen.map((p) => p.map((r: any) => `${r.unit}/${r.language}`))).toEqual([Array(3).fill("post:1/de"), Array(4).fill("post:2/de")]);

    // a group larger than a page is delivered whole
    const big = await c.get("/v1/results?limit=2");
    expect(big.body.results).toHaveLength(3);
    // an incomplete group is held back until complete
    await c.put("/v1/units", unit("post:2", [...Array.from({ length: 4 }, (_, i) => ({ key: `k${i}`, text: `Two ${i}` })), { key: "new", text: "New" }]));
    expect((await allResults(c)).map((r) => r.unit)).toEqual(Array(3).fill("post:1"));
    await job(c, site.siteId, { languages: ["de"] });
    expect((await allResults(c, "&unit=post:2")).length).toBe(5);
  });
});

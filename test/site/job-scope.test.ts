// A job's scope is the work that existed when it was created (docs/decisions.md "Jobs"; src/site/change-seq.ts):
// work that arises after (a segment added, back from removed or longer, a unit restored or its writable languages
// changed, a translation made stale or rejected) is left to the next job, a pair that was work then and still is
// when the job reaches it is translated as its text is now, and the job bills at most its estimate
// (src/site/jobs/budget.ts). So a confirmed job never fails because the site changed, and its cost only shrinks.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { JobIn, UnitSnapshotIn } from "../../src/api/schemas";
import type { SiteSettings } from "../../src/control/sites.control";
import { fingerprint } from "../../src/site/fingerprint";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { flakyDb, ledger } from "../helpers/faults";
import { allResults, runJob } from "../helpers/jobs";
import { inObject, stubOf } from "../helpers/site";

type Client = ReturnType<typeof client>;
type Segment = { key: string; text: string };

async function site(languages = ["de"]) {
  const s = await createSite({ target_languages: languages.map((code) => ({ code })) });
  return { ...s, c: client(s.key) };
}

async function push(c: Client, key: string, segments: Segment[], extra: Record<string, unknown> = {}) {
  const res = await c.put("/v1/units", unit(key, segments, extra));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function create(c: Client, body: Record<string, unknown> = {}) {
  const res = await c.post("/v1/jobs", { confirm: true, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body;
}

/** Each segment's state per language: key → { language: state }. */
async function states(c: Client, key: string): Promise<Record<string, Record<string, string>>> {
  const res = await c.get(`/v1/units/${key}/status`);
  expect(res.status).toBe(200);
  return Object.fromEntries(res.body.segments.map((s: any) => [s.key, s.states]));
}

/** Every result the site's jobs stored, as `unit/key/language` → how many (a pair translated twice shows 2). */
const resultsPerPair = (siteId: number) =>
  runInDurableObject(stubOf(siteId), (o: SiteObject) =>
    Object.fromEntries(
      o.store
        .all<{ pair: string; n: number }>(
          `SELECT u.external_key || '/' || s.key || '/' || r.language AS pair, count(*) AS n
           FROM results r JOIN segments s ON s.id = r.segment_id JOIN units u ON u.id = r.unit_id GROUP BY 1 ORDER BY 1`,
        )
        .map((r) => [r.pair, r.n]),
    ),
  );

/** Billing agrees with what is stored: the ledger holds what the jobs billed, and no reservation is left. */
async function expectBilled(siteId: number, jobs: any[]) {
  expect((await ledger(siteId)).sum).toBe(jobs.reduce((n, j) => n + j.characters, 0));
  const reserved = await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ?").bind(siteId).all();
  expect(reserved.results).toEqual([]);
  for (const j of jobs) expect(j.characters).toBeLessThanOrEqual(j.estimated_characters);
}

describe("a job's scope is the work that existed when it was created", () => {
  it("a segment added after it is the next job's; the job does not fail and bills its estimate", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [{ key: "a", text: "Hello world" }]);
    const created = await create(c);
    await push(c, "post:1", [
      { key: "a", text: "Hello world" },
      { key: "b", text: "A new paragraph" },
    ]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 1, estimated_segments: 1, characters: 11, estimated_characters: 11, errors: [] });
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" }, b: { de: "missing" } });
    const next = await runJob(c, siteId, (await create(c)).id);
    expect(next).toMatchObject({ status: "succeeded", done_segments: 1, characters: 15 });
    await expectBilled(siteId, [done, next]);
  });

  it("a segment missing at its creation whose text changes (no longer) is translated as it is now; the estimate shrinks", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [{ key: "a", text: "Hello world" }]);
    const created = await create(c);
    await push(c, "post:1", [{ key: "a", text: "Hello" }]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 1, characters: 5, estimated_characters: 5 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" } });
    await expectBilled(siteId, [done]);
  });

  it("a segment stale at its creation and changed again (no longer) is still its work: translated as it is now", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [{ key: "a", text: "First text" }]);
    const first = await runJob(c, siteId, (await create(c)).id);
    await push(c, "post:1", [{ key: "a", text: "Second text" }]);
    expect(await states(c, "post:1")).toEqual({ a: { de: "stale" } });
    const created = await create(c);
    expect(created).toMatchObject({ estimated_segments: 1, estimated_characters: 11 });
    await push(c, "post:1", [{ key: "a", text: "Third text" }]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 1, characters: 10, estimated_characters: 10 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" } });
    const [result] = await allResults(c);
    expect(result.source_fingerprint).toBe(fingerprint("Third text"));
    expect(await resultsPerPair(siteId)).toEqual({ "post:1/a/de": 2 });
    await expectBilled(siteId, [first, done]);
  });

  it("a text that got longer after its creation is the next job's, in every language: the job never bills more than it estimated", async () => {
    const { siteId, c } = await site(["de", "fr"]);
    await push(c, "post:1", [
      { key: "a", text: "Hello" },
      { key: "b", text: "World" },
    ]);
    const created = await create(c);
    expect(created).toMatchObject({ estimated_segments: 4, estimated_characters: 20 });
    await push(c, "post:1", [
      { key: "a", text: "Hello there, world" },
      { key: "b", text: "World" },
    ]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 2, estimated_segments: 2, characters: 10, estimated_characters: 10, errors: [] });
    expect(await states(c, "post:1")).toEqual({ a: { de: "missing", fr: "missing" }, b: { de: "review", fr: "review" } });
    const next = await runJob(c, siteId, (await create(c)).id);
    expect(next).toMatchObject({ done_segments: 2, characters: 36 });
    await expectBilled(siteId, [done, next]);
  });

  it("a segment stale at its creation and reverted since needs no work: skipped, nothing billed", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [{ key: "a", text: "Hello" }]);
    const first = await runJob(c, siteId, (await create(c)).id);
    await push(c, "post:1", [{ key: "a", text: "Goodbye" }]);
    const created = await create(c);
    await push(c, "post:1", [{ key: "a", text: "Hello" }]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 0, estimated_segments: 0, characters: 0, estimated_characters: 0 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" } });
    expect(await resultsPerPair(siteId)).toEqual({ "post:1/a/de": 1 });
    await expectBilled(siteId, [first, done]);
  });

  it("a translation made stale after its creation is the next job's, also one reverted and changed again", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [
      { key: "a", text: "Alpha" },
      { key: "b", text: "Beta" },
    ]);
    const first = await runJob(c, siteId, (await create(c)).id);
    // b stale when the job is created; a current (in review).
    await push(c, "post:1", [
      { key: "a", text: "Alpha" },
      { key: "b", text: "Beta two" },
    ]);
    const created = await create(c);
    expect(created).toMatchObject({ estimated_segments: 1 });
    // a turns stale (new work); b is reverted (current again), then changed again (new work). No text gets longer.
    await push(c, "post:1", [
      { key: "a", text: "Omega" },
      { key: "b", text: "Beta" },
    ]);
    await push(c, "post:1", [
      { key: "a", text: "Omega" },
      { key: "b", text: "Beto" },
    ]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 0, estimated_segments: 0, characters: 0 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "stale" }, b: { de: "stale" } });
    const next = await runJob(c, siteId, (await create(c)).id);
    expect(next).toMatchObject({ done_segments: 2, characters: 9 });
    await expectBilled(siteId, [first, done, next]);
  });

  it("a result rejected after its creation is the next job's", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [{ key: "a", text: "Alpha" }]);
    const first = await runJob(c, siteId, (await create(c)).id);
    await push(c, "post:1", [
      { key: "a", text: "Alpha" },
      { key: "b", text: "Beta" },
    ]);
    const created = await create(c);
    const [result] = await allResults(c);
    const reviewed = await c.post("/v1/reviews", { reviews: [{ id: result.id, outcome: "rejected", reviewer: "editor" }] });
    expect(reviewed.body).toEqual({ updated: 1, ignored: [] });
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", estimated_segments: 1, done_segments: 1, characters: 4 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "missing" }, b: { de: "review" } });
    const next = await runJob(c, siteId, (await create(c)).id);
    expect(next).toMatchObject({ done_segments: 1, characters: 5 });
    await expectBilled(siteId, [first, done, next]);
  });

  it("a forced job covers what was live at its creation: a segment added after is not covered, one changed (no longer) is translated as it is now", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [
      { key: "a", text: "Alpha text" },
      { key: "b", text: "Beta" },
    ]);
    const first = await runJob(c, siteId, (await create(c)).id);
    const created = await create(c, { force: true });
    expect(created).toMatchObject({ estimated_segments: 2, estimated_characters: 14 });
    await push(c, "post:1", [
      { key: "a", text: "Alpha" },
      { key: "b", text: "Beta" },
      { key: "c", text: "Gamma" },
    ]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 2, characters: 9, estimated_characters: 9 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" }, b: { de: "review" }, c: { de: "missing" } });
    expect(await resultsPerPair(siteId)).toEqual({ "post:1/a/de": 2, "post:1/b/de": 2 });
    await expectBilled(siteId, [first, done]);
  });

  it("a translate job: a unit deleted after its creation is skipped; one deleted and restored is the next job's", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [{ key: "a", text: "Alpha" }]);
    await push(c, "post:2", [{ key: "a", text: "Beta" }]);
    const created = await create(c, { type: "translate", units: ["post:1", "post:2"] });
    expect(created).toMatchObject({ estimated_segments: 2 });
    expect((await c.del("/v1/units/post:1")).status).toBe(204);
    expect((await c.del("/v1/units/post:2")).status).toBe(204);
    await push(c, "post:2", [{ key: "a", text: "Beta" }]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 0, characters: 0 });
    expect(await states(c, "post:2")).toEqual({ a: { de: "missing" } });
    const next = await runJob(c, siteId, (await create(c, { type: "translate", units: ["post:2"] })).id);
    expect(next).toMatchObject({ done_segments: 1, characters: 4 });
    await expectBilled(siteId, [done, next]);
  });

  it("a delta job with a prefix: a unit pushed under the prefix after its creation is the next job's", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [{ key: "a", text: "Alpha" }]);
    const created = await create(c, { prefix: "post:" });
    await push(c, "post:2", [{ key: "a", text: "Beta" }]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 1, characters: 5 });
    expect(await states(c, "post:2")).toEqual({ a: { de: "missing" } });
    await expectBilled(siteId, [done]);
  });

  it("a unit whose writable languages changed, or a segment removed and restored, after its creation is the next job's", async () => {
    const { siteId, c } = await site(["de", "fr"]);
    await push(c, "post:1", [{ key: "a", text: "Alpha" }], { writable_languages: ["de"] });
    await push(c, "post:2", [
      { key: "a", text: "Beta" },
      { key: "b", text: "Gamma" },
    ]);
    const created = await create(c);
    expect(created).toMatchObject({ estimated_segments: 5 });
    await push(c, "post:1", [{ key: "a", text: "Alpha" }]);
    await push(c, "post:2", [{ key: "a", text: "Beta" }]);
    await push(c, "post:2", [
      { key: "a", text: "Beta" },
      { key: "b", text: "Gamma" },
    ]);
    // The start fixes only the job's work as its items (each is checked again when loaded, too).
    await inObject(siteId, (deps) => runJobs(deps, { budgetMs: 60_000, maxSlices: 0 }));
    expect(await runInDurableObject(stubOf(siteId), (o: SiteObject) => o.store.all("SELECT language FROM job_items ORDER BY language"))).toEqual([
      { language: "de" },
      { language: "fr" },
    ]);
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 2, characters: 8 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "missing", fr: "missing" } });
    expect(await states(c, "post:2")).toEqual({ a: { de: "review", fr: "review" }, b: { de: "missing", fr: "missing" } });
    await expectBilled(siteId, [done]);
  });
});

describe("the estimate and the creation are two calls into the site object", () => {
  it("a push between them is the next job's: the job keeps the watermark its estimate was taken at, which the API does not show", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [{ key: "a", text: "Alpha" }]);
    const estimateOnly = await c.post("/v1/jobs", { estimate_only: true });
    expect(estimateOnly.status).toBe(200);
    expect(estimateOnly.body).not.toHaveProperty("watermark");
    const stub = stubOf(siteId);
    const settings = await runInDurableObject(stub, (o: SiteObject) => o.store.getMeta<SiteSettings>("settings")!);
    const request = JobIn.parse({ confirm: true });
    const estimate = await stub.estimateJob(settings, request);
    expect(estimate).toMatchObject({ estimated_segments: 1, estimated_characters: 5, watermark: expect.any(Number) });
    await push(c, "post:1", [
      { key: "a", text: "Alpha" },
      { key: "b", text: "Beta" },
    ]);
    const created = await stub.createJob(settings, request, { estimate, confirmedCharacters: estimate.estimated_characters });
    expect(created).not.toHaveProperty("watermark");
    const done = await runJob(c, siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", estimated_segments: 1, done_segments: 1, characters: 5 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" }, b: { de: "missing" } });
    await expectBilled(siteId, [done]);
  });
});

describe("a change after the job's items are fixed", () => {
  it("is checked again when each item is loaded: a text made longer is the next job's, one made shorter is translated as it is now", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [
      { key: "a", text: "Alpha" },
      { key: "b", text: "Beta" },
      { key: "c", text: "Gamma" },
    ]);
    const created = await create(c);
    const pushed: string[] = [];
    await inObject(siteId, async (deps, o) => {
      const settings = o.store.getMeta<SiteSettings>("settings")!;
      await runJobs(
        {
          ...deps,
          nextTurn: async (at) => {
            // Once the scope is fixed, before any item is loaded.
            if (at !== "scope" || pushed.length) return;
            const items = o.store.one<{ n: number }>("SELECT count(*) AS n FROM job_items WHERE job_id = ?", created.id)!.n;
            pushed.push(`fixed ${items}`);
            // Within the job's estimate (14) whichever way: a is 2 longer, c 4 shorter.
            const snapshot = UnitSnapshotIn.parse(
              unit("post:1", [
                { key: "a", text: "Alphaaa" },
                { key: "b", text: "Beta" },
                { key: "c", text: "G" },
                { key: "d", text: "Delta" },
              ]),
            );
            await o.pushUnit(settings, snapshot);
          },
        },
        { budgetMs: 60_000, stepWork: 1 },
      );
    });
    expect(pushed).toEqual(["fixed 3"]);
    const done = (await c.get(`/v1/jobs/${created.id}`)).body;
    expect(done).toMatchObject({ status: "succeeded", estimated_segments: 3, estimated_characters: 14, done_segments: 2, characters: 5 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "missing" }, b: { de: "review" }, c: { de: "review" }, d: { de: "missing" } });
    await expectBilled(siteId, [done]);
  });
});

describe("the most a job bills is its estimate", () => {
  it("a text that no longer repeats (changed, no longer) would bill more: it is left to the next job, and the job bills its estimate", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [
      { key: "a", text: "Hello" },
      { key: "b", text: "Hello" },
    ]);
    const created = await create(c);
    expect(created).toMatchObject({ estimated_segments: 2, estimated_characters: 5 });
    await push(c, "post:1", [
      { key: "a", text: "Hello" },
      { key: "b", text: "Bye." },
    ]);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    const done = await runJob(c, siteId, created.id);
    vi.restoreAllMocks();
    // The start counts 9 (5 + 4) and keeps 5: "Hello" fits, "Bye." does not.
    expect(done).toMatchObject({ status: "succeeded", estimated_segments: 2, estimated_characters: 5, done_segments: 1, characters: 5, errors: [] });
    // Operators see it (docs/ops/observability.md), with ids and figures, never a text.
    const reached = lines
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l))
      .filter((l) => l.event === "job.budget_reached");
    expect(reached).toEqual([expect.objectContaining({ level: "info", site_id: siteId, job_id: created.id, language: "de", count: 1, characters: 4 })]);
    expect(JSON.stringify(reached)).not.toContain("Bye.");
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" }, b: { de: "missing" } });
    const next = await runJob(c, siteId, (await create(c)).id);
    expect(next).toMatchObject({ done_segments: 1, characters: 4 });
    await expectBilled(siteId, [done, next]);
  });

  it("across invocations, and an alarm that runs again after the start's reservation failed: what is left is its estimate less what its commits billed", async () => {
    const { siteId, c } = await site();
    await push(c, "post:1", [
      { key: "a", text: "Alpha text" },
      { key: "b", text: "Alpha text" },
      { key: "c", text: "Gamma text" },
    ]);
    const created = await create(c);
    expect(created).toMatchObject({ estimated_characters: 20 });
    // b no longer repeats a: the job's texts would now bill 30.
    await push(c, "post:1", [
      { key: "a", text: "Alpha text" },
      { key: "b", text: "Beta text!" },
      { key: "c", text: "Gamma text" },
    ]);
    const engine = fakeEngine();
    // The start's reservation write fails: the job is running, the alarm backs off and runs again.
    const refusing = flakyDb(env.DB, { down: (sql) => /^insert into "reservations"/i.test(sql) });
    expect(await inObject(siteId, (deps) => runJobs(deps, { budgetMs: 60_000, maxSlices: 0 }), { engineFor: () => engine, env: { DB: refusing } }).catch((e) => String(e))).toMatch(
      /reserving a job's characters/,
    );
    expect((await c.get(`/v1/jobs/${created.id}`)).body).toMatchObject({ status: "running", estimated_characters: 20 });
    // One slice of one item per invocation.
    for (let i = 0; i < 10; i++) if (!(await inObject(siteId, (deps) => runJobs(deps, { budgetMs: 60_000, maxSlices: 1, sliceItems: 1 }), { engineFor: () => engine }))) break;
    const done = (await c.get(`/v1/jobs/${created.id}`)).body;
    expect(done).toMatchObject({ status: "succeeded", done_segments: 2, characters: 20, estimated_characters: 20 });
    expect(await states(c, "post:1")).toEqual({ a: { de: "review" }, b: { de: "review" }, c: { de: "missing" } });
    expect(engine.texts).toHaveLength(2);
    await expectBilled(siteId, [done]);
  });
});

describe("a job created while another runs", () => {
  it("covers the work that existed when it was created: nothing is translated twice, nothing is lost", async () => {
    const { siteId, c } = await site(["de", "fr"]);
    const page = (n: number, changed: Record<string, string> = {}) =>
      Array.from({ length: n }, (_, i) => ({ key: `k${i}`, text: changed[`k${i}`] ?? `Paragraph number ${i} of the page` }));
    await push(c, "post:1", page(8));
    const first = await create(c);
    const engine = fakeEngine();
    // The first job translates a slice of 2 items per language, then its invocation ends.
    await inObject(siteId, (deps) => runJobs(deps, { budgetMs: 60_000, maxSlices: 2, sliceItems: 2 }), { engineFor: () => engine });
    expect((await c.get(`/v1/jobs/${first.id}`)).body).toMatchObject({ status: "running", done_segments: 4 });
    // k0 (done) and k7 (not yet) change, shorter; k8 is added. The second job's scope: k0 (stale), k2..k8 (missing) in both languages.
    await push(c, "post:1", [...page(8, { k0: "Changed 0", k7: "Changed 7" }), { key: "k8", text: "Added later" }]);
    const second = await create(c);
    expect(second).toMatchObject({ estimated_segments: 16 });
    for (let i = 0; i < 20; i++) if (!(await inObject(siteId, (deps) => runJobs(deps, { budgetMs: 60_000, sliceItems: 2 }), { engineFor: () => engine }))) break;
    const jobs = await Promise.all([first.id, second.id].map(async (id) => (await c.get(`/v1/jobs/${id}`)).body));
    // The first job: its 16 pairs, k7 with its new text, k0 done before the change; not k8. The second: k0 (stale) and k8.
    expect(jobs[0]).toMatchObject({ status: "succeeded", done_segments: 16 });
    expect(jobs[1]).toMatchObject({ status: "succeeded", done_segments: 4 });
    const pairs = await resultsPerPair(siteId);
    expect(Object.values(pairs).every((n) => n === 1 || n === 2)).toBe(true);
    // Translated twice only where the text changed after the first translation: k0 in each language.
    expect(
      Object.entries(pairs)
        .filter(([, n]) => n === 2)
        .map(([p]) => p),
    ).toEqual(["post:1/k0/de", "post:1/k0/fr"]);
    expect(Object.keys(pairs)).toHaveLength(18);
    const st = await states(c, "post:1");
    expect(Object.values(st).every((s) => s.de === "review" && s.fr === "review")).toBe(true);
    await expectBilled(siteId, jobs);
  });
});

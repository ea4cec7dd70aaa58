/**
 * The maintained counts (unit_counts, site_counts, prefix_counts and the units' own columns)
 * must always equal a recount from the segments and translations: a job's commits recount only
 * the languages they wrote, so a job over some languages of units in mixed states must leave
 * every row as rebuildCounts would make it.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { UnitSnapshotIn } from "../../src/api/schemas";
import type { SiteSettings } from "../../src/control/sites.control";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { job } from "../helpers/jobs";
import { recounted, runnerDeps, stubOf } from "../helpers/site";

/** The maintained counts as stored, then as a rebuild from scratch makes them. */
const countsAndRecount = (siteId: number) =>
  recounted(siteId, (o) => ({
    units: o.store.all("SELECT id, segment_count, needs_work, counted FROM units ORDER BY id"),
    unitCounts: o.store.all("SELECT * FROM unit_counts ORDER BY unit_id, language"),
    site: o.store.all("SELECT * FROM site_counts ORDER BY language"),
    // Every column: a row whose counts are all 0 is the same as no row (a recount leaves none).
    prefixes: o.store.all("SELECT * FROM prefix_counts WHERE total <> 0 OR ok <> 0 OR stale <> 0 OR review <> 0 OR attention <> 0 ORDER BY prefix, language"),
  }));

describe("maintained counts", () => {
  it("are compared column by column: a drift in review, stale or attention on a row whose total and ok are 0 is seen", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello there" }]));
    expect((await countsAndRecount(site.siteId)).maintained.prefixes.length).toBeGreaterThan(0);
    for (const column of ["review", "stale", "attention"]) {
      await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => {
        o.store.run("DELETE FROM prefix_counts WHERE prefix = 'drift:'");
        o.store.run(`INSERT INTO prefix_counts (prefix, language, total, ok, ${column}) VALUES ('drift:', 'de', 0, 0, 1)`);
      });
      const counts = await countsAndRecount(site.siteId);
      expect(counts.maintained, column).not.toEqual(counts.recount);
    }
  });

  it("equal a recount after jobs over some languages of units in mixed states", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }, { code: "it" }] });
    const c = client(site.key);
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "Hello there" },
        { key: "b", text: "Good morning" },
        { key: "c", text: "See you" },
      ]),
    );
    await c.put(
      "/v1/units",
      unit(
        "page:1",
        [
          { key: "a", text: "About us", translations: { fr: "À propos" } },
          { key: "b", text: "Contact" },
        ],
        { writable_languages: ["de", "fr"] },
      ),
    );
    await c.put("/v1/units", unit("post:2", [{ key: "a", text: "Hello there" }]));

    expect((await job(c, site.siteId, { languages: ["de"] })).status).toBe("succeeded");
    let counts = await countsAndRecount(site.siteId);
    expect(counts.maintained).toEqual(counts.recount);
    // de is in review everywhere now, fr and it untouched by the job.
    expect(counts.maintained.unitCounts.filter((r: any) => r.language === "de").every((r: any) => r.review === r.total)).toBe(true);

    // A changed source makes de stale in post:1/b; a job over de and it works both off.
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "a", text: "Hello there" },
        { key: "b", text: "Good evening" },
        { key: "c", text: "See you" },
      ]),
    );
    expect((await job(c, site.siteId, { languages: ["de", "it"] })).status).toBe("succeeded");
    counts = await countsAndRecount(site.siteId);
    expect(counts.maintained).toEqual(counts.recount);
    const post1 = counts.maintained.unitCounts.filter((r: any) => r.unit_key === "post:1");
    expect(post1.map((r: any) => [r.language, r.total, r.review, r.stale])).toEqual([
      ["de", 3, 3, 0],
      ["fr", 3, 0, 0],
      ["it", 3, 3, 0],
    ]);
    expect(counts.maintained.units.every((u: any) => u.needs_work === 1)).toBe(true);
  });

  it("equal a recount after a forced job and after sources change, segments go and units are deleted while the engine works", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
    const c = client(site.key);
    const post1 = [
      { key: "a", text: "One apple" },
      { key: "b", text: "Two pears", translations: { de: "Zwei Birnen" } },
      { key: "c", text: "Three plums" },
    ];
    await c.put("/v1/units", unit("post:1", post1));
    await c.put("/v1/units", unit("post:2", [{ key: "a", text: "Four figs" }]));
    await c.put("/v1/units", unit("page:3", [{ key: "a", text: "Five limes" }]));

    // A forced job over de moves the imported (ok) translation to review too.
    const forced = await job(c, site.siteId, { languages: ["de"], force: true });
    expect(forced).toMatchObject({ status: "succeeded", done_segments: 5 });
    let counts = await countsAndRecount(site.siteId);
    expect(counts.maintained).toEqual(counts.recount);

    // fr: while the engine works, post:1/a changes, post:1/c goes and page:3 is deleted.
    const created = (await c.post("/v1/jobs", { confirm: true, languages: ["fr"] })).body;
    let changed = false;
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const settings = o.store.getMeta<SiteSettings>("settings")!;
      const engine = fakeEngine({
        limits: { maxSegments: 1000, maxCharacters: 1e9 },
        translation: (text) => `FR ${text}`,
        during: async () => {
          if (!changed) {
            changed = true;
            await o.pushUnit(settings, UnitSnapshotIn.parse(unit("post:1", [{ key: "a", text: "One green apple" }, post1[1]])));
            await o.deleteUnit(settings, "page:3");
          }
        },
      });
      await runJobs(runnerDeps(o, { settings, engineFor: () => engine }), 60_000);
    });
    expect(changed).toBe(true);
    expect((await c.get(`/v1/jobs/${created.id}`)).body.status).toBe("succeeded");
    counts = await countsAndRecount(site.siteId);
    expect(counts.maintained).toEqual(counts.recount);
    // post:1/a's French result was made for the old text: stale, not in review.
    const post1Fr = counts.maintained.unitCounts.find((r: any) => r.unit_key === "post:1" && r.language === "fr");
    expect(post1Fr).toMatchObject({ total: 2, review: 1, stale: 1 });
    expect(counts.maintained.unitCounts.some((r: any) => r.unit_key === "page:3")).toBe(false);
  });
});

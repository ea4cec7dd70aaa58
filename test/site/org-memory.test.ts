// The organization memory (docs/decisions.md "How sharing works"): what a sharing site approves
// reaches its organization's memory through the site's alarm, and the organization's other
// sharing sites take exact matches from there, unbilled and without an engine request. Never
// across organizations, never with share_memory off; erasure removes it.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OrgMemoryObject } from "../../src/memory/object";
import { orgMemoryName } from "../../src/memory/stub";
import { fingerprint } from "../../src/site/fingerprint";
import { runJobs } from "../../src/site/jobs/runner";
import { noteMemoryChange } from "../../src/site/memory/share";
import type { SiteObject } from "../../src/site/object";
import { admin, client, createSite, type TestSite, unit } from "../helpers/api";
import { arm, deeplTranslation, type Engines, mockEngines } from "../helpers/faults";
import { allResults, runJob } from "../helpers/jobs";
import { objectEnv, runnerDeps, share, stubOf } from "../helpers/site";

const TARGETS = [{ code: "de", engine: "deepl" }];
const orgObject = (orgId: number) => env.ORG_MEMORY.getByName(orgMemoryName(orgId));
const entriesBySite = (orgId: number) => orgObject(orgId).entriesBySite();

// The engine fakes (HTTP level) of the current test; removed when it finishes.
let engines: Engines;

/** A site of `orgId` (a new organization without), covered by an agency subscription with the organization's other sites. */
async function site(orgId?: number, covered: number[] = []): Promise<TestSite> {
  const s = await createSite({ orgId, target_languages: TARGETS, plan: orgId ? null : "agency" });
  if (orgId) {
    const sub = await admin("PUT", `/admin/v1/organizations/${orgId}/subscription`, { plan: "agency", status: "active", site_ids: [...covered, s.siteId] });
    expect(sub.status).toBe(200);
  }
  await arm(s.siteId);
  return s;
}

/** Creates and runs a delta job; answers the finished job. */
async function delta(s: TestSite) {
  const c = client(s.key);
  const res = await c.post("/v1/jobs", { confirm: true });
  expect(res.status).toBe(202);
  await arm(s.siteId);
  return runJob(c, s.siteId, res.body.id);
}

const TEXTS = [
  { key: "a", text: "Terms and conditions" },
  { key: "b", text: "All rights reserved" },
];

/** A site that translated TEXTS and approved them (b with an editor's text). */
async function approvedSite(orgId?: number, covered: number[] = []) {
  const s = await site(orgId, covered);
  const c = client(s.key);
  expect((await c.put("/v1/units", unit("footer", TEXTS))).status).toBe(200);
  await delta(s);
  const results = await allResults(c);
  const byKey = Object.fromEntries(results.map((r) => [r.key, r]));
  const res = await c.post("/v1/reviews", {
    reviews: [
      { id: byKey.a.id, outcome: "approved" },
      { id: byKey.b.id, outcome: "approved", text: "Alle Rechte vorbehalten" },
    ],
  });
  expect(res.status).toBe(200);
  return s;
}

describe("organization memory", () => {
  it("a second site of the organization gets the first one's approved texts as unbilled memory hits, with no engine request", async () => {
    engines = mockEngines();
    const first = await approvedSite();
    // Off the request's path: nothing is in the organization's memory until the alarm runs.
    expect(await entriesBySite(first.orgId)).toEqual({});
    await share(first.siteId);
    expect(await entriesBySite(first.orgId)).toEqual({ [first.siteId]: 2 });

    const second = await site(first.orgId, [first.siteId]);
    const c = client(second.key);
    await c.put("/v1/units", unit("footer", [...TEXTS, { key: "c", text: "Contact" }]));
    const estimate = await c.post("/v1/jobs", { estimate_only: true });
    expect(estimate.body).toMatchObject({ estimated_segments: 3, estimated_tm_segments: 2, estimated_characters: "Contact".length });

    engines.deepl.calls.length = 0;
    const done = await delta(second);
    expect(done, JSON.stringify(done)).toMatchObject({ status: "succeeded", done_segments: 3, tm_segments: 2, characters: "Contact".length });
    // Only the text the organization's memory does not hold went to the engine.
    expect(engines.deepl.calls).toEqual([["Contact"]]);
    const results = Object.fromEntries((await allResults(c)).map((r) => [r.key, r]));
    expect(results.a).toMatchObject({ text: deeplTranslation("Terms and conditions", "DE"), origin: "tm_exact" });
    expect(results.b).toMatchObject({ text: "Alle Rechte vorbehalten", origin: "tm_exact" });
    expect(results.c).toMatchObject({ text: deeplTranslation("Contact", "DE") });
  });

  it("an entry edited or deleted in the site's memory (noteMemoryChange) is edited or withdrawn in the organization's", async () => {
    engines = mockEngines();
    const first = await approvedSite();
    await share(first.siteId);
    const second = await site(first.orgId, [first.siteId]);
    const lookup = () =>
      orgObject(first.orgId).lookup(
        second.siteId,
        "de",
        TEXTS.map((t) => ["en", fingerprint(t.text)]),
      );
    expect((await lookup()).map((h) => h[2]).sort()).toEqual(["Alle Rechte vorbehalten", deeplTranslation("Terms and conditions", "DE")].sort());

    // As the memory page edits and deletes entries: the row changes, then noteMemoryChange.
    await runInDurableObject(stubOf(first.siteId), async (o: SiteObject) => {
      const [a, b] = TEXTS.map((t) => fingerprint(t.text));
      o.store.run("UPDATE memory SET text = 'Allgemeine Geschäftsbedingungen', origin = 'human' WHERE source_fingerprint = ?", a);
      noteMemoryChange(o.store, a, "en", "de");
      o.store.run("DELETE FROM memory WHERE source_fingerprint = ?", b);
      noteMemoryChange(o.store, b, "en", "DE");
      // What the object method that made the change does next (SiteObject.shareSoon).
      await o.alarms.schedule("memory_share", Date.now(), { onlyEarlier: true });
    });
    await share(first.siteId);
    expect(await lookup()).toEqual([["en", fingerprint("Terms and conditions"), "Allgemeine Geschäftsbedingungen", "human"]]);
    expect(await entriesBySite(first.orgId)).toEqual({ [first.siteId]: 1 });
  });

  it("imported translations (a push with translations) are copied too", async () => {
    engines = mockEngines();
    const s = await site();
    const c = client(s.key);
    const pushed = await c.put(
      "/v1/units",
      unit(
        "footer",
        TEXTS.map((t) => ({ ...t, translations: { de: `Import: ${t.text}` } })),
      ),
    );
    expect(pushed.body).toMatchObject({ imported_translations: 2 });
    await share(s.siteId);
    expect(await entriesBySite(s.orgId)).toEqual({ [s.siteId]: 2 });
    const hits = await orgObject(s.orgId).lookup(s.siteId + 1_000_000, "de", [["en", fingerprint(TEXTS[0].text)]]);
    expect(hits).toEqual([["en", fingerprint(TEXTS[0].text), `Import: ${TEXTS[0].text}`, "imported"]]);
  });

  it("a slice asks the organization's memory only while it holds other sites' entries: one question an invocation", async () => {
    engines = mockEngines();
    /** Runs the site's jobs inside the object with an ORG_MEMORY that counts the calls; answers them by method. */
    const countedRun = (s: TestSite) =>
      runInDurableObject(stubOf(s.siteId), async (o: SiteObject) => {
        const calls: Record<string, number> = {};
        const counting = {
          getByName: (name: string) => {
            const real = objectEnv(o).ORG_MEMORY.getByName(name) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
            return new Proxy(real, {
              get:
                (target, method: string) =>
                (...args: unknown[]) => {
                  calls[method] = (calls[method] ?? 0) + 1;
                  return target[method](...args);
                },
            });
          },
        } as unknown as Env["ORG_MEMORY"];
        // Slices of 1 item: several slices, each of which would ask.
        await runJobs(runnerDeps(o, { env: { ORG_MEMORY: counting } }), { budgetMs: 60_000, sliceItems: 1 });
        return calls;
      });
    const first = await site();
    const c = client(first.key);
    expect((await c.put("/v1/units", unit("footer", TEXTS))).status).toBe(200);
    expect((await c.post("/v1/jobs", { confirm: true })).status).toBe(202);
    // The organization's memory holds nothing from another site: asked once, no look-up (the start asks its version, to
    // take the estimate stored at creation).
    expect(await countedRun(first)).toEqual({ version: 1, holdsOthers: 1 });

    const second = await site(first.orgId, [first.siteId]);
    await approvedSite(first.orgId, [first.siteId, second.siteId]).then((s) => share(s.siteId));
    const c2 = client(second.key);
    expect((await c2.put("/v1/units", unit("footer", [...TEXTS, { key: "c", text: "Contact us" }]))).status).toBe(200);
    expect((await c2.post("/v1/jobs", { confirm: true })).status).toBe(202);
    // Now it does: asked once, then one look-up per slice with texts for the engine (3 slices of one text each).
    expect(await countedRun(second)).toEqual({ version: 1, holdsOthers: 1, lookup: 3 });
  });

  it("a site of another organization never reads it", async () => {
    engines = mockEngines();
    const first = await approvedSite();
    await share(first.siteId);
    expect(await entriesBySite(first.orgId)).toEqual({ [first.siteId]: 2 });

    const stranger = await site();
    const c = client(stranger.key);
    await c.put("/v1/units", unit("footer", TEXTS));
    expect((await c.post("/v1/jobs", { estimate_only: true })).body).toMatchObject({ estimated_segments: 2, estimated_tm_segments: 0 });
    engines.deepl.calls.length = 0;
    expect(await delta(stranger)).toMatchObject({ tm_segments: 0, characters: TEXTS.reduce((n, t) => n + t.text.length, 0) });
    expect(engines.deepl.calls.flat().sort()).toEqual(TEXTS.map((t) => t.text).sort());
  });

  it("share_memory off stops both reading and writing, and withdraws the site's entries", async () => {
    engines = mockEngines();
    const first = await approvedSite();
    await share(first.siteId);

    // A site that does not share: nothing it approves is copied, and it reads nothing.
    const quiet = await createSite({ orgId: first.orgId, target_languages: TARGETS, plan: null });
    expect((await admin("PATCH", `/admin/v1/sites/${quiet.siteId}`, { share_memory: false })).body).toMatchObject({ share_memory: false });
    await admin("PUT", `/admin/v1/organizations/${first.orgId}/subscription`, { plan: "agency", status: "active", site_ids: [first.siteId, quiet.siteId] });
    await share(quiet.siteId); // its (empty) withdrawal
    const q = client(quiet.key);
    await q.put("/v1/units", unit("footer", [...TEXTS, { key: "c", text: "Contact" }]));
    expect((await q.post("/v1/jobs", { estimate_only: true })).body).toMatchObject({ estimated_tm_segments: 0 });
    engines.deepl.calls.length = 0;
    expect(await delta(quiet)).toMatchObject({ tm_segments: 0 });
    expect(engines.deepl.calls.flat()).toHaveLength(3);
    const contact = (await allResults(q)).find((r) => r.key === "c");
    await q.post("/v1/reviews", { reviews: [{ id: contact.id, outcome: "approved" }] });
    expect(await runInDurableObject(stubOf(quiet.siteId), (o: SiteObject) => o.alarms.dueAt("memory_share"))).toBeNull();
    expect(await entriesBySite(first.orgId)).toEqual({ [first.siteId]: 2 });

    // Turned off on the sharing site: its entries leave the organization's memory.
    expect((await admin("PATCH", `/admin/v1/sites/${first.siteId}`, { share_memory: false })).status).toBe(200);
    await share(first.siteId);
    expect(await entriesBySite(first.orgId)).toEqual({});

    // Turned on again: the whole memory is copied (the backfill).
    expect((await admin("PATCH", `/admin/v1/sites/${first.siteId}`, { share_memory: true })).status).toBe(200);
    await share(first.siteId);
    expect(await entriesBySite(first.orgId)).toEqual({ [first.siteId]: 2 });
  });

  it("the copy is not on the approval's path: an organization memory that fails leaves the approval answered, and the alarm retries", async () => {
    engines = mockEngines();
    const s = await site();
    const c = client(s.key);
    await c.put("/v1/units", unit("footer", TEXTS));
    await delta(s);
    // The organization's object fails every call from this site object.
    const failing = {
      getByName: () => ({
        share: async () => {
          throw new Error("organization memory unavailable");
        },
      }),
    } as unknown as Env["ORG_MEMORY"];
    await arm(s.siteId, { ORG_MEMORY: failing });
    const results = await allResults(c);
    const res = await c.post("/v1/reviews", { reviews: results.map((r) => ({ id: r.id, outcome: "approved" })) });
    expect(res).toMatchObject({ status: 200, body: { updated: 2 } });

    await runDurableObjectAlarm(stubOf(s.siteId));
    expect(await entriesBySite(s.orgId)).toEqual({});
    // Still due (later, backing off), the notes kept.
    const due = await runInDurableObject(stubOf(s.siteId), (o: SiteObject) => o.alarms.dueAt("memory_share"));
    expect(due).not.toBeNull();

    await arm(s.siteId, { ORG_MEMORY: env.ORG_MEMORY });
    await share(s.siteId);
    expect(await entriesBySite(s.orgId)).toEqual({ [s.siteId]: 2 });
  });

  it("erasing a site removes its entries; erasing the organization removes the object's storage", async () => {
    engines = mockEngines();
    const first = await approvedSite();
    await share(first.siteId);
    const second = await approvedSite(first.orgId, [first.siteId]);
    await share(second.siteId);
    expect(await entriesBySite(first.orgId)).toEqual({ [first.siteId]: 2, [second.siteId]: 2 });

    expect((await admin("DELETE", `/admin/v1/sites/${first.siteId}`)).status).toBe(204);
    expect(await entriesBySite(first.orgId)).toEqual({ [second.siteId]: 2 });
    // A copy from the erased site still in flight is refused.
    const late = await orgObject(first.orgId).share(first.siteId, [
      { source_language: "en", source_fingerprint: "f".repeat(64), target_language: "de", text: "spät", origin: "approved", updated_at: new Date().toISOString() },
    ]);
    expect(late).toBe(0);

    expect((await admin("DELETE", `/admin/v1/organizations/${first.orgId}`)).status).toBe(204);
    // deleteAll: even the record of erased sites is gone.
    const left = await runInDurableObject(orgObject(first.orgId), (_o: OrgMemoryObject, state) => ({
      entries: state.storage.sql.exec("SELECT count(*) AS n FROM entries").one().n,
      erased: state.storage.sql.exec("SELECT count(*) AS n FROM erased_sites").one().n,
    }));
    expect(left).toEqual({ entries: 0, erased: 0 });
  });
});

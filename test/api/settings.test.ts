// Settings changes (docs/decisions.md "Site settings, handshake and the glossary"): versioned, pushed to the site object
// at once, never undone by an older copy, audited, and picked up by a running job per slice.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SiteSettings } from "../../src/control/sites.control";
import type { EngineName } from "../../src/engines/registry";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { admin, client, createSite, request, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { runJob } from "../helpers/jobs";
import { runnerDeps, stubOf } from "../helpers/site";

const stored = (siteId: number) => runInDurableObject(stubOf(siteId), (o: SiteObject) => o.store.getMeta<SiteSettings>("settings")!);
const versionInD1 = async (siteId: number) => (await env.DB.prepare("SELECT settings_version AS v FROM sites WHERE id = ?").bind(siteId).first<{ v: number }>())!.v;

describe("site settings", () => {
  it("a PATCH bumps the version and reaches the site object before it answers", async () => {
    const site = await createSite();
    const before = await stored(site.siteId);
    expect(before.version).toBe(1);
    const res = await admin("PATCH", `/admin/v1/sites/${site.siteId}`, { qa_mode: "separate", target_languages: [{ code: "de", engine: "pseudo" }] });
    expect(res.status).toBe(200);
    expect(await versionInD1(site.siteId)).toBe(2);
    // No public request in between: the object already has the new settings.
    const now = await stored(site.siteId);
    expect(now).toMatchObject({ version: 2, qaMode: "separate", targetLanguages: [{ code: "de" }] });
    await admin("PATCH", `/admin/v1/sites/${site.siteId}`, { name: "renamed" });
    expect(await versionInD1(site.siteId)).toBe(3);
    expect((await stored(site.siteId)).name).toBe("renamed");
  });

  it("the object never goes back to older settings; a call carrying them runs with the newer ones", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "a", text: "Hello" }]));
    const old = await stored(site.siteId); // what an isolate with a 30-second-old cache still holds
    await admin("PATCH", `/admin/v1/sites/${site.siteId}`, {
      target_languages: [
        { code: "de", engine: "pseudo" },
        { code: "fr", engine: "pseudo" },
        { code: "it", engine: "pseudo" },
      ],
    });
    const newer = await stored(site.siteId);
    expect(newer.version).toBe(old.version + 1);

    const stub = stubOf(site.siteId);
    // The stale copy's call answers from the newer settings…
    const info = await stub.site(old);
    expect(info.target_languages.map((t: any) => t.code)).toEqual(["de", "fr", "it"]);
    const status: any = await stub.status(old, "");
    expect(status.languages.map((l: any) => l.code)).toEqual(["de", "fr", "it"]);
    // …and leaves them in place, without rebuilding the counts.
    const counts = await runInDurableObject(stub, (o: SiteObject) => {
      const rows = o.store.all("SELECT * FROM unit_counts ORDER BY 1, 2");
      return rows;
    });
    expect(await stored(site.siteId)).toEqual(newer);
    await stub.unitStatus(old, "post:1");
    expect(await stored(site.siteId)).toEqual(newer);
    expect(await runInDurableObject(stub, (o: SiteObject) => o.store.all("SELECT * FROM unit_counts ORDER BY 1, 2"))).toEqual(counts);

    // A newer version is adopted.
    const newest = { ...newer, version: newer.version + 1, qaMode: "separate" as const };
    await stub.site(newest);
    expect(await stored(site.siteId)).toEqual(newest);
  });

  it("records an audit entry naming the changed fields, never their values", async () => {
    const site = await createSite({ name: "audited.example" });
    await admin("PATCH", `/admin/v1/sites/${site.siteId}`, { name: "secret-new-name.example", qa_mode: "editors", review_mode: "suggestion" });
    // (site.create and key.create of the set-up are audited on the same target since the admin routes are audited)
    const rows = await env.DB.prepare("SELECT actor, action, target, detail, organization_id FROM audit_log WHERE target = ? AND action = 'site.update'")
      .bind(`site:${site.siteId}`)
      .all<any>();
    expect(rows.results).toHaveLength(1);
    const entry = rows.results[0];
    expect(entry).toMatchObject({ actor: "admin", action: "site.update", target: `site:${site.siteId}`, organization_id: site.orgId });
    // qa_mode was already "editors": only what changed is listed.
    expect(JSON.parse(entry.detail)).toEqual({ fields: ["name", "review_mode"] });
    expect(entry.detail).not.toContain("secret-new-name");
  });

  it("a running job uses the current settings from its next slice on", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    // 300 segments: two slices of one language.
    const segments = Array.from({ length: 300 }, (_, i) => ({ key: `s${i}`, text: `Sentence number ${i}` }));
    await c.put("/v1/units", unit("post:1", segments));
    const created = (await c.post("/v1/jobs", { confirm: true })).body;
    const stub = stubOf(site.siteId);
    const asked: string[] = [];
    await runInDurableObject(stub, async (o: SiteObject) => {
      const settings = o.store.getMeta<SiteSettings>("settings")!;
      const engine = (name: EngineName) =>
        fakeEngine({
          name,
          limits: { maxSegments: 1000, maxCharacters: 1e9 },
          translation: (text) => `${name}:${text}`,
          during: async () => {
            if (asked.length === 1)
              // While the first slice's engine call is out, an admin change arrives.
              await o.applySettings({
                ...settings,
                version: settings.version + 1,
                targetLanguages: [{ code: "de", engine: "deepl", formality: "formal", writable: true }],
                enabledEngines: ["pseudo", "deepl"],
              });
          },
        });
      await runJobs(
        runnerDeps(o, {
          settings,
          engineFor: (name) => {
            asked.push(name);
            return engine(name);
          },
        }),
        60_000,
      );
    });
    expect(asked).toEqual(["pseudo", "deepl"]);
    const done = await runJob(c, site.siteId, created.id);
    expect(done).toMatchObject({ status: "succeeded", done_segments: 300 });
  });
});

describe("GET /admin/v1/sites/{site_id}", () => {
  it("answers the site with connector null before a handshake, then the latest handshake", async () => {
    const site = await createSite({ handshake: false, enabled_adapters: ["wordpress"] });
    const before = await admin("GET", `/admin/v1/sites/${site.siteId}`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ id: site.siteId, organization_id: site.orgId, qa_mode: "editors", review_mode: "draft", connector: null });
    const hs = await request("POST", "/v1/handshake", {
      key: site.key,
      body: { connector_version: "wp-plugin/2.4.1", source_language: "en", languages: ["de"], adapters: ["wordpress", "drupal"], capabilities: ["whole_unit", "nonsense"] },
    });
    expect(hs.status).toBe(200);
    const after = await admin("GET", `/admin/v1/sites/${site.siteId}`);
    expect(after.status).toBe(200);
    expect(after.body.connector).toEqual({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      connector_version: "wp-plugin/2.4.1",
      languages: ["de"],
      adapters: ["wordpress", "drupal"],
      capabilities: ["whole_unit"],
      warnings: hs.body.warnings,
    });
    expect(hs.body.warnings.length).toBe(2); // fr missing, drupal not enabled
    expect(after.body.target_languages.map((t: any) => t.code)).toEqual(["de", "fr"]);
  });

  it("is 404 for an unknown site and 401 without the admin token", async () => {
    expect((await admin("GET", "/admin/v1/sites/999999")).status).toBe(404);
    const site = await createSite();
    expect((await request("GET", `/admin/v1/sites/${site.siteId}`)).status).toBe(401);
    expect((await request("GET", `/admin/v1/sites/${site.siteId}`, { key: site.key })).status).toBe(401);
  });
});

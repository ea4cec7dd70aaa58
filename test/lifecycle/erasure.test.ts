// Erasure: after DELETE /admin/v1/sites/{id} or /admin/v1/organizations/{id} nothing of the
// site can be read through any path — its keys are 401, admin reads 404, the object holds no
// data and no alarm, R2 holds nothing under its prefix — while other sites are untouched and
// the usage ledger keeps its billing records.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runJobs } from "../../src/site/jobs/runner";
import type { SiteObject } from "../../src/site/object";
import { admin, client, createSite, type TestSite, unit } from "../helpers/api";
import { fakeEngine } from "../helpers/fake-engine";
import { flakyDb, sumCharacters, texts } from "../helpers/faults";
import { allResults, job } from "../helpers/jobs";
import { objectEnv, runnerDeps, setObjectEnv, stubOf } from "../helpers/site";

const q = async <T = any>(query: string, ...args: unknown[]) =>
  (
    await env.DB.prepare(query)
      .bind(...args)
      .all<T>()
  ).results;

/** A site with units, translations, results, a finished job, a queued job (alarm set) and an R2 leftover. */
async function populated(site: TestSite) {
  const c = client(site.key);
  expect(
    (
      await c.put(
        "/v1/units",
        unit("post:1", [
          { key: "title", text: "Hello world" },
          { key: "body", text: "Some text here." },
        ]),
      )
    ).status,
  ).toBe(200);
  const done = await job(c, site.siteId);
  expect(done.status).toBe("succeeded");
  expect((await allResults(c)).length).toBe(4);
  expect((await c.put("/v1/units", unit("post:2", [{ key: "title", text: "Another page" }]))).status).toBe(200);
  expect((await c.post("/v1/jobs", { confirm: true })).status).toBe(202);
  await env.BLOBS.put(`batches/${site.siteId}/leftover.json`, "{}");
  return c;
}

async function objectTables(siteId: number) {
  return runInDurableObject(stubOf(siteId), async (_o: SiteObject, state) => ({
    tables: state.storage.sql
      .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%'")
      .toArray()
      .map((r) => r.name),
    alarm: await state.storage.getAlarm(),
    entries: [...(await state.storage.list()).keys()],
  }));
}

describe("DELETE /admin/v1/sites/{site_id}", () => {
  it("erases everything of the site and nothing of its neighbours", async () => {
    const site = await createSite();
    const neighbour = await createSite({ orgId: site.orgId });
    const stranger = await createSite();
    const c = await populated(site);
    await populated(stranger);
    const extraKey = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "second" })).body.key as string;
    expect((await objectTables(site.siteId)).alarm).not.toBeNull();
    const ledgerBefore = await q("SELECT organization_id, site_id, job_id, slice, characters, month, created_at FROM usage_ledger WHERE site_id = ?", site.siteId);
    expect(ledgerBefore.length).toBeGreaterThan(0);

    const res = await admin("DELETE", `/admin/v1/sites/${site.siteId}`);
    expect(res.status).toBe(204);

    // every key of the site is refused, on every path
    for (const key of [site.key, extraKey]) {
      const k = client(key);
      for (const r of [await k.get("/v1/site"), await k.get("/v1/status"), await k.get("/v1/results"), await k.get("/v1/jobs"), await k.get("/v1/units/post:1/status")])
        expect(r.status).toBe(401);
    }
    // admin reads and a repeated erasure: 404
    for (const r of [
      await admin("GET", `/admin/v1/sites/${site.siteId}/keys`),
      await admin("GET", `/admin/v1/sites/${site.siteId}/attention`),
      await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "again" }),
      await admin("DELETE", `/admin/v1/sites/${site.siteId}`),
    ])
      expect(r.status).toBe(404);

    // the object: no table, no alarm, only the erasure mark; an alarm does nothing
    expect(await objectTables(site.siteId)).toEqual({ tables: [], alarm: null, entries: ["erased_at"] });
    await runDurableObjectAlarm(stubOf(site.siteId));
    expect((await objectTables(site.siteId)).tables).toEqual([]);
    // a direct call with the old settings (a key cached in another isolate) is refused and writes nothing
    const settings = {
      id: site.siteId,
      organizationId: site.orgId,
      organization: "x",
      name: "x",
      sourceLanguage: "en",
      targetLanguages: [],
      enabledAdapters: ["wordpress"],
      enabledEngines: ["pseudo"],
      qaMode: "editors",
      reviewMode: "draft",
    };
    const refused = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => o.pushUnit(settings as any, unit("post:9", [{ key: "a", text: "b" }]) as any));
    expect(refused).toMatchObject({ __apiError: { status: 401 } });
    expect((await objectTables(site.siteId)).tables).toEqual([]);

    // control plane and R2
    expect(await q("SELECT id FROM sites WHERE id = ?", site.siteId)).toEqual([]);
    expect(await q("SELECT id FROM api_keys WHERE site_id = ?", site.siteId)).toEqual([]);
    expect(await q("SELECT site_id FROM subscription_sites WHERE site_id = ?", site.siteId)).toEqual([]);
    expect(await q("SELECT site_id FROM reservations WHERE site_id = ?", site.siteId)).toEqual([]);
    expect((await env.BLOBS.list({ prefix: `batches/${site.siteId}/` })).objects).toEqual([]);
    // billing records stay: ids, month, day and counts
    const ledgerAfter = await q("SELECT organization_id, site_id, job_id, slice, characters, month, created_at FROM usage_ledger WHERE site_id = ?", site.siteId);
    expect(ledgerAfter).toEqual(ledgerBefore.map((r) => ({ ...r, created_at: r.created_at.slice(0, 10) })));
    // recorded in the audit log
    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit[0]).toMatchObject({ actor: "admin", action: "site.erase", target: `site:${site.siteId}` });

    // the neighbours are untouched
    expect((await client(neighbour.key).get("/v1/site")).status).toBe(200);
    expect((await client(stranger.key).get("/v1/status")).body).toMatchObject({ units_total: 2 });
    expect((await env.BLOBS.list({ prefix: `batches/${stranger.siteId}/` })).objects.map((o) => o.key)).toEqual([`batches/${stranger.siteId}/leftover.json`]);
    void c;

    // ids are never reused
    const next = await createSite({ orgId: site.orgId });
    expect(next.siteId).toBeGreaterThan(stranger.siteId);
  });
});

describe("erasing a site whose job's ledger rows still wait in its outbox", () => {
  const isLedgerInsert = (sql: string) => /^insert into "usage_ledger"/i.test(sql);
  const billed = async (siteId: number) => (await q<{ n: number | null }>("SELECT sum(characters) AS n FROM usage_ledger WHERE site_id = ?", siteId))[0].n;

  /**
   * A site whose job stored its work while D1 refused the ledger writes (ledger.ts): the rows
   * that bill it wait in the object's outbox, as after a D1 outage or an eviction.
   */
  async function withQueuedRows() {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const segments = texts(30, "Billed before erasure").map((text, i) => ({ key: `s${i}`, text }));
    expect((await c.put("/v1/units", unit("page:1", segments))).status).toBe(200);
    expect((await c.post("/v1/jobs", { confirm: true })).status).toBe(202);
    const chars = sumCharacters(segments.map((s) => s.text));
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      const db = flakyDb(env.DB, { down: isLedgerInsert });
      const deps = runnerDeps(o, { engineFor: () => fakeEngine(), env: { DB: db } });
      await expect(runJobs(deps, { budgetMs: 60_000, sliceItems: 10 })).rejects.toThrow(/metering a job's progress/);
      expect(o.store.one<{ n: number }>("SELECT sum(characters) AS n FROM ledger_outbox")!.n).toBe(chars);
    });
    expect(await billed(site.siteId)).toBeNull();
    return { site, chars };
  }

  it("writes them to the usage ledger before the storage goes: the work done stays billed", async () => {
    const { site, chars } = await withQueuedRows();
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}`)).status).toBe(204);
    expect(await billed(site.siteId)).toBe(chars);
    expect(await objectTables(site.siteId)).toEqual({ tables: [], alarm: null, entries: ["erased_at"] });
  });

  it("fails while D1 refuses them, keeping them and the storage, and writes them when the erasure is retried", async () => {
    const { site, chars } = await withQueuedRows();
    // The object's own D1 refuses the ledger rows (the Worker's D1 works: keys are dropped, the site row stays).
    await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => {
      setObjectEnv(o, { ...objectEnv(o), DB: flakyDb(env.DB, { down: isLedgerInsert }) });
    });
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}`)).status).toBe(500);
    // Nothing was deleted: the rows wait in the outbox and the site row stays for the retry; its keys are gone.
    const left = await runInDurableObject(stubOf(site.siteId), async (o: SiteObject, state) => {
      setObjectEnv(o, { ...objectEnv(o), DB: env.DB });
      return state.storage.sql.exec<{ n: number }>("SELECT sum(characters) AS n FROM ledger_outbox").one().n;
    });
    expect(left).toBe(chars);
    expect(await q("SELECT id FROM sites WHERE id = ?", site.siteId)).toHaveLength(1);
    expect((await client(site.key).get("/v1/status")).status).toBe(401);

    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}`)).status).toBe(204);
    expect(await billed(site.siteId)).toBe(chars);
    expect(await objectTables(site.siteId)).toEqual({ tables: [], alarm: null, entries: ["erased_at"] });
  });
});

describe("DELETE /admin/v1/organizations/{org_id}", () => {
  it("erases its sites, subscription, glossary, members and invitations; people in another organization stay", async () => {
    const a = await createSite();
    const b = await createSite({ orgId: a.orgId });
    const other = await createSite();
    await populated(a);
    expect((await admin("PUT", `/admin/v1/organizations/${a.orgId}/glossary`, { terms: [{ source: "Acme", language: "de", target: "Acme" }] })).status).toBe(200);
    // people: one only in this organization, one also in another
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 86_400_000).toISOString();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO users (email, password_hash) VALUES ('only@a.test', 'x'), ('both@a.test', 'y')"),
      env.DB.prepare("INSERT INTO memberships (user_id, organization_id, role) SELECT id, ?, 'owner' FROM users WHERE email IN ('only@a.test', 'both@a.test')").bind(a.orgId),
      env.DB.prepare("INSERT INTO memberships (user_id, organization_id, role) SELECT id, ?, 'editor' FROM users WHERE email = 'both@a.test'").bind(other.orgId),
      env.DB.prepare(
        "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) SELECT 'h-' || email, id, ?, ? FROM users WHERE email IN ('only@a.test', 'both@a.test')",
      ).bind(now, later),
      env.DB.prepare("INSERT INTO invitations (organization_id, email, role, token_hash, created_at, expires_at) VALUES (?, 'new@a.test', 'editor', 'inv', ?, ?)").bind(
        a.orgId,
        now,
        later,
      ),
      // Wrong passwords counted for both (the table references the person: the one who leaves takes theirs along).
      env.DB.prepare(
        "INSERT INTO sign_in_failures (user_id, client, failures, last_at) SELECT id, 'c-' || email, 2, ? FROM users WHERE email IN ('only@a.test', 'both@a.test')",
      ).bind(now),
    ]);

    expect((await admin("DELETE", `/admin/v1/organizations/${a.orgId}`)).status).toBe(204);

    for (const key of [a.key, b.key]) expect((await client(key).get("/v1/site")).status).toBe(401);
    for (const id of [a.siteId, b.siteId]) {
      expect((await admin("GET", `/admin/v1/sites/${id}/keys`)).status).toBe(404);
      expect((await objectTables(id)).tables).toEqual([]);
    }
    expect((await admin("PUT", `/admin/v1/organizations/${a.orgId}/glossary`, { terms: [] })).status).toBe(404);
    expect((await admin("DELETE", `/admin/v1/organizations/${a.orgId}`)).status).toBe(404);
    for (const table of ["glossary_terms", "invitations", "memberships", "subscriptions", "subscription_sites", "sites", "reservations"])
      expect(await q(`SELECT * FROM ${table} WHERE organization_id = ?`, a.orgId)).toEqual([]);
    expect(await q("SELECT id FROM organizations WHERE id = ?", a.orgId)).toEqual([]);
    expect((await q("SELECT email FROM users WHERE email LIKE '%@a.test'")).map((r) => r.email)).toEqual(["both@a.test"]);
    expect((await q("SELECT token_hash FROM sessions WHERE token_hash LIKE 'h-%@a.test'")).map((r) => r.token_hash)).toEqual(["h-both@a.test"]);
    expect((await q("SELECT client FROM sign_in_failures WHERE client LIKE 'c-%@a.test'")).map((r) => r.client)).toEqual(["c-both@a.test"]);
    expect(await q("SELECT organization_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = 'both@a.test'")).toEqual([{ organization_id: other.orgId }]);
    // billing records stay; the audit keeps the erasure without details of the organization
    expect((await q("SELECT count(*) AS n FROM usage_ledger WHERE organization_id = ?", a.orgId))[0].n).toBeGreaterThan(0);
    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${a.orgId}`)).body.items;
    expect(audit[0]).toMatchObject({ action: "organization.erase", target: `organization:${a.orgId}`, detail: { sites: 2 } });
    expect(audit.slice(1).every((i: any) => i.detail === null)).toBe(true);

    expect((await client(other.key).get("/v1/site")).status).toBe(200);
    const next = (await admin("POST", "/admin/v1/organizations", { name: "Next" })).body;
    expect(next.id).toBeGreaterThan(other.orgId);
  });

  it("an unknown organization is 404, a malformed id 422", async () => {
    expect((await admin("DELETE", "/admin/v1/organizations/999999")).status).toBe(404);
    const bad = await admin("DELETE", "/admin/v1/organizations/abc");
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/org_id/);
  });
});

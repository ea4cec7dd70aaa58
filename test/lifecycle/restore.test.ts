/**
 * A site's point-in-time restore (docs/ops/backups.md): POST /admin/v1/sites/{id}/restore asks the
 * site object for the bookmark of `at`, schedules it for the next session and ends the session,
 * audited; the restored object cancels the jobs under way (with a reason the customer reads) and
 * skips the job ids D1 has billed; the site's reservations are released. `dry_run` answers what
 * the site held then and what goes back, changing nothing. The local runtime has no point-in-time
 * recovery: there the restore is a 501 and the dry run says so; elsewhere the object's storage
 * calls are a recording fake (test/helpers/seams.ts fakePointInTime), which does not rewind.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { restoreReason } from "../../src/ops/restore.ops";
import { admin, client, createSite, unit } from "../helpers/api";
import { operator } from "../helpers/operator";
import { fakePointInTime, setClock } from "../helpers/seams";

afterEach(() => setClock(undefined));

const T0 = new Date("2031-05-09T08:00:00Z");
const AT = "2031-05-09T08:30:00Z";
const NOW = new Date("2031-05-10T12:00:00Z");

/** A site with a unit and a queued job before `AT`, a second unit and job after it, and usage billed in D1 for a job id beyond both. */
async function siteWithHistory() {
  setClock(T0);
  const site = await createSite();
  const c = client(site.key);
  expect((await c.put("/v1/units/batch", { units: [unit("home", [{ key: "t", text: "Good morning" }])] })).status).toBe(200);
  const before = (await c.post("/v1/jobs", { confirm: true })).body.id as number;
  setClock(new Date("2031-05-09T09:00:00Z"));
  expect((await c.put("/v1/units/batch", { units: [unit("about", [{ key: "t", text: "About us" }])] })).status).toBe(200);
  const after = (await c.post("/v1/jobs", { confirm: true, force: true })).body.id as number;
  // A job D1 billed since (its rows in the ledger): its id must not be handed out again.
  await env.DB.prepare("INSERT INTO usage_ledger (organization_id, site_id, job_id, slice, characters, month, created_at) VALUES (?, ?, 40, 1, 100, '2031-05-01', ?)")
    .bind(site.orgId, site.siteId, "2031-05-09T10:00:00.000Z")
    .run();
  setClock(NOW);
  return { site, c, before, after };
}

const reservationsOf = async (siteId: number) => (await env.DB.prepare("SELECT job_id FROM reservations WHERE site_id = ? ORDER BY job_id").bind(siteId).all()).results;

describe("POST /admin/v1/sites/{site_id}/restore", () => {
  it("restores the object to the moment: bookmark, restore on next session, abort; cancels the jobs under way with a reason, releases reservations, skips billed job ids; audited", async () => {
    const calls = fakePointInTime();
    const { site, c, before, after } = await siteWithHistory();
    expect((await reservationsOf(site.siteId)).map((r) => r.job_id)).toEqual([before, after]);

    const alice = operator("alice");
    const res = await alice("POST", `/admin/v1/sites/${site.siteId}/restore`, { at: AT });
    expect(res.status).toBe(200);
    const bookmark = `bookmark-${Date.parse(AT)}`;
    // (The fake does not rewind: both jobs are still there to be cancelled; on Cloudflare the later one is gone.)
    expect(res.body).toEqual({
      site_id: site.siteId,
      at: "2031-05-09T08:30:00.000Z",
      bookmark,
      restored_at: NOW.toISOString(),
      cancelled_jobs: [before, after],
      released_reservations: 2,
    });
    expect(calls).toEqual([
      { call: "getBookmarkForTime", arg: Date.parse(AT) },
      { call: "onNextSessionRestoreBookmark", arg: bookmark },
      { call: "abort", arg: "restored to an earlier point in time" },
    ]);
    // The customer sees why the job stopped; nothing is reserved any more.
    expect((await c.get(`/v1/jobs/${before}`)).body).toMatchObject({ status: "cancelled", cancel_reason: restoreReason(new Date(AT)) });
    expect(restoreReason(new Date(AT))).toContain("restored to 2031-05-09T08:30:00.000Z");
    expect(await reservationsOf(site.siteId)).toEqual([]);
    // The next job's id is past the one D1 billed (40), so its usage never meets that job's ledger rows.
    const next = await c.post("/v1/jobs", { confirm: true, force: true });
    expect(next.status).toBe(202);
    expect(next.body.id).toBe(41);

    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit.find((a: { action: string }) => a.action === "site.restore")).toMatchObject({
      actor: "admin:alice",
      target: `site:${site.siteId}`,
      detail: { at: "2031-05-09T08:30:00.000Z", restored_at: NOW.toISOString(), undo_bookmark: "bookmark-undo" },
    });
  });

  it("a dry run answers what the site held then, what goes back and the jobs a restore cancels; it changes nothing", async () => {
    const calls = fakePointInTime();
    const { site, c, before, after } = await siteWithHistory();
    const res = await admin("POST", `/admin/v1/sites/${site.siteId}/restore`, { at: AT, dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      site_id: site.siteId,
      at: "2031-05-09T08:30:00.000Z",
      dry_run: true,
      restorable: true,
      bookmark: `bookmark-${Date.parse(AT)}`,
      detail: null,
      now: { units: 2, jobs: 2, results: 0, memory_entries: 0 },
      at_time: { units: 1, jobs: 1, results: 0 },
      since: { units_pushed: 1, units_deleted: 0, jobs: 1, results: 0, memory_entries: 0 },
      cancelled_on_restore: [before],
    });
    expect(calls).toEqual([{ call: "getBookmarkForTime", arg: Date.parse(AT) }]);
    expect((await c.get(`/v1/jobs/${after}`)).body.status).toBe("queued");
    expect(await reservationsOf(site.siteId)).toHaveLength(2);
    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit.map((a: { action: string }) => a.action)).not.toContain("site.restore");
  });

  it("where the runtime has no point-in-time recovery (local workerd): the restore is a 501 saying so, the dry run says it cannot; nothing changes", async () => {
    const { site, c, before } = await siteWithHistory();
    const res = await admin("POST", `/admin/v1/sites/${site.siteId}/restore`, { at: AT });
    expect(res.status).toBe(501);
    expect(res.body.detail).toBe(
      "Point-in-time recovery is not available here: this runtime's Durable Object storage does not implement it (local workerd: `wrangler dev` and the tests). On Cloudflare it is; nothing was changed.",
    );
    const dry = await admin("POST", `/admin/v1/sites/${site.siteId}/restore`, { at: AT, dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ restorable: false, bookmark: null, detail: res.body.detail, at_time: { jobs: 1 }, cancelled_on_restore: [before] });
    expect((await c.get(`/v1/jobs/${before}`)).body).toMatchObject({ status: "queued", cancel_reason: null });
    expect(await reservationsOf(site.siteId)).toHaveLength(2);
    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit.map((a: { action: string }) => a.action)).not.toContain("site.restore");
  });

  it("refuses a moment in the future, older than 30 days, or not a date, with 422 naming `at`; an unknown site is 404", async () => {
    const calls = fakePointInTime();
    setClock(new Date("2031-05-10T12:00:00Z"));
    const site = await createSite();
    for (const dry_run of [false, true])
      for (const at of ["2031-05-11T00:00:00Z", "2031-04-01T00:00:00Z", "yesterday"]) {
        const res = await admin("POST", `/admin/v1/sites/${site.siteId}/restore`, { at, dry_run });
        expect(res.status, at).toBe(422);
        expect(res.body.detail, at).toMatch(/\bat\b/);
      }
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/restore`, { at: "2031-05-09T00:00:00Z", dry_run: "yes" })).status).toBe(422);
    expect((await admin("POST", "/admin/v1/sites/987654/restore", { at: "2031-05-09T00:00:00Z" })).status).toBe(404);
    expect(calls).toEqual([]);
  });
});

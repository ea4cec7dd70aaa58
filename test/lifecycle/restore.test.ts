/**
 * A site's point-in-time restore (docs/ops/backups.md): POST /admin/v1/sites/{id}/restore asks the
 * site object for the bookmark of `at`, schedules it for the next session and ends the session,
 * audited. The local runtime has no point-in-time recovery, so the object's storage calls are a
 * recording fake (test/helpers/seams.ts fakePointInTime).
 */
import { describe, expect, it } from "vitest";
import { admin, createSite } from "../helpers/api";
import { fakePointInTime, setClock } from "../helpers/seams";

describe("POST /admin/v1/sites/{site_id}/restore", () => {
  it("restores the site's object to the moment asked: bookmark, restore on next session, abort; audited", async () => {
    const calls = fakePointInTime();
    const now = new Date("2031-05-10T12:00:00Z");
    setClock(now);
    try {
      const site = await createSite();
      const at = "2031-05-09T08:30:00Z";
      const res = await admin("POST", `/admin/v1/sites/${site.siteId}/restore`, { at });
      expect(res.status).toBe(200);
      const bookmark = `bookmark-${Date.parse(at)}`;
      expect(res.body).toEqual({ site_id: site.siteId, at: "2031-05-09T08:30:00.000Z", bookmark });
      expect(calls).toEqual([
        { call: "getBookmarkForTime", arg: Date.parse(at) },
        { call: "onNextSessionRestoreBookmark", arg: bookmark },
        { call: "abort", arg: "restored to an earlier point in time" },
      ]);
      const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
      expect(audit[0]).toMatchObject({ actor: "admin", action: "site.restore", target: `site:${site.siteId}`, detail: { at: "2031-05-09T08:30:00.000Z" } });
    } finally {
      setClock(undefined);
    }
  });

  it("refuses a moment in the future, older than 30 days, or not a date, with 422 naming `at`; an unknown site is 404", async () => {
    const calls = fakePointInTime();
    setClock(new Date("2031-05-10T12:00:00Z"));
    try {
      const site = await createSite();
      for (const at of ["2031-05-11T00:00:00Z", "2031-04-01T00:00:00Z", "yesterday"]) {
        const res = await admin("POST", `/admin/v1/sites/${site.siteId}/restore`, { at });
        expect(res.status, at).toBe(422);
        expect(res.body.detail, at).toMatch(/\bat\b/);
      }
      expect((await admin("POST", "/admin/v1/sites/987654/restore", { at: "2031-05-09T00:00:00Z" })).status).toBe(404);
      expect(calls).toEqual([]);
    } finally {
      setClock(undefined);
    }
  });
});

// The audit log: every change made through the admin API is recorded (who, what, when, on
// what; never a secret), and GET /admin/v1/audit pages through it newest first with an opaque
// cursor, optionally for one organization.
import { describe, expect, it } from "vitest";
import { admin, client, createSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { job } from "../helpers/jobs";

async function all(query: string) {
  const items: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: any = await admin("GET", `/admin/v1/audit?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.next_cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

describe("audit log", () => {
  it("records every admin change of an organization, newest first, without secrets", async () => {
    const site = await createSite({ plan: "agency", qa_mode: "separate" });
    const key = (await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "deploy" })).body;
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}/keys/${key.id}`)).status).toBe(204);
    expect((await admin("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [{ source: "Acme", language: "de", target: "Acme" }] })).status).toBe(200);
    // a held-back translation decided through the review queue
    const c = client(site.key);
    await c.put("/v1/units", unit("post:1", [{ key: "title", text: "Hello world", max_length: 12 }]));
    await job(c, site.siteId, { languages: ["de"] });
    const held = (await admin("GET", `/admin/v1/sites/${site.siteId}/attention`)).body.items[0];
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${held.id}`, { action: "fix", text: "Hallo Welt secret-text", confirm: true })).status).toBe(200); // too long for max_length: confirmed
    expect((await admin("DELETE", `/admin/v1/organizations/${site.orgId}/subscription`)).status).toBe(204);

    const { items, pages } = await all(`organization_id=${site.orgId}&limit=2`);
    expect(pages).toBe(5);
    expect(items.map((i) => [i.actor, i.action, i.target])).toEqual([
      ["admin", "subscription.delete", `organization:${site.orgId}`],
      ["admin", "attention.fix", `site:${site.siteId}`],
      // The operator read the queue's texts before deciding: a read row.
      ["admin", "attention.read", `site:${site.siteId}`],
      ["admin", "glossary.replace", `organization:${site.orgId}`],
      ["admin", "key.revoke", `site:${site.siteId}`],
      ["admin", "key.create", `site:${site.siteId}`],
      ["admin", "key.create", `site:${site.siteId}`],
      ["admin", "subscription.update", `organization:${site.orgId}`],
      ["admin", "site.create", `site:${site.siteId}`],
      ["admin", "organization.create", `organization:${site.orgId}`],
    ]);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(["action", "actor", "at", "detail", "target"]);
      expect(Date.parse(item.at)).not.toBeNaN();
    }
    expect(items[1].detail).toEqual({ result_id: held.id });
    expect(items[2].detail).toEqual({ items: 1 });
    expect(items[5].detail).toEqual({ key_id: key.id, name: "deploy" });
    expect(items[7].detail).toMatchObject({ plan: "agency", status: "active", sites: 1 });
    const text = JSON.stringify(items);
    for (const secret of [site.key, key.key, "secret-text", "Hello world"]) expect(text).not.toContain(secret);
  });

  it("without organization_id lists everyone's changes; cursors and limits are validated", async () => {
    const a = await createSite();
    const b = await createSite();
    const first = (await admin("GET", "/admin/v1/audit?limit=500")).body.items.map((i: any) => i.target);
    expect(first).toEqual(expect.arrayContaining([`site:${a.siteId}`, `site:${b.siteId}`]));
    const other = (await all(`organization_id=${b.orgId}`)).items;
    expect(other.every((i) => i.target !== `site:${a.siteId}`)).toBe(true);

    for (const [q, field] of [
      ["cursor=not-a-cursor", "cursor"],
      ["limit=0", "limit"],
      ["limit=501", "limit"],
      ["organization_id=abc", "organization_id"],
    ]) {
      const res = await admin("GET", `/admin/v1/audit?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.detail, q).toMatch(new RegExp(field));
    }
  });

  it("the dashboard's audit page takes the same opaque cursor as the admin API: one operation serves both doors", async () => {
    const site = await createSite();
    const owner = await person(site.orgId, "owner");
    for (const name of ["one", "two", "three"]) await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name });
    const first = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}&limit=2`)).body;
    expect(first.items.map((i: any) => i.detail?.name)).toEqual(["three", "two"]);
    expect(first.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const page = await dash("GET", `/dashboard/organizations/${site.orgId}/audit?cursor=${first.next_cursor}`, { cookie: owner.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain("name: one");
    expect(page.html).not.toContain("name: three");
    const bad = await dash("GET", `/dashboard/organizations/${site.orgId}/audit?cursor=not-a-cursor`, { cookie: owner.cookie });
    expect(bad.status).toBe(422);
  });
});

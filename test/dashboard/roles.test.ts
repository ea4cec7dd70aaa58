/** Dashboard roles (docs/dashboard.md "Roles"; docs/decisions.md "Accounts, the dashboard and mail"): editor ⊂ admin ⊂ owner; outsiders get 404; every action goes through the API's rules. */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, client, createSite, type TestSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { mailsTo } from "../helpers/mail";
import { stubOf } from "../helpers/site";

let site: TestSite;
let other: TestSite;
let owner: Awaited<ReturnType<typeof person>>;
let adminP: Awaited<ReturnType<typeof person>>;
let editor: Awaited<ReturnType<typeof person>>;
let outsider: Awaited<ReturnType<typeof person>>;

beforeAll(async () => {
  site = await createSite({ name: "Roles site", qa_mode: "separate" });
  other = await createSite({ name: "Someone else's site" });
  [owner, adminP, editor, outsider] = await Promise.all([person(site.orgId, "owner"), person(site.orgId, "admin"), person(site.orgId, "editor"), person(other.orgId, "owner")]);
});

const pages = (s: TestSite) => ({
  editor: [
    `/dashboard/sites/${s.siteId}`,
    `/dashboard/sites/${s.siteId}/units`,
    `/dashboard/sites/${s.siteId}/attention`,
    `/dashboard/organizations/${s.orgId}/usage`,
    `/dashboard/organizations/${s.orgId}/members`,
  ],
  admin: [
    `/dashboard/sites/${s.siteId}/keys`,
    `/dashboard/sites/${s.siteId}/settings`,
    `/dashboard/sites/${s.siteId}/glossary`,
    `/dashboard/sites/${s.siteId}/glossary.csv`,
    `/dashboard/sites/${s.siteId}/memory`,
    `/dashboard/sites/${s.siteId}/memory.tmx`,
  ],
  owner: [`/dashboard/organizations/${s.orgId}/audit`],
});

describe("who sees which page", () => {
  it("editors see sites, units, the review queue, usage and members; not keys, settings, glossary or the audit log", async () => {
    const p = pages(site);
    for (const path of p.editor) expect((await dash("GET", path, { cookie: editor.cookie })).status, path).toBe(200);
    for (const path of [...p.admin, ...p.owner]) {
      const res = await dash("GET", path, { cookie: editor.cookie });
      expect(res.status, path).toBe(403);
      expect(res.html).toContain("you are an editor here");
    }
  });

  it("admins also see keys, settings and the glossary; only owners see the audit log", async () => {
    const p = pages(site);
    for (const path of [...p.editor, ...p.admin]) expect((await dash("GET", path, { cookie: adminP.cookie })).status, path).toBe(200);
    expect((await dash("GET", p.owner[0], { cookie: adminP.cookie })).status).toBe(403);
    for (const path of [...p.editor, ...p.admin, ...p.owner]) expect((await dash("GET", path, { cookie: owner.cookie })).status, path).toBe(200);
  });

  it("another organization's pages answer 404, as do unknown ids", async () => {
    const p = pages(site);
    for (const path of [...p.editor, ...p.admin, ...p.owner]) {
      const res = await dash("GET", path, { cookie: outsider.cookie });
      expect(res.status, path).toBe(404);
      expect(res.html).not.toContain("Roles site");
    }
    for (const path of ["/dashboard/sites/999999", "/dashboard/sites/abc", "/dashboard/organizations/999999/usage"])
      expect((await dash("GET", path, { cookie: owner.cookie })).status, path).toBe(404);
    // and their actions too
    expect((await dash("POST", `/dashboard/sites/${site.siteId}/keys`, { cookie: outsider.cookie, form: { name: "x" } })).status).toBe(404);
  });

  it("the home page lists only the person's organizations and sites", async () => {
    const home = await dash("GET", "/dashboard", { cookie: editor.cookie });
    expect(home.html).toContain("Roles site");
    expect(home.html).not.toContain("Someone else&#39;s site");
    expect(home.html).not.toContain("Someone else's site");
  });
});

describe("actions check the role too", () => {
  it("an editor cannot create keys, change settings or edit the glossary", async () => {
    for (const [path, form] of [
      [`/dashboard/sites/${site.siteId}/keys`, { name: "x" }],
      [`/dashboard/sites/${site.siteId}/settings`, { name: "Hacked", languages: "0" }],
      [`/dashboard/sites/${site.siteId}/glossary`, { source: "a", language: "de", target: "b" }],
      [`/dashboard/organizations/${site.orgId}/members/invite`, { email: "x@example.com", role: "editor" }],
    ] as const)
      expect((await dash("POST", path, { cookie: editor.cookie, form })).status, path).toBe(403);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}`)).body.name).toBe("Roles site");
  });

  it("admins invite editors and admins but not owners; only owners remove members", async () => {
    const ok = await dash("POST", `/dashboard/organizations/${site.orgId}/members/invite`, { cookie: adminP.cookie, form: { email: "new-editor@example.com", role: "editor" } });
    // Delivered by mail only: the inviter is told it went out and never sees the link.
    expect(ok.status).toBe(303);
    const members0 = await dash("GET", ok.location!, { cookie: adminP.cookie });
    expect(members0.html).toContain("The invitation is on its way by mail.");
    const [mail] = await mailsTo("new-editor@example.com");
    const token = /https:\/\/dash\.test\/invitations#([A-Za-z0-9_-]{43})/.exec(mail.text)![1];
    expect(members0.html).not.toContain(token);
    const ownerInvite = await dash("POST", `/dashboard/organizations/${site.orgId}/members/invite`, { cookie: adminP.cookie, form: { email: "boss@example.com", role: "owner" } });
    expect(ownerInvite.status).toBe(403);
    const badEmail = await dash("POST", `/dashboard/organizations/${site.orgId}/members/invite`, { cookie: owner.cookie, form: { email: "nope", role: "editor" } });
    expect(badEmail.status).toBe(422);
    expect(badEmail.html).toContain("email: enter an email address");

    const victim = await person(site.orgId, "editor");
    const members = await dash("GET", `/dashboard/organizations/${site.orgId}/members`, { cookie: owner.cookie });
    const userId = new RegExp(`members/(\\d+)/remove"[^>]*>\\s*<button[^>]*aria-label="Remove ${victim.email.replace(/[.]/g, "\\.")}`).exec(members.html)?.[1];
    expect(userId).toBeDefined();
    expect((await dash("POST", `/dashboard/organizations/${site.orgId}/members/${userId}/remove`, { cookie: adminP.cookie })).status).toBe(403);
    expect((await dash("POST", `/dashboard/organizations/${site.orgId}/members/${userId}/remove`, { cookie: owner.cookie })).status).toBe(303);
    expect((await dash("GET", `/dashboard/sites/${site.siteId}`, { cookie: victim.cookie })).status).toBe(404);
  });

  it("keys: created and shown once, revoked with the API's effect, both in the audit log", async () => {
    const created = await dash("POST", `/dashboard/sites/${site.siteId}/keys`, { cookie: adminP.cookie, form: { name: "From the dashboard" } });
    const key = /value="(tsk_[^"]+)"/.exec(created.html)?.[1];
    expect(key).toBeDefined();
    expect((await client(key!).get("/v1/site")).status).toBe(200);
    const list = await dash("GET", `/dashboard/sites/${site.siteId}/keys`, { cookie: adminP.cookie });
    expect(list.html).not.toContain(key!);
    const keyId = (await admin("GET", `/admin/v1/sites/${site.siteId}/keys`)).body.keys.find((k: { name: string }) => k.name === "From the dashboard").id;
    expect((await dash("POST", `/dashboard/sites/${site.siteId}/keys/${keyId}/revoke`, { cookie: adminP.cookie })).status).toBe(303);
    expect((await client(key!).get("/v1/site")).status).toBe(401);
    const empty = await dash("POST", `/dashboard/sites/${site.siteId}/keys`, { cookie: adminP.cookie, form: { name: "" } });
    expect(empty.status).toBe(422);
    expect(empty.html).toContain("name ");
    const audit = await dash("GET", `/dashboard/organizations/${site.orgId}/audit`, { cookie: owner.cookie });
    expect(audit.html).toContain("key.create");
    expect(audit.html).toContain("key.revoke");
    expect(audit.html).toContain(adminP.email);
    expect(audit.html).not.toContain(key!);
  });
});

describe("the same rules as the API", () => {
  it("settings: a language made not writable is not writable for the connector at once; invalid input is a 422 naming the field", async () => {
    const form = {
      name: "Roles site",
      languages: "3",
      l0_code: "de",
      l0_engine: "pseudo",
      l0_formality: "formal",
      l0_writable: "1",
      l1_code: "fr",
      l1_engine: "pseudo",
      l1_formality: "default",
      l2_code: "",
      qa_mode: "separate",
      review_mode: "draft",
      adapters: ["wordpress"],
      engines: ["pseudo"],
    };
    const saved = await dash("POST", `/dashboard/sites/${site.siteId}/settings`, { cookie: adminP.cookie, form });
    expect(saved.status).toBe(303);
    const seen = (await client(site.key).get("/v1/site")).body;
    expect(seen.target_languages).toEqual([
      { code: "de", formality: "formal", engine: "pseudo", writable: true },
      { code: "fr", formality: "default", engine: "pseudo", writable: false },
    ]);
    expect(seen.enabled_adapters).toEqual(["wordpress"]);
    const bad = await dash("POST", `/dashboard/sites/${site.siteId}/settings`, { cookie: adminP.cookie, form: { ...form, l2_code: "not a language!", l2_engine: "pseudo" } });
    expect(bad.status).toBe(422);
    expect(bad.html).toMatch(/target_languages\[2\]\.code/);
    // restore for the next tests
    await dash("POST", `/dashboard/sites/${site.siteId}/settings`, {
      cookie: adminP.cookie,
      form: { ...form, l1_writable: "1", adapters: ["wordpress", "drupal", "wagtail", "strapi"] },
    });
  });

  it("jobs: estimate, then start; a site without a subscription is refused in plain words (402)", async () => {
    const c = client(site.key);
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "title", text: "Hello world", max_length: 12 },
        { key: "body", text: "A body text." },
      ]),
    );
    const estimate = await dash("POST", `/dashboard/sites/${site.siteId}/jobs/estimate`, { cookie: editor.cookie, form: { languages: ["de"] } });
    expect(estimate.status).toBe(200);
    expect(estimate.html).toContain("Start this job?");
    expect(estimate.html).toMatch(/Segments<\/dt><dd>2 /);
    expect((await c.get("/v1/jobs")).body).toEqual([]); // an estimate creates nothing
    const started = await dash("POST", `/dashboard/sites/${site.siteId}/jobs`, { cookie: editor.cookie, form: { languages: ["de"], confirm: "1" } });
    expect(started.status).toBe(303);
    const [job] = (await c.get("/v1/jobs")).body;
    expect(job).toMatchObject({ status: "queued", languages: ["de"], estimated_segments: 2 });
    expect(started.location).toBe(`/dashboard/sites/${site.siteId}?started=${job.id}`);
    while (await runDurableObjectAlarm(stubOf(site.siteId)));
    const overview = await dash("GET", started.location!, { cookie: editor.cookie });
    expect(overview.html).toContain(`Job #${job.id} finished: 2 of 2 segments translated, 1 of them held back for review.`);

    const unpaid = await createSite({ plan: null });
    const p = await person(unpaid.orgId, "editor");
    const refused = await dash("POST", `/dashboard/sites/${unpaid.siteId}/jobs/estimate`, { cookie: p.cookie, form: { languages: ["de"] } });
    expect(refused.status).toBe(402);
    expect(refused.html).toContain("Hosted translation is not available for this site");
  });

  it("the review queue: filtered as attention_url says, fixed through decideAttention", async () => {
    const c = client(site.key);
    const status = (await c.get("/v1/units/post:1/status")).body;
    const url = new URL(status.languages.find((l: { code: string }) => l.code === "de").attention_url);
    expect(url.origin + url.pathname).toBe(`https://dash.test/sites/${site.siteId}/attention`);
    const queue = await dash("GET", `/dashboard${url.pathname}${url.search}`, { cookie: editor.cookie });
    expect(queue.status).toBe(200);
    expect(queue.html).toContain("the limit is 12");
    const resultId = /attention\/(r_\d+)"/.exec(queue.html)?.[1];
    expect(resultId).toBeDefined();
    const elsewhere = await dash("GET", `/dashboard/sites/${site.siteId}/attention?unit=post:2`, { cookie: editor.cookie });
    expect(elsewhere.html).toContain("Nothing waits for review with these filters.");

    const fixed = await dash("POST", `/dashboard/sites/${site.siteId}/attention/${resultId}`, {
      cookie: editor.cookie,
      form: { action: "fix", text: "Hallo Welt", back: `/dashboard/sites/${site.siteId}/attention?unit=post%3A1&language=de` },
    });
    expect(fixed.status).toBe(303);
    expect(fixed.location).toBe(`/dashboard/sites/${site.siteId}/attention?unit=post%3A1&language=de&done=fixed`);
    expect((await c.get("/v1/units/post:1/status")).body.segments.find((s: { key: string }) => s.key === "title").states.de).toBe("ok");
    expect((await c.get("/v1/attention")).body.items).toEqual([]);
    const again = await dash("POST", `/dashboard/sites/${site.siteId}/attention/${resultId}`, { cookie: editor.cookie, form: { action: "discard" } });
    expect(again.status).toBe(404);

    const unitPage = await dash("GET", `/dashboard/sites/${site.siteId}/units/post%3A1`, { cookie: editor.cookie });
    expect(unitPage.html).toContain("Hallo Welt");
    expect(unitPage.html).toContain("A body text.");
  });

  it("glossary: add with the admin PUT's rules, CSV export and import (all or nothing)", async () => {
    const base = `/dashboard/sites/${site.siteId}/glossary`;
    expect((await dash("POST", base, { cookie: adminP.cookie, form: { source: "Widget", language: "de", target: "Widget", case_sensitive: "1" } })).status).toBe(303);
    const tooLong = await dash("POST", base, { cookie: adminP.cookie, form: { source: "x".repeat(501), language: "de", target: "y" } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.html).toMatch(/source /);
    const csv = await dash("GET", `${base}.csv`, { cookie: adminP.cookie });
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.html).toBe("source,language,target,case_sensitive\r\nWidget,de,Widget,true\r\n");

    const upload = (text: string) => {
      const f = new FormData();
      f.append("file", new File([text], "g.csv", { type: "text/csv" }));
      return dash("POST", `${base}/import`, { cookie: adminP.cookie, form: f });
    };
    const bad = await upload('source,language,target\n"Cart, big",fr,Panier\n,de,leer\n');
    expect(bad.status).toBe(422);
    expect(bad.html).toContain("file: line 3: source");
    expect((await dash("GET", `${base}.csv`, { cookie: adminP.cookie })).html).toContain("Widget"); // unchanged
    expect((await upload('source,language,target\n"Cart, big",fr,Panier\n=cmd,de,x\n')).status).toBe(303);
    const after = (await dash("GET", `${base}.csv`, { cookie: adminP.cookie })).html;
    expect(after).toBe('source,language,target,case_sensitive\r\n"\'=cmd",de,x,false\r\n"Cart, big",fr,Panier,false\r\n');
  });

  it("usage: the month's figures and a per-day SVG chart", async () => {
    const page = await dash("GET", `/dashboard/organizations/${site.orgId}/usage`, { cookie: editor.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<svg[^>]*role="img"/);
    const today = new Date().toISOString().slice(0, 10);
    expect(page.html).toMatch(new RegExp(`<rect [^>]*height="[1-9][^"]*"[^>]*class="bar"><title>${today}: [\\d,]+ characters</title>`));
    expect((await dash("GET", `/dashboard/organizations/${site.orgId}/usage?month=2026-13`, { cookie: editor.cookie })).status).toBe(422);
  });

  it("owners delete a site after typing its name; others cannot", async () => {
    const doomed = await createSite({ name: "Doomed site" });
    const o = await person(doomed.orgId, "owner");
    const a = await person(doomed.orgId, "admin");
    expect((await dash("POST", `/dashboard/sites/${doomed.siteId}/erase`, { cookie: a.cookie, form: { confirm_name: "Doomed site" } })).status).toBe(403);
    const typo = await dash("POST", `/dashboard/sites/${doomed.siteId}/erase`, { cookie: o.cookie, form: { confirm_name: "Doomed" } });
    expect(typo.status).toBe(422);
    expect((await client(doomed.key).get("/v1/site")).status).toBe(200);
    expect((await dash("POST", `/dashboard/sites/${doomed.siteId}/erase`, { cookie: o.cookie, form: { confirm_name: "Doomed site" } })).status).toBe(303);
    expect((await client(doomed.key).get("/v1/site")).status).toBe(401);
    expect((await dash("GET", `/dashboard/sites/${doomed.siteId}`, { cookie: o.cookie })).status).toBe(404);
  });

  it("owners delete the organization after typing its name; its people without another organization leave with it", async () => {
    const doomed = await createSite({ name: "Org-doomed site" });
    const o = await person(doomed.orgId, "owner");
    const a = await person(doomed.orgId, "admin");
    const orgName = /<strong>([^<]+)<\/strong><\/p>\s*<nav aria-label="Organization"|› <strong>([^<]+)<\/strong>/.exec(
      (await dash("GET", `/dashboard/organizations/${doomed.orgId}/members`, { cookie: o.cookie })).html,
    );
    const name = orgName?.[1] ?? orgName?.[2];
    expect(name).toBeDefined();
    expect((await dash("POST", `/dashboard/organizations/${doomed.orgId}/erase`, { cookie: a.cookie, form: { confirm_name: name! } })).status).toBe(403);
    expect((await dash("POST", `/dashboard/organizations/${doomed.orgId}/erase`, { cookie: o.cookie, form: { confirm_name: "wrong" } })).status).toBe(422);
    const erased = await dash("POST", `/dashboard/organizations/${doomed.orgId}/erase`, { cookie: o.cookie, form: { confirm_name: name! } });
    expect(erased.status).toBe(303);
    expect((await client(doomed.key).get("/v1/site")).status).toBe(401);
    expect((await dash("GET", `/dashboard/sites/${doomed.siteId}`, { cookie: o.cookie })).status).toBe(303); // signed out: the account left with it
  });
});

describe("units", () => {
  it("lists units that need work by default, every unit with show=all", async () => {
    const s = await createSite({ name: "Units site" });
    const e = await person(s.orgId, "editor");
    const c = client(s.key);
    await c.put("/v1/units", unit("page:done", [{ key: "t", text: "Hi", translations: { de: "Hallo", fr: "Salut" } }]));
    await c.put("/v1/units", unit("page:todo", [{ key: "t", text: "Bye" }]));
    const work = await dash("GET", `/dashboard/sites/${s.siteId}/units`, { cookie: e.cookie });
    expect(work.html).toContain("page:todo");
    expect(work.html).not.toContain("page:done");
    const all = await dash("GET", `/dashboard/sites/${s.siteId}/units?show=all`, { cookie: e.cookie });
    expect(all.html).toContain("page:todo");
    expect(all.html).toMatch(/page:done[\s\S]*<strong>de<\/strong>:\s*up to date/);
    const paged = await dash("GET", `/dashboard/sites/${s.siteId}/units?show=all&prefix=page:d`, { cookie: e.cookie });
    expect(paged.html).toContain("page:done");
    expect(paged.html).not.toContain("page:todo");
  });
});

describe("small things", () => {
  it("/dashboard/ redirects to /dashboard; a refused form links back only to a dashboard page", async () => {
    const slash = await dash("GET", "/dashboard/");
    expect(slash.status).toBe(301);
    expect(slash.location).toBe("/dashboard");
    const back = await dash("POST", `/dashboard/sites/${site.siteId}/keys`, {
      cookie: editor.cookie,
      form: { name: "x" },
      headers: { referer: `https://api.test/dashboard/sites/${site.siteId}` },
    });
    expect(back.html).toContain(`href="/dashboard/sites/${site.siteId}"`);
    const evil = await dash("POST", `/dashboard/sites/${site.siteId}/keys`, { cookie: editor.cookie, form: { name: "x" }, headers: { referer: "javascript:alert(1)" } });
    expect(evil.html).not.toContain("javascript:");
  });
});

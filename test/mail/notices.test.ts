/** The mails about work, as the cron sends them: job finished, the review-queue digest, usage at 80 % / 100 %; each with its recipients and preferences. */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { usageLedger } from "../../src/control/schema";
import { jobFinishedMails, reviewDigestMails, usageMails } from "../../src/ops/notices.ops";
import { client, createSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { mailsTo } from "../helpers/mail";
import { stubOf } from "../helpers/site";

const BASE = "https://dash.test";

/** A site whose job holds one translation back for review (max_length 12 in qa_mode separate), started in the dashboard by `starter`. */
async function siteWithReview() {
  const site = await createSite({ qa_mode: "separate" });
  const starter = await person(site.orgId, "editor");
  await client(site.key).put(
    "/v1/units",
    unit("post:1", [
      { key: "title", text: "Hello world", max_length: 12 },
      { key: "body", text: "A body text." },
    ]),
  );
  const started = await dash("POST", `/dashboard/sites/${site.siteId}/jobs`, { cookie: starter.cookie, form: { languages: ["de"], confirm: "1" } });
  expect(started.status).toBe(303);
  return { site, starter };
}

describe("job finished", () => {
  it("goes to the person who started the job in the dashboard, once, when it has ended; not while it runs; not when turned off", async () => {
    const { site, starter } = await siteWithReview();
    await jobFinishedMails(env, BASE);
    expect(await mailsTo(starter.email, 0, "job_finished")).toEqual([]); // still queued
    while (await runDurableObjectAlarm(stubOf(site.siteId)));
    await jobFinishedMails(env, BASE);
    await jobFinishedMails(env, BASE);
    const mails = await mailsTo(starter.email, 1, "job_finished");
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toMatch(/2 of 2 segments were translated, 1 of them held back for review/);
    expect(mails[0].text).toContain(`${BASE}/sites/${site.siteId}`);
    // Jobs started through the API mail no one; other members get nothing.
    const other = await person(site.orgId, "editor");
    expect(await mailsTo(other.email, 0, "job_finished")).toEqual([]);

    // Turned off on the account page: no mail.
    const quiet = await siteWithReview();
    expect((await dash("POST", "/dashboard/account/mail", { cookie: quiet.starter.cookie, form: { mail: ["review_digest", "usage"] } })).status).toBe(303);
    expect((await dash("GET", "/dashboard/account", { cookie: quiet.starter.cookie })).html).toMatch(/value="job_finished"\s*\/?>/);
    while (await runDurableObjectAlarm(stubOf(quiet.site.siteId)));
    await jobFinishedMails(env, BASE);
    expect(await mailsTo(quiet.starter.email, 0, "job_finished")).toEqual([]);
  });
});

describe("review-queue digest", () => {
  it("goes daily to members of sites with translations held back, only when there are any, and not to those who turned it off", async () => {
    const { site, starter } = await siteWithReview();
    const owner = await person(site.orgId, "owner");
    const off = await person(site.orgId, "admin");
    await dash("POST", "/dashboard/account/mail", { cookie: off.cookie, form: { mail: ["job_finished"] } });
    const calm = await createSite(); // nothing waiting there
    const calmMember = await person(calm.orgId, "editor");
    while (await runDurableObjectAlarm(stubOf(site.siteId)));

    const day = new Date(Date.UTC(2031, 0, 5, 7, 30));
    await reviewDigestMails(env, BASE, day);
    await reviewDigestMails(env, BASE, day); // the same day: nothing more
    for (const p of [starter, owner]) {
      const mails = await mailsTo(p.email, 1, "review_digest");
      expect(mails, p.email).toHaveLength(1);
      expect(mails[0].text).toMatch(/: 1 waiting/);
      expect(mails[0].text).toContain(`${BASE}/sites/${site.siteId}/attention`);
    }
    expect(await mailsTo(off.email, 0, "review_digest")).toEqual([]);
    expect(await mailsTo(calmMember.email, 0, "review_digest")).toEqual([]);
    // The next day, again.
    await reviewDigestMails(env, BASE, new Date(Date.UTC(2031, 0, 6, 8)));
    expect(await mailsTo(owner.email, 2, "review_digest")).toHaveLength(2);
  });
});

describe("usage at 80 % and 100 %", () => {
  it("goes to owners once a month for each threshold", async () => {
    const site = await createSite({ plan: "pro", included_characters: 1000 });
    const owner = await person(site.orgId, "owner");
    const editor = await person(site.orgId, "editor");
    const db = controlDb(env.DB);
    const at = new Date(Date.UTC(2031, 2, 10));
    const spend = (slice: number, characters: number) =>
      db.insert(usageLedger).values({ organizationId: site.orgId, siteId: site.siteId, jobId: 9999, slice, characters, month: "2031-03-01", createdAt: at.toISOString() });

    await spend(1, 700);
    await usageMails(env, BASE, at);
    expect(await mailsTo(owner.email, 0, "usage")).toEqual([]); // 70 %
    await spend(2, 150);
    await usageMails(env, BASE, at);
    await usageMails(env, BASE, at);
    let mails = await mailsTo(owner.email, 1, "usage");
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toContain("80 %");
    await spend(3, 200);
    await usageMails(env, BASE, at);
    await usageMails(env, BASE, at);
    mails = await mailsTo(owner.email, 2, "usage");
    expect(mails).toHaveLength(2);
    expect(mails[1].subject).toContain("100 %");
    expect(mails[1].text).toContain("overage");
    expect(await mailsTo(editor.email, 0, "usage")).toEqual([]); // owners only
  });
});

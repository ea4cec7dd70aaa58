/**
 * Mails about work, sent by the Worker's cron (every 15 minutes, `mailTick`): a job started
 * in the dashboard has ended (to whoever started it), the daily review-queue digest (from
 * 07:00 UTC, to members of sites with translations held back, only when there are any), and
 * usage at 80 % / 100 % of the included volume (owners, once a month each). Each goes once
 * (`mail_once` keys) and only to people who have not turned that kind off.
 *
 * Billing problems (payment failed, subscription inactive) come with billing ("Owners manage
 * billing"): `billingProblemMails` is the hook its webhook handler calls.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import { organizationUsage } from "../billing/usage";
import { type ControlDb, controlDb } from "../control/db";
import { jobStarters, mailOnce, memberships, organizations, sites, subscriptions, users } from "../control/schema";
import { getSite, siteSettingsOf } from "../control/sites";
import { siteStub } from "../site/stub";
import type { Mail, OptionalKind } from "./message";
import { compose, quoted } from "./message";
import { retryMails, sendMails } from "./send";
import { digestMail, jobFinishedMail, usageMail } from "./templates";

const ENDED = new Set(["succeeded", "failed", "cancelled"]);
export const DIGEST_HOUR_UTC = 7;

/** Remembers who started a job in the dashboard, to mail them when it ends. */
export async function rememberStarter(env: Env, siteId: number, jobId: number, userId: number, now = new Date()) {
  await controlDb(env.DB).insert(jobStarters).values({ siteId, jobId, userId, createdAt: now.toISOString() }).onConflictDoNothing();
}

/** Marks a once-only mail as sent; false when it was already (so it is never sent twice, even by two crons at once). */
async function once(db: ControlDb, key: string, now: Date) {
  const rows = await db.insert(mailOnce).values({ key, createdAt: now.toISOString() }).onConflictDoNothing().returning({ key: mailOnce.key });
  return rows.length > 0;
}

/** The people (id → email) among `userIds` who get mails of `kind`. */
async function recipients(db: ControlDb, userIds: number[], kind: OptionalKind) {
  if (!userIds.length) return new Map<number, string>();
  const rows = await db.select({ id: users.id, email: users.email, out: users.mailOptOut }).from(users).where(inArray(users.id, userIds));
  return new Map(rows.filter((r) => !(r.out ?? []).includes(kind)).map((r) => [r.id, r.email]));
}

export async function jobFinishedMails(env: Env, base: string, now = new Date()) {
  const db = controlDb(env.DB);
  const open = await db.select().from(jobStarters).where(isNull(jobStarters.notifiedAt)).limit(100);
  const mails: Mail[] = [];
  for (const row of open) {
    const site = await getSite(db, row.siteId);
    const job = site
      ? await siteStub(env, site.id)
          .getJob(site, row.jobId)
          .catch(() => null)
      : null;
    if (site && job && !ENDED.has(job.status)) continue;
    await db
      .update(jobStarters)
      .set({ notifiedAt: now.toISOString() })
      .where(and(eq(jobStarters.siteId, row.siteId), eq(jobStarters.jobId, row.jobId)));
    if (!site || !job) continue;
    const to = (await recipients(db, [row.userId], "job_finished")).get(row.userId);
    if (!to || !(await once(db, `job:${row.siteId}:${row.jobId}`, now))) continue;
    mails.push(
      jobFinishedMail(to, {
        site: site.name,
        jobId: job.id,
        status: job.status,
        done: job.done_segments,
        total: job.estimated_segments,
        held: job.qa_failed_segments,
        link: `${base}/sites/${site.id}`,
      }),
    );
  }
  await sendMails(env, mails, now);
  return mails.length;
}

/** The day's digest: per person, the sites of theirs with translations waiting in the review queue. */
export async function reviewDigestMails(env: Env, base: string, now = new Date()) {
  const db = controlDb(env.DB);
  const day = now.toISOString().slice(0, 10);
  if (!(await once(db, `digest-run:${day}`, now))) return 0;
  // Every site with its settings in one D1 query; then one status call per site object.
  const rows = await db.select({ site: sites, organization: organizations.name }).from(sites).innerJoin(organizations, eq(organizations.id, sites.organizationId));
  const waiting: { siteId: number; organizationId: number; name: string; count: number }[] = [];
  for (const row of rows) {
    const site = siteSettingsOf(row.site, row.organization);
    const status = await siteStub(env, site.id)
      .status(site, "")
      .catch(() => null);
    const count = status?.languages.reduce((a, l) => a + l.attention, 0) ?? 0;
    if (count > 0) waiting.push({ siteId: site.id, organizationId: site.organizationId, name: site.name, count });
  }
  if (!waiting.length) return 0;
  const members = await db
    .select({ userId: memberships.userId, organizationId: memberships.organizationId })
    .from(memberships)
    .where(inArray(memberships.organizationId, [...new Set(waiting.map((w) => w.organizationId))]));
  const to = await recipients(db, [...new Set(members.map((m) => m.userId))], "review_digest");
  const mails: Mail[] = [];
  for (const [userId, email] of to) {
    const orgs = new Set(members.filter((m) => m.userId === userId).map((m) => m.organizationId));
    const sites = waiting.filter((w) => orgs.has(w.organizationId)).map((w) => ({ name: w.name, count: w.count, link: `${base}/sites/${w.siteId}/attention` }));
    if (sites.length && (await once(db, `digest:${userId}:${day}`, now))) mails.push(digestMail(email, { sites, account: `${base}/account` }));
  }
  await sendMails(env, mails, now);
  return mails.length;
}

/** Owners hear once a month when the organization passes 80 % and 100 % of its included volume. */
export async function usageMails(env: Env, base: string, now = new Date()) {
  const db = controlDb(env.DB);
  const month = now.toISOString().slice(0, 7);
  const orgs = await db
    .select({ id: subscriptions.organizationId, name: organizations.name })
    .from(subscriptions)
    .innerJoin(organizations, eq(organizations.id, subscriptions.organizationId));
  const mails: Mail[] = [];
  for (const org of orgs) {
    const usage = await organizationUsage(db, org.id, month);
    if (!usage.included_characters) continue;
    const percent = usage.used_characters >= usage.included_characters ? 100 : usage.used_characters >= 0.8 * usage.included_characters ? 80 : null;
    if (!percent) continue;
    const owners = await db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.organizationId, org.id), eq(memberships.role, "owner")));
    const to = await recipients(
      db,
      owners.map((o) => o.userId),
      "usage",
    );
    // Passing 100 % also settles 80 % (one mail, not two, when both are crossed at once).
    const fresh = await once(db, `usage:${org.id}:${month}:${percent}`, now);
    if (percent === 100) await once(db, `usage:${org.id}:${month}:80`, now);
    if (!fresh) continue;
    for (const email of to.values())
      mails.push(
        usageMail(email, {
          organization: org.name,
          percent,
          used: usage.used_characters,
          included: usage.included_characters,
          month,
          link: `${base}/organizations/${org.id}/usage`,
        }),
      );
  }
  await sendMails(env, mails, now);
  return mails.length;
}

/** The hook for billing's webhook: mails the organization's owners (who have not turned it off) about a payment problem. */
export async function billingProblemMails(env: Env, organizationId: number, problem: string, base: string, now = new Date()) {
  const db = controlDb(env.DB);
  const org = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId)).get();
  if (!org) return 0;
  const owners = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, "owner")));
  const to = await recipients(
    db,
    owners.map((o) => o.userId),
    "billing",
  );
  const mails = [...to.values()].map((email) =>
    compose("billing", email, `Billing problem for ${quoted(org.name)}`, [
      `${org.name}: ${problem}`,
      { link: `${base}/organizations/${organizationId}/billing`, label: "Open billing" },
    ]),
  );
  await sendMails(env, mails, now);
  return mails.length;
}

/** One cron run: retry failed sends, then the work mails. Links need DASHBOARD_URL (there is no request to take an origin from). */
export async function mailTick(env: Env, now = new Date()) {
  const base = (env.DASHBOARD_URL ?? "").replace(/\/+$/, "") || "/dashboard";
  const retried = await retryMails(env);
  const jobs = await jobFinishedMails(env, base, now);
  const usage = await usageMails(env, base, now);
  const digests = now.getUTCHours() >= DIGEST_HOUR_UTC ? await reviewDigestMails(env, base, now) : 0;
  return { retried, jobs, usage, digests };
}

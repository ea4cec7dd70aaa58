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
import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { type OrganizationUsage, organizationsUsage } from "../billing/organization-usage";
import { QueryBudget } from "../control/budget.control";
import { readCursor, saveCursor } from "../control/cron-cursors.control";
import { type ControlDb, controlDb, idList } from "../control/db";
import { jobStarters, mailOnce, memberships, organizations, sites, subscriptions, users } from "../control/schema";
import { getSite, siteSettingsOf } from "../control/sites.control";
import type { Mail, OptionalKind } from "../mail/message";
import { compose, quoted } from "../mail/message";
import { retryMails, sendMails } from "../mail/send";
import { digestMail, jobFinishedMail, usageMail } from "../mail/templates";
import { siteStub } from "../site/stub";

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

/** Marks several once-only mails as sent (40 a statement: D1 binds at most 100 parameters); answers the keys that were not sent before. */
async function onceAll(db: ControlDb, keys: string[], now: Date) {
  const fresh = new Set<string>();
  for (let i = 0; i < keys.length; i += 40) {
    const rows = await db
      .insert(mailOnce)
      .values(keys.slice(i, i + 40).map((key) => ({ key, createdAt: now.toISOString() })))
      .onConflictDoNothing()
      .returning({ key: mailOnce.key });
    for (const r of rows) fresh.add(r.key);
  }
  return fresh;
}

/** The people (id → email) among `userIds` who get mails of `kind`. */
async function recipients(db: ControlDb, userIds: number[], kind: OptionalKind) {
  if (!userIds.length) return new Map<number, string>();
  const rows = await db
    .select({ id: users.id, email: users.email, out: users.mailOptOut })
    .from(users)
    .where(inArray(users.id, idList(userIds)));
  return new Map(rows.filter((r) => !(r.out ?? []).includes(kind)).map((r) => [r.id, r.email]));
}

/** D1 queries one job's mail costs at most (the site, the mark, the recipient, the once key, and slack). */
const JOB_MAIL_QUERIES = 8;

export async function jobFinishedMails(env: Env, base: string, now = new Date(), budget = unbounded()) {
  const db = controlDb(env.DB);
  const open = await db.select().from(jobStarters).where(isNull(jobStarters.notifiedAt)).limit(100);
  const mails: Mail[] = [];
  for (const row of open) {
    if (!budget.allows(JOB_MAIL_QUERIES)) break;
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

/** Sites whose review queues one digest invocation reads at most (one site-object call each). */
const DIGEST_SITES_PER_RUN = 500;
/** D1 queries one organization's digest costs at most: its members, their preferences, a once key per person (bounded by the page's slack). */
const DIGEST_QUERIES_PER_ORGANIZATION = 12;

/**
 * The day's digest: per person and organization, the organization's sites with translations
 * waiting in the review queue. Organizations are taken in id order after the day's cursor
 * (`digest:<day>`), as many as the budget and DIGEST_SITES_PER_RUN allow; the cursor becomes -1
 * when the day's pass is done. Answers the mails sent and the organizations left.
 */
export async function reviewDigestMails(env: Env, base: string, now = new Date(), budget = unbounded()) {
  const db = controlDb(env.DB);
  const day = now.toISOString().slice(0, 10);
  const name = `digest:${day}`;
  let after = await readCursor(db, name);
  if (after < 0) return { sent: 0, left: 0 };
  let sent = 0;
  let siteCalls = 0;
  let done = false;
  while (!done && budget.allows(3 + DIGEST_QUERIES_PER_ORGANIZATION) && siteCalls < DIGEST_SITES_PER_RUN) {
    const orgs = await db
      .select({ id: organizations.id, name: organizations.name })
      .from(organizations)
      .where(gt(organizations.id, after))
      .orderBy(asc(organizations.id))
      .limit(Math.min(50, Math.floor((budget.left() - 3) / DIGEST_QUERIES_PER_ORGANIZATION)));
    if (!orgs.length) {
      done = true;
      break;
    }
    const rows = await db
      .select()
      .from(sites)
      .where(
        inArray(
          sites.organizationId,
          orgs.map((o) => o.id),
        ),
      );
    for (const org of orgs) {
      const own = rows.filter((r) => r.organizationId === org.id);
      if (siteCalls + own.length > DIGEST_SITES_PER_RUN && siteCalls > 0) break;
      if (!budget.allows(DIGEST_QUERIES_PER_ORGANIZATION)) break;
      siteCalls += own.length;
      sent += await organizationDigest(env, db, base, day, now, org.name, own);
      after = org.id;
    }
    if (after !== orgs[orgs.length - 1].id) break;
  }
  await saveCursor(db, name, done ? -1 : after, now);
  const left = done ? 0 : ((await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM ${organizations} WHERE ${organizations.id} > ${after}`))?.n ?? 0);
  return { sent, left };
}

/** One organization's digest to each of its members who want it (once a day). */
async function organizationDigest(env: Env, db: ControlDb, base: string, day: string, now: Date, organization: string, rows: (typeof sites.$inferSelect)[]) {
  const waiting: { siteId: number; name: string; count: number }[] = [];
  for (const row of rows) {
    const site = siteSettingsOf(row, organization);
    const status = await siteStub(env, site.id)
      .status(site, "")
      .catch(() => null);
    const count = status?.languages.reduce((a, l) => a + l.attention, 0) ?? 0;
    if (count > 0) waiting.push({ siteId: site.id, name: site.name, count });
  }
  if (!waiting.length) return 0;
  const members = await db.select({ userId: memberships.userId }).from(memberships).where(eq(memberships.organizationId, rows[0].organizationId));
  const to = await recipients(
    db,
    members.map((m) => m.userId),
    "review_digest",
  );
  const mails: Mail[] = [];
  const key = (userId: number) => `digest:${userId}:${rows[0].organizationId}:${day}`;
  const fresh = await onceAll(db, [...to.keys()].map(key), now);
  for (const [userId, email] of to)
    if (fresh.has(key(userId)))
      mails.push(digestMail(email, { sites: waiting.map((w) => ({ name: w.name, count: w.count, link: `${base}/sites/${w.siteId}/attention` })), account: `${base}/account` }));
  await sendMails(env, mails, now);
  return mails.length;
}

/** Organizations one usage page checks, and the D1 queries the page costs at most: the page, their usage (6), once keys (5), owners, preferences, the outbox, and slack. */
const USAGE_PAGE = 100;
const USAGE_PAGE_QUERIES = 20;

/**
 * Owners hear once a month when the organization passes 80 % and 100 % of its included volume.
 * Subscribed organizations are taken a page at a time in id order after the `usage_mails`
 * cursor (a page costs the same few queries whatever its size), as many pages as the budget
 * allows; a pass that reaches the end starts over on the next run. Answers the mails sent and the
 * organizations left in this pass.
 */
export async function usageMails(env: Env, base: string, now = new Date(), budget = unbounded()) {
  const db = controlDb(env.DB);
  const month = now.toISOString().slice(0, 7);
  let after = await readCursor(db, "usage_mails");
  let sent = 0;
  let end = false;
  while (budget.allows(2 + USAGE_PAGE_QUERIES)) {
    const orgs = await db
      .select({ id: subscriptions.organizationId, name: organizations.name })
      .from(subscriptions)
      .innerJoin(organizations, eq(organizations.id, subscriptions.organizationId))
      .where(gt(subscriptions.organizationId, after))
      .orderBy(asc(subscriptions.organizationId))
      .limit(USAGE_PAGE);
    if (!orgs.length) {
      end = true;
      break;
    }
    sent += await usagePageMails(env, db, base, month, now, orgs);
    after = orgs[orgs.length - 1].id;
  }
  await saveCursor(db, "usage_mails", end ? 0 : after, now);
  const left = end ? 0 : ((await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM ${subscriptions} WHERE ${subscriptions.organizationId} > ${after}`))?.n ?? 0);
  return { sent, left };
}

async function usagePageMails(env: Env, db: ControlDb, base: string, month: string, now: Date, orgs: { id: number; name: string }[]) {
  const usages = await organizationsUsage(
    db,
    orgs.map((o) => o.id),
    month,
  );
  const crossed: { org: { id: number; name: string }; percent: 80 | 100; usage: OrganizationUsage }[] = [];
  for (const org of orgs) {
    const usage = usages.get(org.id)!;
    if (!usage.included_characters) continue;
    const percent = usage.used_characters >= usage.included_characters ? 100 : usage.used_characters >= 0.8 * usage.included_characters ? 80 : null;
    if (percent) crossed.push({ org, percent, usage });
  }
  if (!crossed.length) return 0;
  // Passing 100 % also settles 80 % (one mail, not two, when both are crossed at once).
  const key = (id: number, percent: number) => `usage:${id}:${month}:${percent}`;
  const fresh = await onceAll(
    db,
    crossed.flatMap((c) => (c.percent === 100 ? [key(c.org.id, 100), key(c.org.id, 80)] : [key(c.org.id, 80)])),
    now,
  );
  const due = crossed.filter((c) => fresh.has(key(c.org.id, c.percent)));
  if (!due.length) return 0;
  const owners = await db
    .select({ userId: memberships.userId, org: memberships.organizationId })
    .from(memberships)
    .where(and(inArray(memberships.organizationId, idList(due.map((c) => c.org.id))), eq(memberships.role, "owner")));
  const to = await recipients(db, [...new Set(owners.map((o) => o.userId))], "usage");
  const mails: Mail[] = [];
  for (const { org, percent, usage } of due)
    for (const owner of owners.filter((o) => o.org === org.id)) {
      const email = to.get(owner.userId);
      if (email)
        mails.push(
          usageMail(email, {
            organization: org.name,
            percent,
            used: usage.used_characters,
            included: usage.included_characters as number,
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

/**
 * One cron run: retry failed sends, then the work mails, each within what is left of `budget`
 * (the invocation's D1 queries). Links need DASHBOARD_URL (there is no request to take an origin from).
 */
export async function mailTick(env: Env, now = new Date(), budget = unbounded()) {
  const base = (env.DASHBOARD_URL ?? "").replace(/\/+$/, "") || "/dashboard";
  const retried = await retryMails(env, 50, budget);
  const jobs = await jobFinishedMails(env, base, now, budget);
  const usage = await usageMails(env, base, now, budget);
  const digests = now.getUTCHours() >= DIGEST_HOUR_UTC ? await reviewDigestMails(env, base, now, budget) : { sent: 0, left: 0 };
  return { retried, jobs, usage, digests };
}

const unbounded = () => new QueryBudget(Number.POSITIVE_INFINITY);

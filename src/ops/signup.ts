/**
 * Self-serve sign-up (DESIGN.md "Accounts and email", sign-up): the account (unverified until
 * its mail's link is followed), the organization its person owns, further sites, and the first
 * API key. `SIGNUP=open` switches it on; the default `invite` keeps entry by invitation only.
 */
import { eq } from "drizzle-orm";
import { validationDetail } from "../api/issues";
import { OrganizationIn, SiteCreateIn } from "../api/schemas";
import { claimToken, closeTokensStatement, issueToken } from "../control/account-tokens";
import { auditStatement } from "../control/audit";
import { controlDb } from "../control/db";
import { MAIL_LIMITS, spendMailBudget } from "../control/mail-budget";
import { hashPassword } from "../control/passwords";
import { findUser, normalizeEmail, passwordProblem } from "../control/people";
import { memberships, organizations, users } from "../control/schema";
import { engineConfiguration } from "../engines/registry";
import { ApiError } from "../errors";
import { ENGINES, type EngineName } from "../limits";
import { sendMail } from "../mail/send";
import { alreadyRegisteredMail, verifyMail } from "../mail/templates";
import { log } from "../obs/log";
import { LINK_WORDS } from "./accounts";
import type { Actor } from "./actor";
import { createKey } from "./keys";
import { createSite } from "./sites";

export const signupOpen = (env: Env) => env.SIGNUP === "open";
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface SignUpInput {
  email: string;
  name: string;
  password: string;
}

/** The form's problems (the same rules whether or not the address is taken), as a sentence naming the field, or null. */
export function signUpProblem(input: SignUpInput): string | null {
  if (!EMAIL.test(input.email.trim()) || input.email.length > 254) return "email: enter an email address, like name@example.com.";
  if (!input.name.trim() || input.name.length > 100) return "name: enter your name (at most 100 characters).";
  return passwordProblem(input.password);
}

/**
 * Makes the unverified account and mails its verification link (24 hours); an address that
 * already has an account gets a mail saying so instead, and nothing changes. The door shows
 * the same page in both cases and runs this after answering (`waitUntil`).
 */
export async function signUp(env: Env, input: SignUpInput, base: string, now = new Date()) {
  const db = controlDb(env.DB);
  const email = normalizeEmail(input.email);
  const existing = await findUser(db, email);
  if (existing) {
    // At most MAIL_LIMITS.alreadyRegistered a day per address; beyond it nothing is sent, and the page says the same (it never tells).
    const spent = await spendMailBudget(db, [{ key: `registered:${email}`, max: MAIL_LIMITS.alreadyRegistered }], now);
    if (spent.ok) await sendMail(env, alreadyRegisteredMail(email, { signIn: base, forgot: `${base}/forgot` }), now);
    else log("info", "mail.limited", { kind: "already_registered", user_id: existing.id });
    return;
  }
  const inserted = await db
    .insert(users)
    .values({ email, name: input.name.trim(), passwordHash: await hashPassword(input.password), createdAt: now.toISOString() })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (!inserted.length) return; // the same address signed up twice at once: the first one's mail is on its way
  await db.batch([auditStatement(db, { organizationId: null, actor: `user:${inserted[0].id}`, action: "user.sign_up", target: `user:${inserted[0].id}` }, now)]);
  await sendVerification(env, inserted[0].id, email, base, now);
}

export async function sendVerification(env: Env, userId: number, email: string, base: string, now = new Date()) {
  const token = await issueToken(controlDb(env.DB), "verify", userId, now);
  await sendMail(env, verifyMail(email, { link: `${base}/verify/${token}` }), now);
}

/** Follows a verification link (once, within 24 hours): the address is verified; answers the person. */
export async function verifyEmail(env: Env, token: string, now = new Date()) {
  const db = controlDb(env.DB);
  const claimed = await claimToken(db, "verify", token, now);
  if (claimed.state !== "open")
    throw new ApiError(410, claimed.state === "expired" ? "This link has expired (verification links work for 24 hours). Sign in to get a new one." : LINK_WORDS[claimed.state]);
  // Any other verification link of the person stops working with this one.
  const [[user]] = await db.batch([
    db.update(users).set({ emailVerifiedAt: now.toISOString() }).where(eq(users.id, claimed.userId)).returning({ id: users.id, totp: users.totpSecret }),
    closeTokensStatement(db, claimed.userId, "verify", now),
  ]);
  // With two-factor on, a link from the mailbox alone never signs anyone in.
  return { userId: claimed.userId, signIn: !user?.totp };
}

/** A new organization with the person as its owner (sign-up's second step; any verified person when sign-up is open). */
export async function createOrganizationAsOwner(env: Env, userId: number, name: string, now = new Date()) {
  // The admin API's rule (OrganizationIn): 1 to 200 characters, no control characters.
  const checked = OrganizationIn.safeParse({ name: name.trim() });
  if (!checked.success) throw new ApiError(422, validationDetail(checked.error));
  const clean = checked.data.name;
  const db = controlDb(env.DB);
  const [org] = await db.insert(organizations).values({ name: clean }).returning({ id: organizations.id });
  await db.batch([
    db.insert(memberships).values({ userId, organizationId: org.id, role: "owner" }),
    auditStatement(db, { organizationId: org.id, actor: `user:${userId}`, action: "organization.create", target: `organization:${org.id}`, detail: { name: clean } }, now),
  ]);
  return org.id;
}

/** The engines this deployment can run (credentials present), `pseudo` always first. */
export function runnableEngines(env: Env): EngineName[] {
  return ENGINES.filter((e) => engineConfiguration(e, env as never).configured);
}

/** A site of the organization, validated by the admin API's schema, with engines this deployment can run. */
export async function createSiteAsOwner(env: Env, organizationId: number, input: unknown, actor: Actor) {
  const parsed = SiteCreateIn.safeParse({ ...(input as object), organization_id: organizationId });
  if (!parsed.success) throw new ApiError(422, validationDetail(parsed.error));
  const runnable = runnableEngines(env);
  const bad = parsed.data.target_languages.find((t) => !runnable.includes(t.engine as EngineName));
  if (bad) throw new ApiError(422, `target_languages: the engine ${bad.engine} (for ${bad.code}) is not set up on this service; choose one of ${runnable.join(", ")}.`);
  // The one path that creates a site (ops/sites.ts): the row and its audit row in one batch.
  return createSite(env, actor, parsed.data);
}

/** The site's first key, shown once (a site created at sign-up). */
export async function firstKey(env: Env, organizationId: number, siteId: number, actor: Actor) {
  return createKey(env, actor, { id: siteId, organizationId }, { name: "First key" });
}

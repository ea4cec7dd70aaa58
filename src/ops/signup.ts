/**
 * Self-serve sign-up (README "Sign-up"): the account (unverified, and unable to sign in, until
 * its mail's link is followed), the organization its person owns, further sites, and the first
 * API key. `SIGNUP=open` switches it on; the default `invite` keeps entry by invitation only.
 */
import { eq } from "drizzle-orm";
import { validationDetail } from "../api/issues";
import { OrganizationIn, SiteCreateIn } from "../api/schemas";
import { claimToken, closeTokensStatement, issueToken, peekToken } from "../control/account-tokens";
import { auditStatement } from "../control/audit";
import { controlDb } from "../control/db";
import { MAIL_LIMITS, spendMailBudget } from "../control/mail-budget";
import { hashPassword } from "../control/passwords";
import { findUser, normalizeEmail, passwordProblem } from "../control/people";
import { memberships, organizations, sessions, users } from "../control/schema";
import { ENGINES, type EngineName, engineConfiguration } from "../engines/registry";
import { ApiError } from "../errors";
import { noMailBase, sendMail } from "../mail/send";
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
 * Makes the unverified account and mails its verification link (24 hours). An address whose
 * account is verified gets a mail saying so instead, and nothing changes; an address whose
 * account is not verified yet gets a new verification link (whose page lets the mailbox's
 * owner choose the password: the first sign-up may not have been theirs), and its password
 * does not change. The password is hashed in every case, so the time spent tells nothing. The
 * door shows the same page in all cases and runs this after answering (`waitUntil`). `hash`
 * is the password hashing (tests count its calls).
 */
export async function signUp(env: Env, input: SignUpInput, base: string | null, now = new Date(), hash: (password: string) => Promise<string> = hashPassword) {
  const db = controlDb(env.DB);
  const email = normalizeEmail(input.email);
  const passwordHash = await hash(input.password);
  const existing = await findUser(db, email);
  if (existing) {
    if (!base) return noMailBase("already_registered");
    // Sign-up mails to an address that has an account (the "already registered" one, or a new
    // verification link): at most MAIL_LIMITS.alreadyRegistered a day; beyond it nothing is sent,
    // and the page says the same (it never tells).
    const spent = await spendMailBudget(db, [{ key: `registered:${email}`, max: MAIL_LIMITS.alreadyRegistered }], now);
    if (!spent.ok) log("info", "mail.limited", { kind: "already_registered", user_id: existing.id });
    else if (existing.emailVerifiedAt) await sendMail(env, alreadyRegisteredMail(email, { signIn: base, forgot: `${base}/forgot` }), now);
    else await sendVerification(env, existing.id, email, base, now);
    return;
  }
  const inserted = await db.insert(users).values({ email, name: input.name.trim(), passwordHash, createdAt: now.toISOString() }).onConflictDoNothing().returning({ id: users.id });
  if (!inserted.length) return; // the same address signed up twice at once: the first one's mail is on its way
  await db.batch([auditStatement(db, { organizationId: null, actor: `user:${inserted[0].id}`, action: "user.sign_up", target: `user:${inserted[0].id}` }, now)]);
  await sendVerification(env, inserted[0].id, email, base, now);
}

export async function sendVerification(env: Env, userId: number, email: string, base: string | null, now = new Date()) {
  if (!base) return noMailBase("verify");
  const token = await issueToken(controlDb(env.DB), "verify", userId, now);
  await sendMail(env, verifyMail(email, { link: `${base}/verify/${token}` }), now);
}

/** "Send the mail again" (from the sign-in page, signed out): a new link when the address has an account not verified yet; nothing visible otherwise. */
export async function resendVerification(env: Env, email: string, base: string | null, now = new Date()) {
  const user = await findUser(controlDb(env.DB), email);
  if (user && !user.emailVerifiedAt) await sendVerification(env, user.id, user.email, base, now);
}

const VERIFY_WORDS = {
  ...LINK_WORDS,
  expired: "This link has expired (verification links work for 24 hours). Ask for a new one from the sign-in page.",
} as const;

/** Whether a verification link can still be used (its page shows the button that verifies), else the words saying why not. */
export async function verifyLinkProblem(env: Env, token: string, now = new Date()): Promise<string | null> {
  const peek = await peekToken(controlDb(env.DB), "verify", token, now);
  return peek.state === "open" ? null : VERIFY_WORDS[peek.state];
}

/**
 * Follows a verification link (a POST from its page; once, within 24 hours): the address is
 * verified, every session of the account ends and every other verification link with it. It
 * signs nobody in: the person signs in with their password, or (the mailbox proving who they
 * are) chooses a new one with the one-time set-password token answered here (1 hour, the
 * reset link's), for when someone else chose the password at sign-up.
 */
export async function verifyEmail(env: Env, token: string, now = new Date()) {
  const db = controlDb(env.DB);
  const claimed = await claimToken(db, "verify", token, now);
  if (claimed.state !== "open") throw new ApiError(410, VERIFY_WORDS[claimed.state]);
  await db.batch([
    db.update(users).set({ emailVerifiedAt: now.toISOString() }).where(eq(users.id, claimed.userId)),
    db.delete(sessions).where(eq(sessions.userId, claimed.userId)),
    closeTokensStatement(db, claimed.userId, "verify", now),
    closeTokensStatement(db, claimed.userId, "mfa", now),
    auditStatement(db, { organizationId: null, actor: `user:${claimed.userId}`, action: "user.verify", target: `user:${claimed.userId}` }, now),
  ]);
  return { userId: claimed.userId, setPassword: await issueToken(db, "reset", claimed.userId, now) };
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

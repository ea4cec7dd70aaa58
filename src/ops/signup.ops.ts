/**
 * Self-serve sign-up (docs/accounts-and-mail.md "Sign-up"): the account (unverified and without a password until
 * its mail's link is followed and a password chosen there), the organization its person owns,
 * further sites, and the first API key. `SIGNUP=open` switches it on; the default `invite` keeps entry by invitation only.
 */
import { and, eq, isNull } from "drizzle-orm";
import { OrganizationIn, SiteCreateIn } from "../api/admin.schemas";
import { validationDetail } from "../api/issues";
import { claimToken, closeTokensStatement, issueToken, peekToken } from "../control/account-tokens.control";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { MAIL_LIMITS, spendMailBudget } from "../control/mail-budget.control";
import { type HashPassword, hashPassword } from "../control/passwords.control";
import { findUser, NO_PASSWORD, normalizeEmail, passwordProblem } from "../control/people.control";
import { memberships, organizations, recoveryCodes, sessions, users } from "../control/schema";
import { ENGINES, type EngineName, engineConfiguration } from "../engines/registry";
import { ApiError } from "../errors";
import { noMailBase, sendMail } from "../mail/send";
import { alreadyRegisteredMail, verifyMail } from "../mail/templates";
import { log } from "../obs/log";
import { LINK_WORDS } from "./accounts.ops";
import type { Actor } from "./actor";
import { createKey } from "./keys.ops";
import { createSite } from "./sites.ops";

export const signupOpen = (env: Env) => env.SIGNUP === "open";
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface SignUpInput {
  email: string;
  name: string;
}

/** The form's problems (the same rules whether or not the address is taken), as a sentence naming the field, or null. */
export function signUpProblem(input: SignUpInput): string | null {
  if (!EMAIL.test(input.email.trim()) || input.email.length > 254) return "email: enter an email address, like name@example.com.";
  return nameProblem(input.name);
}

const nameProblem = (name: string) => (!name.trim() || name.length > 100 ? "name: enter your name (at most 100 characters)." : null);

/**
 * Makes the unverified account, without a password, and mails its verification link (24 hours),
 * whose page is where the password is chosen: the mailbox's owner is the only one who ever sets
 * it (docs/decisions.md, confirming proves the mailbox). An address whose account is verified
 * gets a mail saying so instead, and nothing changes; an address whose account is not verified
 * yet gets a new link, and any password stored for it (a sign-up from before this rule) and its
 * sessions go. The door shows the same page in all cases and runs this after answering
 * (`waitUntil`).
 */
export async function signUp(env: Env, input: SignUpInput, base: string | null, now = new Date()) {
  const db = controlDb(env.DB);
  const email = normalizeEmail(input.email);
  const existing = await findUser(db, email);
  if (existing?.emailVerifiedAt) {
    if (!base) return noMailBase("already_registered");
    // At most MAIL_LIMITS.alreadyRegistered a day to one address; beyond it nothing is sent, and the page says the same (it never tells).
    const spent = await spendMailBudget(db, [{ key: `registered:${email}`, max: MAIL_LIMITS.alreadyRegistered }], now);
    if (!spent.ok) return log("info", "mail.limited", { kind: "already_registered", user_id: existing.id });
    return sendMail(env, alreadyRegisteredMail(email, { signIn: base, forgot: `${base}/forgot` }), now);
  }
  if (existing) {
    await db.batch([db.update(users).set({ passwordHash: NO_PASSWORD }).where(eq(users.id, existing.id)), db.delete(sessions).where(eq(sessions.userId, existing.id))]);
    return sendVerification(env, existing.id, email, base, now);
  }
  const inserted = await db
    .insert(users)
    .values({ email, name: input.name.trim(), passwordHash: NO_PASSWORD, createdAt: now.toISOString() })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (!inserted.length) return; // the same address signed up twice at once: the first one's mail is on its way
  await db.batch([auditStatement(db, { organizationId: null, actor: `user:${inserted[0].id}`, action: "user.sign_up", target: `user:${inserted[0].id}` }, now)]);
  await sendVerification(env, inserted[0].id, email, base, now);
}

/** A verification link (`/verify#<token>`: the token in the fragment), at most MAIL_LIMITS.verify a day to one address; beyond it nothing is sent (logged). */
export async function sendVerification(env: Env, userId: number, email: string, base: string | null, now = new Date()) {
  if (!base) return noMailBase("verify");
  const db = controlDb(env.DB);
  const spent = await spendMailBudget(db, [{ key: `verify:${email}`, max: MAIL_LIMITS.verify }], now);
  if (!spent.ok) return log("info", "mail.limited", { kind: "verify", user_id: userId });
  const token = await issueToken(db, "verify", userId, now);
  await sendMail(env, verifyMail(email, { link: `${base}/verify#${token}` }), now);
}

/** "Send the mail again" (from the sign-in page, signed out): a new link when the address has an account not verified yet; nothing visible otherwise. */
export async function resendVerification(env: Env, email: string, base: string | null, now = new Date()) {
  const user = await findUser(controlDb(env.DB), email);
  if (user && !user.emailVerifiedAt) await sendVerification(env, user.id, user.email, base, now);
}

const VERIFY_WORDS = {
  ...LINK_WORDS,
  expired: "This link has expired (verification links work for 24 hours). Ask for a new one from the sign-in page.",
  verified: "This address is confirmed already: sign in with its password, or choose a new one if you forgot it.",
} as const;

/** A verification link, opened: the address and the name given at sign-up (the page shows them), or the words saying why it does not work. */
export async function verifyLinkOf(env: Env, token: string, now = new Date()): Promise<{ email: string; name: string } | { gone: string }> {
  const db = controlDb(env.DB);
  const peek = await peekToken(db, "verify", token, now);
  if (peek.state !== "open") return { gone: VERIFY_WORDS[peek.state] };
  const user = await db.select({ email: users.email, name: users.name, verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, peek.userId)).get();
  if (!user) return { gone: VERIFY_WORDS.unknown };
  if (user.verifiedAt) return { gone: VERIFY_WORDS.verified };
  return { email: user.email, name: user.name ?? "" };
}

/**
 * Follows a verification link (a POST from its page; once, within 24 hours): choosing the
 * password is part of confirming, so the account's only password is the mailbox owner's. The
 * address is verified, the password and the name set; every session of the account ends, every
 * other verification and reset link with it, and a second factor or recovery codes nobody could
 * have set up rightly (an unverified account) go. It signs nobody in (the person signs in with
 * the password just chosen). A link of an account verified since (by a reset) does nothing.
 */
export async function verifyEmail(env: Env, token: string, input: { name: string; password: string }, now = new Date(), hash: HashPassword = hashPassword) {
  const problem = nameProblem(input.name) ?? passwordProblem(input.password);
  if (problem) throw new ApiError(422, problem);
  const db = controlDb(env.DB);
  const opened = await verifyLinkOf(env, token, now);
  if ("gone" in opened) throw new ApiError(410, opened.gone);
  const passwordHash = await hash(input.password);
  const claimed = await claimToken(db, "verify", token, now);
  if (claimed.state !== "open") throw new ApiError(410, VERIFY_WORDS[claimed.state]);
  const userId = claimed.userId;
  const [changed] = await db.batch([
    db
      .update(users)
      .set({ emailVerifiedAt: now.toISOString(), passwordHash, name: input.name.trim(), totpSecret: null, totpLastStep: null })
      .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
      .returning({ id: users.id }),
    closeTokensStatement(db, userId, "verify", now),
  ]);
  if (!changed.length) throw new ApiError(410, VERIFY_WORDS.verified);
  await db.batch([
    db.delete(sessions).where(eq(sessions.userId, userId)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)),
    closeTokensStatement(db, userId, "reset", now),
    closeTokensStatement(db, userId, "mfa", now),
    closeTokensStatement(db, userId, "totp_setup", now),
    auditStatement(db, { organizationId: null, actor: `user:${userId}`, action: "user.verify", target: `user:${userId}` }, now),
  ]);
  return { userId };
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
  // The one path that creates a site (ops/sites.ops.ts): the row and its audit row in one batch.
  return createSite(env, actor, parsed.data);
}

/** The site's first key, shown once (a site created at sign-up). */
export async function firstKey(env: Env, organizationId: number, siteId: number, actor: Actor) {
  return createKey(env, actor, { id: siteId, organizationId }, { name: "First key" });
}

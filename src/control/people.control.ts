/**
 * People of the dashboard (docs/dashboard.md "Roles"): users, their memberships and roles in
 * organizations, and one-time invitations (a random token in the link, only its SHA-256
 * stored, valid 7 days, one use). Used by the dashboard and by the admin API's invitation
 * endpoint alike.
 */
import { and, asc, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import { sha256Hex } from "../digest";
import { ApiError, notFound } from "../errors";
import { auditStatement } from "./audit.control";
import type { ControlDb } from "./db";
import { type HashPassword, hashPassword, randomToken, verifyPassword } from "./passwords.control";
import { invitations, memberships, organizations, sites, users } from "./schema";

export const ROLES = ["editor", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];
export const INVITATION_DAYS = 7;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

const rank = (role: Role) => ROLES.indexOf(role);
/** Whether `role` includes everything `needed` may do (owner ⊃ admin ⊃ editor). */
export const atLeast = (role: Role, needed: Role) => rank(role) >= rank(needed);
/** Owners invite anyone; admins invite editors and admins; editors invite no one. */
export const canInvite = (inviter: Role, role: Role) => inviter === "owner" || (inviter === "admin" && role !== "owner");

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** The password rule, as a sentence naming the field (null when the password is acceptable). */
export function passwordProblem(password: string, field = "password"): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `${field}: use at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `${field}: use at most ${PASSWORD_MAX} characters.`;
  return null;
}

// ------------------------------------------------------------------ users

export async function findUser(db: ControlDb, email: string) {
  return db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .get();
}

/** What `users.password_hash` holds until the person chooses a password (a sign-up before its confirmation): no password matches it. */
export const NO_PASSWORD = "";

/**
 * Whether `password` is the account's. An unknown address, or an account without a password
 * yet, costs a hash too, so timing tells none of them apart.
 */
export async function passwordMatches(user: { passwordHash: string } | undefined, password: string) {
  const usable = !!user && user.passwordHash !== NO_PASSWORD;
  const ok = await verifyPassword(password, usable ? user.passwordHash : DUMMY_HASH);
  return usable && ok;
}
const DUMMY_HASH = "pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

/** The account of an email (or undefined) and whether the password matches it (`passwordMatches`). */
export async function checkCredentials(db: ControlDb, email: string, password: string) {
  const user = await findUser(db, email);
  return { user, ok: await passwordMatches(user, password) };
}

/** The update that sets a new password, after checking the rule (422 naming `field`). The current password is the caller's to check (ops/sessions.ops.ts, counted). */
export async function setPasswordStatement(db: ControlDb, userId: number, next: string, field = "new_password", hash: HashPassword = hashPassword) {
  const problem = passwordProblem(next, field);
  if (problem) throw new ApiError(422, problem);
  // Wrapped: a drizzle query is a thenable, and an async function would run it.
  return {
    update: db
      .update(users)
      .set({ passwordHash: await hash(next) })
      .where(eq(users.id, userId)),
  };
}

// ------------------------------------------------------------------ memberships

export interface Membership {
  organizationId: number;
  organization: string;
  role: Role;
}

export async function membershipsOf(db: ControlDb, userId: number): Promise<Membership[]> {
  const rows = await db
    .select({ organizationId: memberships.organizationId, organization: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(organizations.name));
  return rows as Membership[];
}

export async function membershipIn(db: ControlDb, userId: number, organizationId: number): Promise<Membership | undefined> {
  const row = await db
    .select({ organizationId: memberships.organizationId, organization: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(and(eq(memberships.userId, userId), eq(memberships.organizationId, organizationId)))
    .get();
  return row as Membership | undefined;
}

export async function roleIn(db: ControlDb, userId: number, organizationId: number): Promise<Role | undefined> {
  return (await membershipIn(db, userId, organizationId))?.role;
}

/** The sites of the given organizations (a person's), by name. */
export async function sitesOf(db: ControlDb, organizationIds: number[]) {
  if (!organizationIds.length) return [];
  return db
    .select({ id: sites.id, name: sites.name, organizationId: sites.organizationId, sourceLanguage: sites.sourceLanguage, targetLanguages: sites.targetLanguages })
    .from(sites)
    .where(inArray(sites.organizationId, organizationIds))
    .orderBy(asc(sites.name));
}

export async function listMembers(db: ControlDb, organizationId: number) {
  return db
    .select({ userId: users.id, email: users.email, role: memberships.role, since: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, organizationId))
    .orderBy(asc(users.email));
}

/** Removes a member; the last owner cannot be removed (an organization always has one). */
export async function removeMember(db: ControlDb, organizationId: number, userId: number, actor: string) {
  const members = await listMembers(db, organizationId);
  const member = members.find((m) => m.userId === userId);
  if (!member) throw notFound(`Member ${userId}`);
  if (member.role === "owner" && members.filter((m) => m.role === "owner").length === 1)
    throw new ApiError(409, "The last owner cannot be removed: make someone else an owner first.");
  await db.batch([
    db.delete(memberships).where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId))),
    auditStatement(db, { organizationId, actor, action: "member.remove", target: `user:${userId}`, detail: { email: member.email, role: member.role } }),
  ]);
}

// ------------------------------------------------------------------ invitations

export interface CreatedInvitation {
  id: number;
  email: string;
  role: Role;
  /** The one-time token: shown once, in the link. */
  token: string;
  expires_at: string;
}

export async function createInvitation(
  db: ControlDb,
  input: { organizationId: number; email: string; role: Role; invitedBy: number | null; actor: string },
  now = new Date(),
): Promise<CreatedInvitation> {
  const org = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, input.organizationId)).get();
  if (!org) throw notFound(`Organization ${input.organizationId}`);
  const token = randomToken();
  const email = normalizeEmail(input.email);
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 86_400_000).toISOString();
  const [[row]] = await db.batch([
    db
      .insert(invitations)
      .values({
        organizationId: input.organizationId,
        email,
        role: input.role,
        tokenHash: await sha256Hex(token),
        invitedBy: input.invitedBy,
        createdAt: now.toISOString(),
        expiresAt,
      })
      .returning({ id: invitations.id }),
    auditStatement(
      db,
      {
        organizationId: input.organizationId,
        actor: input.actor,
        action: "invitation.create",
        target: `organization:${input.organizationId}`,
        detail: { email, role: input.role },
      },
      now,
    ),
  ]);
  return { id: row.id, email, role: input.role, token, expires_at: expiresAt };
}

export async function pendingInvitations(db: ControlDb, organizationId: number, now = new Date()) {
  return db
    .select({
      id: invitations.id,
      email: invitations.email,
      role: invitations.role,
      createdAt: invitations.createdAt,
      expiresAt: invitations.expiresAt,
      mailedAt: invitations.mailedAt,
      mailStatus: invitations.mailStatus,
    })
    .from(invitations)
    .where(and(eq(invitations.organizationId, organizationId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, now.toISOString())))
    .orderBy(desc(invitations.id));
}

export async function revokeInvitation(db: ControlDb, organizationId: number, id: number, actor: string) {
  const row = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.id, id), eq(invitations.organizationId, organizationId), isNull(invitations.acceptedAt)))
    .get();
  if (!row) throw notFound(`Invitation ${id}`);
  await db.batch([
    db.delete(invitations).where(eq(invitations.id, id)),
    auditStatement(db, { organizationId, actor, action: "invitation.revoke", target: `invitation:${id}`, detail: { email: row.email, role: row.role } }),
  ]);
}

/** An open invitation for a link's token (not used, not expired), with its organization's name and whether its email has an account. */
export async function openInvitation(db: ControlDb, token: string, now = new Date()) {
  if (!token || token.length > 100) return undefined;
  const row = await db
    .select({
      id: invitations.id,
      organizationId: invitations.organizationId,
      organization: organizations.name,
      email: invitations.email,
      role: invitations.role,
      expiresAt: invitations.expiresAt,
    })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
    .where(and(eq(invitations.tokenHash, await sha256Hex(token)), isNull(invitations.acceptedAt), gt(invitations.expiresAt, now.toISOString())))
    .get();
  if (!row) return undefined;
  const user = await findUser(db, row.email);
  return { ...row, role: row.role as Role, hasAccount: !!user };
}

const needsSignIn = (email: string) => new ApiError(401, `${email} already has an account: sign in as ${email} to accept this invitation.`);

/** Who is signed in while a link is used (null: nobody). */
export interface SignedIn {
  userId: number;
  email: string;
}

/**
 * Uses an invitation. The rule (docs/decisions.md "Accounts, the dashboard and
 * mail", invitations accept only their own account): a link alone never adds an existing account to an organization.
 * - The invited email has no account: nobody may be signed in (or someone signed in as a
 *   different email could mistake whose account they create); the person chooses a password
 *   and gets the account.
 * - The invited email has an account: only that account, signed in, accepts; it keeps a
 *   higher role it already holds.
 * - Signed in as another email: refused, whichever case.
 * Every refusal comes before the token is claimed, so it leaves the link usable. The claim is
 * one conditional update, so a link works exactly once even when opened twice at once.
 */
export async function acceptInvitation(db: ControlDb, token: string, who: { signedIn: SignedIn | null; password?: string }, now = new Date(), hash: HashPassword = hashPassword) {
  const invitation = await openInvitation(db, token, now);
  if (!invitation) throw new ApiError(404, "This invitation link is not valid any more: it was used already, withdrawn, or it expired. Ask for a new one.");
  const { signedIn } = who;
  if (signedIn && normalizeEmail(signedIn.email) !== invitation.email)
    throw new ApiError(
      403,
      `This invitation is for ${invitation.email}, but you are signed in as ${signedIn.email}. Only ${invitation.email} can accept it: sign out, then open the link again.`,
    );
  if (!signedIn && invitation.hasAccount) throw needsSignIn(invitation.email);
  let passwordHash: string | undefined;
  if (!signedIn) {
    const problem = passwordProblem(who.password ?? "");
    if (problem) throw new ApiError(422, problem);
    passwordHash = await hash(who.password!);
  }
  const claimed = await db
    .update(invitations)
    .set({ acceptedAt: now.toISOString() })
    .where(and(eq(invitations.id, invitation.id), isNull(invitations.acceptedAt)))
    .returning({ id: invitations.id });
  if (!claimed.length) throw new ApiError(404, "This invitation link was used already.");
  let userId: number;
  if (signedIn)
    userId = signedIn.userId; // its email is the invitation's (checked above)
  else {
    // A new account through an invitation is verified: the link came through the mailbox.
    const [created] = await db
      .insert(users)
      .values({ email: invitation.email, passwordHash: passwordHash!, emailVerifiedAt: now.toISOString() })
      .onConflictDoNothing()
      .returning({ id: users.id });
    if (!created) {
      // The account appeared since the check (another link, at the same moment): it is not this link's to join.
      await db.update(invitations).set({ acceptedAt: null }).where(eq(invitations.id, invitation.id));
      throw needsSignIn(invitation.email);
    }
    userId = created.id;
  }
  const current = await roleIn(db, userId, invitation.organizationId);
  const role = current && atLeast(current, invitation.role) ? current : invitation.role;
  await db.batch([
    db
      .insert(memberships)
      .values({ userId, organizationId: invitation.organizationId, role })
      .onConflictDoUpdate({ target: [memberships.userId, memberships.organizationId], set: { role } }),
    auditStatement(
      db,
      {
        organizationId: invitation.organizationId,
        actor: `user:${userId}`,
        action: "invitation.accept",
        target: `invitation:${invitation.id}`,
        detail: { email: invitation.email, role },
      },
      now,
    ),
  ]);
  return { userId, organizationId: invitation.organizationId, newAccount: !signedIn };
}

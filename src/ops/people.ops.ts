/**
 * People of an organization: members, invitations (the operator hands out the first owner's;
 * owners and admins invite from the Members page) and accepting one. The rules are here once:
 * who may invite whom (owners invite anyone, admins editors and admins, the operator anyone),
 * the email and role (InvitationIn, the admin API's schema), the last owner staying. Every
 * invitation goes by mail (resending makes a new link).
 */
import { and, eq, isNull } from "drizzle-orm";
import type { InvitationCreate } from "../api/admin.schemas";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { MAIL_LIMITS, spendMailBudget } from "../control/mail-budget.control";
import { type HashPassword, randomToken } from "../control/passwords.control";
import {
  acceptInvitation as accept,
  canInvite,
  createInvitation,
  INVITATION_DAYS,
  listMembers,
  openInvitation,
  pendingInvitations,
  type Role,
  removeMember as remove,
  revokeInvitation,
  type SignedIn,
} from "../control/people.control";
import { invitations as invitationRows, organizations } from "../control/schema";
import { sha256Hex } from "../digest";
import { ApiError, notFound, tooManyRequests } from "../errors";
import { noMailBase, sendMail } from "../mail/send";
import { invitationMail } from "../mail/templates";
import type { Actor } from "./actor";

/** Who invites: the operator (null role: anyone) or a member with their role. */
export interface Inviter {
  actor: Actor;
  userId: number | null;
  role: Role | null;
}

const mayInvite = (inviter: Inviter, role: Role) => inviter.role === null || canInvite(inviter.role, role);

const BUDGET_WORDS: Record<string, string> = {
  org: `this organization has sent ${MAIL_LIMITS.organization} invitation mails`,
  inviter: `you have sent ${MAIL_LIMITS.inviter} invitation mails`,
  invite: `${MAIL_LIMITS.invitee} invitation mails have gone to this address from this organization`,
  to: `${MAIL_LIMITS.address} invitation mails have gone to this address`,
};

/**
 * Counts one invitation mail (a new one or a resend) against the organization's, the inviter's
 * and the address's daily budgets; over any of them, 429 with `Retry-After` and nothing is sent
 * (docs/decisions.md "Accounts, the dashboard and mail").
 */
async function spendInvitation(env: Env, inviter: Inviter, organizationId: number, email: string, now: Date) {
  const address = email.trim().toLowerCase();
  const budgets: { key: string; max: number }[] = [
    { key: `org:${organizationId}`, max: MAIL_LIMITS.organization },
    { key: `invite:${organizationId}:${address}`, max: MAIL_LIMITS.invitee },
    { key: `to:${address}`, max: MAIL_LIMITS.address },
  ];
  // A person's own budget; the operator (the admin token, handing out first owners) has none of its own.
  if (inviter.userId !== null) budgets.push({ key: `inviter:user:${inviter.userId}`, max: MAIL_LIMITS.inviter });
  const spent = await spendMailBudget(controlDb(env.DB), budgets, now);
  if (spent.ok) return;
  const hours = Math.ceil(spent.retryAfterSeconds / 3600);
  throw tooManyRequests(
    `Too many invitations: ${BUDGET_WORDS[spent.budget.split(":")[0]]} in the last 24 hours. Try again in ${hours} hour${hours === 1 ? "" : "s"}.`,
    spent.retryAfterSeconds,
  );
}

/** An invitation's link: the token in the fragment (`/invitations#<token>`), which no request line carries (docs/decisions.md, one-time tokens). */
export const invitationLink = (base: string, token: string) => `${base}/invitations#${token}`;

/**
 * A one-time invitation, mailed to the address. `url` is the link made from `invitationsBase`
 * and the token: the admin API (the operator's tool) answers it; the dashboard shows only that
 * the mail went out (so only the mailbox's owner can choose a new account's password).
 */
export async function invite(
  env: Env,
  inviter: Inviter,
  organizationId: number,
  input: InvitationCreate,
  invitationsBase: string,
  now = new Date(),
  mailLinks: string | null = invitationsBase,
) {
  if (!mayInvite(inviter, input.role)) throw new ApiError(403, "Only owners can invite owners.");
  await spendInvitation(env, inviter, organizationId, input.email, now);
  const inv = await createInvitation(controlDb(env.DB), { organizationId, email: input.email, role: input.role, invitedBy: inviter.userId, actor: inviter.actor }, now);
  // Whether it went out or waits for its retry is kept on the invitation (the Members page shows it).
  await mailInvitation(env, inv.id, inv.token, mailLinks, now);
  return { id: inv.id, email: inv.email, role: inv.role, url: invitationLink(invitationsBase, inv.token), expires_at: inv.expires_at };
}

/** `base`: of the mailed link (src/links.ts `mailBase`); null: no DASHBOARD_URL outside local development, so no mail (logged). */
async function mailInvitation(env: Env, invitationId: number, token: string, base: string | null, now: Date) {
  if (!base) return noMailBase("invitation");
  const db = controlDb(env.DB);
  const row = await db
    .select({ email: invitationRows.email, role: invitationRows.role, expiresAt: invitationRows.expiresAt, organization: organizations.name })
    .from(invitationRows)
    .innerJoin(organizations, eq(organizations.id, invitationRows.organizationId))
    .where(eq(invitationRows.id, invitationId))
    .get();
  if (!row) throw notFound(`Invitation ${invitationId}`);
  const delivery = await sendMail(
    env,
    invitationMail(row.email, { organization: row.organization, role: row.role, link: invitationLink(base, token), expiresAt: row.expiresAt }),
    now,
  );
  const status = delivery === "retry" ? "retrying" : "sent";
  await db.update(invitationRows).set({ mailedAt: now.toISOString(), mailStatus: status }).where(eq(invitationRows.id, invitationId));
  return status;
}

/**
 * Sends an open invitation again with a fresh link (the old one stops working: only a hash is
 * kept, so the old link cannot be mailed twice) valid another 7 days.
 */
export async function resendInvitation(env: Env, inviter: Inviter, organizationId: number, invitationId: number, base: string | null, now = new Date()) {
  const db = controlDb(env.DB);
  const pending = (await pendingInvitations(db, organizationId)).find((i) => i.id === invitationId);
  if (!pending) throw new ApiError(404, "There is no such open invitation.");
  if (!mayInvite(inviter, pending.role as Role)) throw new ApiError(403, "Only owners can send an invitation for an owner.");
  await spendInvitation(env, inviter, organizationId, pending.email, now);
  const token = randomToken();
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 86_400_000).toISOString();
  const [updated] = await db.batch([
    db
      .update(invitationRows)
      .set({ tokenHash: await sha256Hex(token), expiresAt })
      .where(and(eq(invitationRows.id, invitationId), eq(invitationRows.organizationId, organizationId), isNull(invitationRows.acceptedAt)))
      .returning({ id: invitationRows.id }),
    auditStatement(db, { organizationId, actor: inviter.actor, action: "invitation.resend", target: `invitation:${invitationId}` }, now),
  ]);
  if (!updated.length) throw notFound(`Invitation ${invitationId}`);
  return mailInvitation(env, invitationId, token, base, now);
}

export async function withdrawInvitation(env: Env, inviter: Inviter, organizationId: number, invitationId: number) {
  const db = controlDb(env.DB);
  const pending = (await pendingInvitations(db, organizationId)).find((i) => i.id === invitationId);
  if (pending && !mayInvite(inviter, pending.role as Role)) throw new ApiError(403, "Only owners can withdraw an invitation for an owner.");
  await revokeInvitation(db, organizationId, invitationId, inviter.actor);
}

/** The Members page: members, open invitations, and the roles this inviter may invite. */
export async function membersOf(env: Env, organizationId: number, inviter: Inviter) {
  const db = controlDb(env.DB);
  const [members, invitations] = await Promise.all([listMembers(db, organizationId), pendingInvitations(db, organizationId)]);
  const invitable = (["editor", "admin", "owner"] as const).filter((r) => mayInvite(inviter, r));
  return { members, invitations, invitable };
}

/** The last owner cannot be removed (an organization always has one). */
export async function removeMember(env: Env, actor: Actor, organizationId: number, userId: number) {
  await remove(controlDb(env.DB), organizationId, userId, actor);
}

export async function openInvitationOf(env: Env, token: string) {
  return openInvitation(controlDb(env.DB), token);
}

/** A link alone never adds an existing account: it must be signed in as itself (control/people.control.ts `acceptInvitation`). */
export async function acceptInvitation(env: Env, token: string, who: { signedIn: SignedIn | null; password?: string }, hash?: HashPassword) {
  return accept(controlDb(env.DB), token, who, new Date(), hash);
}

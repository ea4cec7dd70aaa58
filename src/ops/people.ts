/**
 * People of an organization: members, invitations (the operator hands out the first owner's;
 * owners and admins invite from the Members page) and accepting one. The rules are here once:
 * who may invite whom (owners invite anyone, admins editors and admins, the operator anyone),
 * the email and role (InvitationIn, the admin API's schema), the last owner staying.
 */
import type { InvitationCreate } from "../api/schemas";
import { controlDb } from "../control/db";
import {
  acceptInvitation as accept,
  canInvite,
  createInvitation,
  listMembers,
  openInvitation,
  pendingInvitations,
  type Role,
  removeMember as remove,
  revokeInvitation,
  type SignedIn,
} from "../control/people";
import { ApiError } from "../errors";
import type { Actor } from "./actor";

/** Who invites: the operator (null role: anyone) or a member with their role. */
export interface Inviter {
  actor: Actor;
  userId: number | null;
  role: Role | null;
}

const mayInvite = (inviter: Inviter, role: Role) => inviter.role === null || canInvite(inviter.role, role);

/** A one-time invitation; `url` is the link made from `invitationsBase` and the token, shown only in this answer. */
export async function invite(env: Env, inviter: Inviter, organizationId: number, input: InvitationCreate, invitationsBase: string) {
  if (!mayInvite(inviter, input.role)) throw new ApiError(403, "Only owners can invite owners.");
  const inv = await createInvitation(controlDb(env.DB), { organizationId, email: input.email, role: input.role, invitedBy: inviter.userId, actor: inviter.actor });
  return { id: inv.id, email: inv.email, role: inv.role, url: `${invitationsBase}/invitations/${inv.token}`, expires_at: inv.expires_at };
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

/** A link alone never adds an existing account: it must be signed in as itself (control/people.ts `acceptInvitation`). */
export async function acceptInvitation(env: Env, token: string, who: { signedIn: SignedIn | null; password?: string }) {
  return accept(controlDb(env.DB), token, who);
}

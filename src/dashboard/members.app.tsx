/**
 * The organization's members and invitations: invite (by mail only: the inviter never sees the
 * link), resend, withdraw, remove; whether two-factor sign-in is required of every member
 * (owners); and deleting the organization (owners, after typing its name). Who may invite whom
 * is decided in ops/people.ops.ts, for both doors.
 */
import { Hono } from "hono";
import { InvitationIn } from "../api/admin.schemas";
import { ApiError } from "../errors";
import { dashboardBase, mailBase } from "../links";
import { eraseOrganization } from "../ops/erasure.ops";
import { type Inviter, invite, membersOf, removeMember, resendInvitation, withdrawInvitation } from "../ops/people.ops";
import { organizationRequiresTwoFactor, setTwoFactorRequirement } from "../ops/two-factor.ops";
import { type OrgAccess, orgAccess } from "./access";
import type { DashApp, DashContext } from "./auth";
import { form, id, str } from "./form";
import { MembersPage } from "./pages/members.page";
import { notice, orgFrame, render } from "./respond";

export const members = new Hono<DashApp>();

const inviter = (a: OrgAccess): Inviter => ({ actor: a.actor, userId: a.userId, role: a.role });

async function membersPage(c: DashContext, a: OrgAccess, extra: { notice?: string | null; error?: string | null } = {}) {
  const [data, requireTwoFactor] = await Promise.all([membersOf(c.env, a.organizationId, inviter(a)), organizationRequiresTwoFactor(c.env, a.organizationId)]);
  return <MembersPage {...orgFrame(c, a, "members")} {...data} requireTwoFactor={requireTwoFactor} {...extra} />;
}

members.get("/organizations/:org_id/members", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "editor");
  return render(c, await membersPage(c, a, { notice: notice(c) }));
});

members.post("/organizations/:org_id/members/invite", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "admin");
  const f = await form(c);
  const input = InvitationIn.safeParse({ email: str(f, "email"), role: str(f, "role") });
  if (!input.success) {
    const field = input.error.issues[0]?.path[0] === "role" ? "role: choose editor, admin or owner." : "email: enter an email address, like name@example.com.";
    return render(c, await membersPage(c, a, { error: field }), 422);
  }
  try {
    // By mail only: the inviter never sees the link, so only the mailbox's owner can choose a new account's password.
    await invite(c.env, inviter(a), a.organizationId, input.data, dashboardBase(c), undefined, mailBase(c));
  } catch (err) {
    return overLimit(c, a, err);
  }
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=invitation-sent`, 303);
});

members.post("/organizations/:org_id/members/invitations/:invitation_id/resend", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "admin");
  try {
    await resendInvitation(c.env, inviter(a), a.organizationId, id(c.req.param("invitation_id")), mailBase(c));
  } catch (err) {
    return overLimit(c, a, err);
  }
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=invitation-resent`, 303);
});

/** Over an invitation mail limit: the page again, saying which limit and when it has room (429, with Retry-After). */
async function overLimit(c: DashContext, a: OrgAccess, err: unknown) {
  if (!(err instanceof ApiError && err.status === 429)) throw err;
  const page = await render(c, await membersPage(c, a, { error: err.detail }), 429);
  for (const [name, value] of Object.entries(err.headers ?? {})) page.headers.set(name, value);
  return page;
}

members.post("/organizations/:org_id/two-factor", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "owner");
  const required = str(await form(c), "required") === "1";
  await setTwoFactorRequirement(c.env, a.organizationId, required, a.actor);
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=${required ? "two-factor-required" : "two-factor-optional"}`, 303);
});

members.post("/organizations/:org_id/members/:user_id/remove", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "owner");
  await removeMember(c.env, a.actor, a.organizationId, id(c.req.param("user_id")));
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=member-removed`, 303);
});

members.post("/organizations/:org_id/members/invitations/:invitation_id/revoke", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "admin");
  await withdrawInvitation(c.env, inviter(a), a.organizationId, id(c.req.param("invitation_id")));
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=invitation-withdrawn`, 303);
});

members.post("/organizations/:org_id/erase", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "owner");
  if (str(await form(c), "confirm_name").trim() !== a.organization)
    return render(c, await membersPage(c, a, { error: `confirm_name: type the organization's name exactly (${a.organization}) to delete it.` }), 422);
  await eraseOrganization(c.env, a.actor, a.organizationId);
  // Members who belonged to no other organization are gone with it, their sessions too.
  return c.redirect("/dashboard?done=organization-deleted", 303);
});

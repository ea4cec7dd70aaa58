/**
 * Who may see and do what (docs/dashboard.md "Roles"). Every page and action asks here
 * first: no session → the sign-in page; not a member of the organization → 404 (its pages do
 * not exist for outsiders); a member whose role is too low → 403 naming the role needed.
 */
import { controlDb } from "../control/db";
import { atLeast, membershipIn, type Role } from "../control/people.control";
import { getSite, type SiteSettings } from "../control/sites.control";
import { ApiError } from "../errors";
import { type Actor, userActor } from "../ops/actor";
import type { DashContext } from "./auth";

/** Thrown when a page needs a signed-in person; the dashboard answers with the sign-in page. */
export class SignInRequired extends Error {}

const ROLE_WORDS: Record<Role, string> = { editor: "editors, admins and owners", admin: "admins and owners", owner: "owners" };

export function requireUser(c: DashContext) {
  const user = c.get("user");
  if (!user) throw new SignInRequired();
  return user;
}

export interface OrgAccess {
  userId: number;
  actor: Actor;
  role: Role;
  organizationId: number;
  organization: string;
}

export async function orgAccess(c: DashContext, organizationId: number, needed: Role): Promise<OrgAccess> {
  const user = requireUser(c);
  const membership = Number.isSafeInteger(organizationId) && organizationId > 0 ? await membershipIn(controlDb(c.env.DB), user.userId, organizationId) : undefined;
  const role = membership?.role;
  if (!membership || !role) throw new ApiError(404, "There is no such page, or it belongs to an organization you are not a member of.");
  if (!atLeast(role, needed)) throw new ApiError(403, `Only ${ROLE_WORDS[needed]} can do this; you are an ${role} here. Ask an owner to change your role.`);
  return { userId: user.userId, actor: userActor(user.userId), role, organizationId, organization: membership.organization };
}

export async function siteAccess(c: DashContext, siteId: number, needed: Role): Promise<OrgAccess & { site: SiteSettings }> {
  requireUser(c);
  const site = Number.isSafeInteger(siteId) && siteId > 0 ? await getSite(controlDb(c.env.DB), siteId) : undefined;
  if (!site) throw new ApiError(404, "There is no such page, or it belongs to an organization you are not a member of.");
  return { ...(await orgAccess(c, site.organizationId, needed)), site };
}

export const can = (role: Role, needed: Role) => atLeast(role, needed);

/** The organization's audit log (owners), newest first, actors shown by their email. */
import { Hono } from "hono";
import { auditOf } from "../ops/organizations.ops";
import { membersOf } from "../ops/people.ops";
import { orgAccess } from "./access";
import type { DashApp } from "./auth";
import { id } from "./form";
import { AuditPage } from "./pages/audit.page";
import { orgFrame, render } from "./respond";

export const audit = new Hono<DashApp>();

audit.get("/organizations/:org_id/audit", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "owner");
  const cursor = c.req.query("cursor") ?? "";
  const [data, people] = await Promise.all([
    auditOf(c.env, { organizationId: a.organizationId, cursor: cursor || undefined, limit: 50 }),
    membersOf(c.env, a.organizationId, { actor: a.actor, userId: a.userId, role: a.role }),
  ]);
  const actors = Object.fromEntries(people.members.map((m) => [`user:${m.userId}`, m.email]));
  return render(c, <AuditPage {...orgFrame(c, a, "audit")} data={data} actors={actors} cursor={cursor} />);
});

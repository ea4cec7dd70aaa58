/** The organization's month of usage: used, included, overage, per day and per site. */
import { Hono } from "hono";
import { UsageMonthQuery } from "../api/admin.schemas";
import { usageOf } from "../ops/organizations.ops";
import { orgAccess } from "./access";
import type { DashApp } from "./auth";
import { id } from "./form";
import { UsagePage } from "./pages/usage.page";
import { parsed } from "./parse";
import { orgFrame, render } from "./respond";

export const usage = new Hono<DashApp>();

usage.get("/organizations/:org_id/usage", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "editor");
  const current = new Date().toISOString().slice(0, 7);
  // The same month rule as the admin API's `?month=`.
  const { month } = parsed(UsageMonthQuery, { month: c.req.query("month") ?? current });
  const data = await usageOf(c.env, a.organizationId, month);
  return render(c, <UsagePage {...orgFrame(c, a, "usage")} usage={data} current={current} />);
});

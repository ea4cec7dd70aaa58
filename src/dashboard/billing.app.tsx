/**
 * The Billing sub-app: `/dashboard/organizations/{org_id}/billing` and its owners' actions.
 * Mounted by the dashboard (after its security headers, CSRF check and session loading), so
 * errors render through the dashboard's error page. Every rule and Stripe call is in
 * src/ops/billing.ops.ts; this file parses forms, checks the role and redirects.
 */
import { Hono } from "hono";
import { z } from "zod";
import { PLANS } from "../billing/plans";
import { ApiError } from "../errors";
import { dashboardBase } from "../links";
import { billingView, changePlan, PlanIn, portalSession, setCancelAtPeriodEnd, setCoveredSites, startCheckout } from "../ops/billing.ops";
import { DASHBOARD_CSP } from "../page-headers";
import { type OrgAccess, orgAccess } from "./access";
import type { DashApp, DashContext } from "./auth";
import { form } from "./form";
import { BillingPage, type SiteChoice } from "./pages/billing.page";

const NOTICES: Record<string, string> = {
  checkout: "Thank you. The subscription starts as soon as Stripe confirms the payment (usually within seconds): reload this page to see it.",
  "checkout-cancelled": "Checkout was cancelled; nothing was charged.",
  "plan-changed": "The plan is changed. The difference is prorated on the next invoice.",
  "sites-saved": "Covered sites saved.",
  cancelled: "The subscription will end at the period's end. You can resume it until then.",
  resumed: "The subscription continues.",
};

export const billingPages = new Hono<DashApp>();

/**
 * Forms on these pages end in a redirect to Stripe (Checkout, the Customer Portal), and a
 * page's CSP `form-action` also governs where its forms' redirects may go: Stripe's hosts are
 * allowed here (and the local fake's origin when STRIPE_API_BASE points at one).
 */
billingPages.use("/organizations/:org_id/billing", async (c, next) => {
  await next();
  const fake = c.env.STRIPE_API_BASE ? ` ${new URL(c.env.STRIPE_API_BASE).origin}` : "";
  c.header("Content-Security-Policy", DASHBOARD_CSP.replace("form-action 'self'", `form-action 'self' https://checkout.stripe.com https://billing.stripe.com${fake}`));
});

const orgIdOf = (c: DashContext) => {
  const n = Number(c.req.param("org_id"));
  return Number.isSafeInteger(n) && n > 0 ? n : -1;
};
const page = (c: DashContext) => `/dashboard/organizations/${orgIdOf(c)}/billing`;

async function render(c: DashContext, a: OrgAccess, extra: { notice?: string | null; error?: string | null; choose?: SiteChoice | null } = {}) {
  const view = await billingView(c.env, a.organizationId, c.var.clock());
  const nav = { organizationId: a.organizationId, organization: a.organization, role: a.role, current: "billing" as const };
  const html = await (<BillingPage nav={nav} viewer={{ email: c.get("user")!.email }} view={view} {...extra} />).toString();
  return c.html("<!DOCTYPE html>" + html);
}

async function formOf(c: DashContext) {
  // The covered sites' checkboxes: up to the 1,000 ids `ids` accepts, and a few fields more.
  const body = await form(c, { fields: 1_010 });
  const all = (name: string) => {
    const v = body[name];
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === "string");
  };
  return { one: (name: string) => all(name)[0] ?? "", all };
}

function planFrom(value: string) {
  const parsed = PlanIn.safeParse(value);
  if (!parsed.success) throw new ApiError(422, "plan: choose one of pro, agency, growth or scale.");
  return parsed.data;
}

const ids = (values: string[]) => {
  const parsed = z.array(z.coerce.number().int().positive()).max(1_000).safeParse(values);
  if (!parsed.success) throw new ApiError(422, "sites: a list of site ids.");
  return parsed.data;
};

billingPages.get("/organizations/:org_id/billing", async (c) => {
  const a = await orgAccess(c, orgIdOf(c), "editor");
  return render(c, a, { notice: NOTICES[c.req.query("done") ?? ""] ?? null });
});

billingPages.post("/organizations/:org_id/billing/checkout", async (c) => {
  const a = await orgAccess(c, orgIdOf(c), "owner");
  const f = await formOf(c);
  const { url } = await startCheckout(c.env, a.actor, a.organizationId, planFrom(f.one("plan")), dashboardBase(c), c.var.clock());
  return c.redirect(url, 303);
});

billingPages.post("/organizations/:org_id/billing/plan", async (c) => {
  const a = await orgAccess(c, orgIdOf(c), "owner");
  const f = await formOf(c);
  const plan = planFrom(f.one("plan"));
  // The site chooser marks itself (`choosing`), so a chooser with no box ticked keeps no site.
  const keep = f.one("choosing") ? ids(f.all("keep")) : undefined;
  const result = await changePlan(c.env, a.actor, a.organizationId, plan, keep, c.var.clock());
  if (result.kind === "choose-sites")
    return render(c, a, {
      choose: { plan, limit: result.limit, covered: result.covered },
      error: `The ${plan} plan covers at most ${PLANS[plan].maxSites} sites: choose which stay covered.`,
    });
  return c.redirect(`${page(c)}?done=plan-changed`, 303);
});

billingPages.post("/organizations/:org_id/billing/sites", async (c) => {
  const a = await orgAccess(c, orgIdOf(c), "owner");
  const f = await formOf(c);
  await setCoveredSites(c.env, a.actor, a.organizationId, ids(f.all("site")), c.var.clock());
  return c.redirect(`${page(c)}?done=sites-saved`, 303);
});

billingPages.post("/organizations/:org_id/billing/portal", async (c) => {
  const a = await orgAccess(c, orgIdOf(c), "owner");
  const { url } = await portalSession(c.env, a.actor, a.organizationId, dashboardBase(c), c.var.clock());
  return c.redirect(url, 303);
});

billingPages.post("/organizations/:org_id/billing/cancel", async (c) => {
  const a = await orgAccess(c, orgIdOf(c), "owner");
  await setCancelAtPeriodEnd(c.env, a.actor, a.organizationId, true, c.var.clock());
  return c.redirect(`${page(c)}?done=cancelled`, 303);
});

billingPages.post("/organizations/:org_id/billing/resume", async (c) => {
  const a = await orgAccess(c, orgIdOf(c), "owner");
  await setCancelAtPeriodEnd(c.env, a.actor, a.organizationId, false, c.var.clock());
  return c.redirect(`${page(c)}?done=resumed`, 303);
});

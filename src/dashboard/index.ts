/**
 * The dashboard: a Hono app mounted at /dashboard, made of one sub-app per resource. Each
 * sub-app checks access (access.ts), calls the operations of `src/ops/` (the same ones the
 * admin API calls) or reads through the site object, and renders a page (pages/). No SQL
 * and no business rule lives in a handler.
 *
 * Every response carries a Content-Security-Policy without inline scripts or styles; every
 * state-changing request must come from the dashboard's own origin (hono/csrf); pages are
 * never cached. Forms are plain HTML: everything works without JavaScript.
 */
import { Hono } from "hono";
import { csrf } from "hono/csrf";
import { DASHBOARD_CSP, setPageHeaders } from "../page-headers";
import { account } from "./account.app";
import { attention } from "./attention.app";
import { audit } from "./audit.app";
import { type DashApp, loadUser } from "./auth";
import { billingPages } from "./billing.app";
import { devMail } from "./dev-mail.app";
import { dashboardError, dashboardNotFound } from "./errors";
import { glossary } from "./glossary.app";
import { invitations } from "./invitations.app";
import { keys } from "./keys.app";
import { members } from "./members.app";
import { memory } from "./memory.app";
import { passwordReset } from "./password-reset.app";
import { session } from "./session.app";
import { settings } from "./settings.app";
import { signUpApp } from "./sign-up.app";
import { sites } from "./sites.app";
import { twoFactorGate } from "./two-factor-gate";
import { units } from "./units.app";
import { usage } from "./usage.app";
import { webhooks } from "./webhooks.app";

export const CSP = DASHBOARD_CSP;

export const dashboard = new Hono<DashApp>();

dashboard.use(async (c, next) => {
  await next();
  // A sub-app may widen the CSP for its own pages (billing: forms that redirect to Stripe).
  setPageHeaders(c, c.res.headers.get("Content-Security-Policy") ?? CSP);
  if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
});
dashboard.use(csrf());
dashboard.use(loadUser);
// Before anything else: an unverified address can only verify; a person whose organization requires two-factor sets it up.
dashboard.use(twoFactorGate);
dashboard.onError(dashboardError);

// Signing in, password reset, sign-up, one's own account and invitation links; a site's pages;
// an organization's pages; the local mailbox (404 unless DEV_MAILBOX=true).
for (const sub of [
  session,
  passwordReset,
  signUpApp,
  account,
  invitations,
  sites,
  units,
  attention,
  keys,
  webhooks,
  settings,
  glossary,
  memory,
  usage,
  billingPages,
  members,
  audit,
  devMail,
])
  dashboard.route("/", sub);

dashboard.all("*", dashboardNotFound);

/** What every dashboard handler answers with: a rendered page, the notice after a redirect, the navigation. */
import type { JSX } from "hono/jsx/jsx-runtime";
import type { SiteSettings } from "../control/sites.control";
import { log, redactError } from "../obs/log";
import type { OrgAccess } from "./access";
import type { DashContext } from "./auth";
import type { OrgNav, SiteNav } from "./pages/layout";

/** What `?done=` says after a redirect (codes, never free text from the URL). */
const NOTICES: Record<string, string> = {
  "signed-out": "You are signed out.",
  joined: "Welcome! You have joined the organization.",
  "password-changed": "Your password is changed. Other sessions were signed out.",
  "password-reset": "Your new password is saved and every session was signed out. Sign in with the new password.",
  "sign-in-expired": "The sign-in took too long. Sign in again.",
  verified: "Your address is confirmed. Welcome to Transync!",
  "verified-sign-in": "Your address is confirmed. Sign in to continue.",
  confirmed: "Your address is confirmed and your password saved. Sign in with it to continue.",
  "session-ended": "That session is signed out.",
  "others-ended": "You are signed out everywhere else.",
  "mail-saved": "Mail settings saved.",
  "two-factor-off": "Two-factor sign-in is off. Other sessions were signed out.",
  "invitation-sent": "The invitation is on its way by mail.",
  "invitation-resent": "The invitation was sent again, with a new link (the earlier one no longer works).",
  "two-factor-required": "Two-factor sign-in is now required of every member.",
  "two-factor-optional": "Two-factor sign-in is no longer required.",
  "site-created": "The site is created. Create its API keys on the keys page.",
  "job-cancelled": "The job is cancelled. Segments already translated are kept.",
  fixed: "Saved: the fixed translation goes to the website with the next sync.",
  discarded: "Discarded: the segment stays untranslated until the next job.",
  "key-revoked": "The key is revoked. It stops working within a minute.",
  "settings-saved": "Settings saved. They apply at once, also to queued and running jobs.",
  "term-added": "Term added.",
  "term-removed": "Term removed.",
  imported: "Glossary imported.",
  "memory-edited": "Saved: the entry is now origin human, and later jobs deliver the corrected text.",
  "memory-deleted": "The memory entry is deleted.",
  "member-removed": "Member removed.",
  "invitation-withdrawn": "Invitation withdrawn: its link no longer works.",
  "site-deleted": "The site is deleted.",
  "organization-deleted": "The organization is deleted.",
  "webhook-test": "A test event (ping) is on its way; its delivery appears below within seconds.",
  "webhook-enabled": "The webhook is enabled again: the next events are sent.",
  "webhook-removed": "The webhook is removed. The connector can still poll for results.",
  "webhook-redelivered": "The delivery is sent again, with the same webhook-id.",
};

export type PageStatus = 200 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 500;

export async function render(c: DashContext, page: JSX.Element, status: PageStatus = 200) {
  return c.html(`<!DOCTYPE html>${await page.toString()}`, status);
}

/** Runs work after the answer (mails, and what must not show in the answer's timing); awaited where there is no execution context. */
export async function afterAnswer(c: DashContext, work: Promise<unknown>) {
  const guarded = work.catch((err) => log("error", "dashboard.after_failed", { error: redactError(err) }));
  try {
    c.executionCtx.waitUntil(guarded);
  } catch {
    await guarded;
  }
}

export const notice = (c: DashContext) => NOTICES[c.req.query("done") ?? ""] ?? null;

export const viewer = (c: DashContext) => ({ email: c.get("user")!.email, userId: c.get("user")!.userId });

export type SiteAccess = OrgAccess & { site: SiteSettings };

export const siteNav = (a: SiteAccess, current: SiteNav["current"]): SiteNav => ({
  siteId: a.site.id,
  siteName: a.site.name,
  organizationId: a.organizationId,
  organization: a.organization,
  role: a.role,
  current,
});

export const orgNav = (a: OrgAccess, current: OrgNav["current"]): OrgNav => ({ organizationId: a.organizationId, organization: a.organization, role: a.role, current });

/** What every site page is framed with: the site's navigation at `current`, and who is viewing. */
export const siteFrame = (c: DashContext, a: SiteAccess, current: SiteNav["current"]) => ({ nav: siteNav(a, current), viewer: viewer(c) });

/** What every organization page is framed with. */
export const orgFrame = (c: DashContext, a: OrgAccess, current: OrgNav["current"]) => ({ nav: orgNav(a, current), viewer: viewer(c) });

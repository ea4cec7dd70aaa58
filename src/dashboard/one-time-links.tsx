/**
 * What the pages of one-time links share (docs/decisions.md "One-time tokens stay out of request
 * lines"): a mailed link is `/dashboard/<kind>#<token>`. Its GET answers a page that asks for the
 * code (public/dashboard-link.js fills it from the fragment and continues); `POST …/open` looks
 * the token up and shows the real form with the token in a hidden field; the form's POST acts.
 * No request line ever holds a token, so request logs never keep one.
 */
import { LINK_PAGE_CSP } from "../page-headers";
import type { DashContext } from "./auth";
import { type Form, str } from "./form";
import { LinkCodePage } from "./pages/accounts.page";
import { render } from "./respond";

/** The page a link opens, with the one script its CSP allows; its query (an invitation's `next`, a notice) goes on to `action`. */
export function linkCodePage(c: DashContext, p: { title: string; action: string }) {
  c.header("Content-Security-Policy", LINK_PAGE_CSP);
  return render(c, <LinkCodePage title={p.title} action={`${p.action}${new URL(c.req.url).search}`} />);
}

/** The token a form carries: the hidden field, or the code pasted (a whole link pasted gives its fragment). */
export function tokenOf(f: Form): string {
  const raw = str(f, "token").trim();
  return raw.slice(raw.lastIndexOf("#") + 1).slice(0, 200);
}

/**
 * A link of the old form (`/dashboard/reset/<token>` …: mails sent before tokens moved to the
 * fragment, for as long as they live, 7 days at most): sent on to the new form with the token in
 * the fragment, so the link still works and none of the requests after it holds the token.
 */
export function oldLink(c: DashContext, path: string) {
  const search = new URL(c.req.url).search;
  return c.redirect(`${path}${search}#${encodeURIComponent(c.req.param("token") ?? "")}`, 303);
}

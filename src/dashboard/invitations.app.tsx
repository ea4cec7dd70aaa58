/**
 * Opening and accepting an invitation link (/dashboard/invitations#<token>, as one-time-links.tsx
 * says: the token never in a URL). Who may accept is ops/people.ops.ts's rule (an existing account
 * only signed in as itself); a refusal shows the page again, saying why.
 */
import { Hono } from "hono";
import { ApiError } from "../errors";
import { acceptInvitation, openInvitationOf } from "../ops/people.ops";
import { startSession } from "../ops/sessions.ops";
import { clientIp, type DashApp, type DashContext, limited, setSessionCookie } from "./auth";
import { form, str } from "./form";
import { linkCodePage, oldLink, tokenOf } from "./one-time-links";
import { InvitationGonePage, InvitationPage } from "./pages/invitation.page";
import { TooManyAttemptsPage } from "./pages/sign-in.page";
import { dashboardPath, dashboardTarget, withDone } from "./redirect";
import { notice, render } from "./respond";

export const invitations = new Hono<DashApp>();

/** Signed out, these are forms anyone can send: the client's limit comes before they are read. */
async function signedOutLimit(c: DashContext) {
  if (c.get("user")) return null;
  const retry = await limited(c, [`ip:${clientIp(c)}`]);
  if (retry === null) return null;
  c.header("Retry-After", String(retry));
  return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
}

// `next` (a dashboard path, e.g. the demo site's page printed by `npm run dev`) is where the person lands once joined.
invitations.get("/invitations", (c) => linkCodePage(c, { title: "Join an organization", action: "/dashboard/invitations/open" }));
invitations.get("/invitations/:token", (c) => oldLink(c, "/dashboard/invitations"));

invitations.post("/invitations/open", async (c) => {
  const refused = await signedOutLimit(c);
  if (refused) return refused;
  const token = tokenOf(await form(c));
  const user = c.get("user");
  const inv = await openInvitationOf(c.env, token);
  if (!inv) return render(c, <InvitationGonePage viewer={user} />, 404);
  return render(c, <InvitationPage token={token} invitation={inv} viewer={user} next={dashboardPath(c.req.query("next") ?? "") ?? ""} notice={notice(c)} />);
});

invitations.post("/invitations", async (c) => {
  const refused = await signedOutLimit(c);
  if (refused) return refused;
  const f = await form(c);
  const token = tokenOf(f);
  // Checked before anything is done.
  const next = dashboardTarget(str(f, "next"), "next");
  const user = c.get("user");
  let accepted: Awaited<ReturnType<typeof acceptInvitation>>;
  try {
    accepted = await acceptInvitation(c.env, token, { signedIn: user, password: str(f, "password") }, c.var.hashPassword);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const inv = err.status === 404 ? undefined : await openInvitationOf(c.env, token);
    if (!inv) return render(c, <InvitationGonePage viewer={user} />, 404);
    return render(c, <InvitationPage token={token} invitation={inv} viewer={user} error={err.detail} next={next ?? ""} />, err.status as 401 | 403 | 422);
  }
  if (accepted.newAccount) setSessionCookie(c, await startSession(c.env, accepted.userId, c.req.header("user-agent")));
  return c.redirect(withDone(next ?? "/dashboard", "joined"), 303);
});

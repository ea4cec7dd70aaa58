/** Opening and accepting an invitation link (a new person chooses a password; an existing one joins). */
import { Hono } from "hono";
import { ApiError } from "../errors";
import { acceptInvitation, openInvitationOf } from "../ops/people";
import { startSession } from "../ops/sessions";
import { type DashApp, setSessionCookie } from "./auth";
import { form, safeNext, str } from "./form";
import { InvitationGonePage, InvitationPage } from "./pages/invitation";
import { render } from "./respond";

export const invitations = new Hono<DashApp>();

invitations.get("/invitations/:token", async (c) => {
  const user = c.get("user");
  const inv = await openInvitationOf(c.env, c.req.param("token"));
  if (!inv) return render(c, <InvitationGonePage viewer={user} />, 404);
  return render(c, <InvitationPage token={c.req.param("token")} invitation={inv} viewer={user} next={c.req.query("next") ?? ""} />);
});

invitations.post("/invitations/:token", async (c) => {
  const token = c.req.param("token");
  const f = await form(c);
  let accepted: Awaited<ReturnType<typeof acceptInvitation>>;
  try {
    accepted = await acceptInvitation(c.env, token, str(f, "password"));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const inv = err.status === 422 ? await openInvitationOf(c.env, token) : undefined;
    if (!inv) return render(c, <InvitationGonePage viewer={c.get("user")} />, 404);
    return render(c, <InvitationPage token={token} invitation={inv} viewer={c.get("user")} error={err.detail} next={str(f, "next")} />, 422);
  }
  const current = c.get("user");
  // `next` (a dashboard path, e.g. the demo site's page printed by `npm run dev`) is where the person lands.
  const next = safeNext(str(f, "next"));
  const landing = (done: string) => `${next}${next.includes("?") ? "&" : "?"}done=${done}`;
  if (accepted.newAccount) {
    setSessionCookie(c, await startSession(c.env, accepted.userId));
    return c.redirect(landing("joined"), 303);
  }
  if (current?.userId === accepted.userId) return c.redirect(landing("joined"), 303);
  return c.redirect(`/dashboard?done=joined-sign-in&next=${encodeURIComponent(next)}`, 303);
});

/**
 * Self-serve sign-up (SIGNUP=open; 404 otherwise): /dashboard/sign-up (name and address) → the
 * verification mail → /dashboard/verify#<token> (one-time-links.tsx: the token never in a URL),
 * whose form confirms the address by choosing the password → sign-in with it → their
 * organization → its first site → the first API key beside a quick start. Nobody is signed in
 * before the address is verified, and nobody but the mailbox's owner ever sets the password.
 * Owners add further sites the same way from the organization's page. Sign-ups are limited per
 * client network (SIGNIN_LIMITER), verification mails per address and day (MAIL_LIMITS.verify).
 */
import { Hono } from "hono";
import { controlDb } from "../control/db";
import { sitesOf } from "../control/people.control";
import { ApiError } from "../errors";
import { ADAPTERS } from "../limits";
import { mailBase } from "../links";
import {
  createOrganizationAsOwner,
  createSiteAsOwner,
  firstKey,
  resendVerification,
  runnableEngines,
  sendVerification,
  signUp,
  signUpProblem,
  signupOpen,
  verifyEmail,
  verifyLinkOf,
} from "../ops/signup.ops";
import { orgAccess, requireUser } from "./access";
import { clearSessionCookie, clientIp, type DashApp, type DashContext, limited } from "./auth";
import { type Form, form, id, str, strs } from "./form";
import { linkCodePage, oldLink, tokenOf } from "./one-time-links";
import { CheckMailPage, FirstKeyPage, LinkGonePage, NewOrganizationPage, NewSitePage, SignUpPage, VerifyPage } from "./pages/accounts.page";
import { TooManyAttemptsPage } from "./pages/sign-in.page";
import { afterAnswer, render, viewer } from "./respond";

export const signUpApp = new Hono<DashApp>();

const closed = () => new ApiError(404, "There is no such page in the dashboard.");

signUpApp.get("/sign-up", (c) => {
  if (!signupOpen(c.env)) throw closed();
  if (c.get("user")) return c.redirect("/dashboard", 303);
  return render(c, <SignUpPage />);
});

signUpApp.post("/sign-up", async (c) => {
  if (!signupOpen(c.env)) throw closed();
  // The limit before the form is read: an unauthenticated form costs nothing past it.
  const retry = await limited(c, [`signup:ip:${clientIp(c)}`]);
  if (retry !== null) return tooMany(c, retry);
  const f = await form(c);
  const input = { email: str(f, "email").trim().slice(0, 300), name: str(f, "name").slice(0, 200) };
  const problem = signUpProblem(input);
  if (problem) return render(c, <SignUpPage values={input} error={problem} />, 422);
  // The same page whether or not the address has an account; what differs is mailed, after the answer.
  await afterAnswer(c, signUp(c.env, input, mailBase(c), c.var.clock()));
  return render(c, <CheckMailPage />);
});

function tooMany(c: DashContext, retry: number) {
  c.header("Retry-After", String(retry));
  return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
}

// Before /verify/:token, which would take "resend" for a token.
signUpApp.get("/verify/resend", (c) => {
  const user = c.get("user");
  if (user?.verified) return c.redirect("/dashboard", 303);
  return render(c, <CheckMailPage viewer={user ? viewer(c) : null} />);
});

signUpApp.post("/verify/resend", async (c) => {
  const user = c.get("user");
  if (user?.verified) return c.redirect("/dashboard", 303);
  const base = mailBase(c);
  if (user) {
    // A session from before sign-in needed a verified address.
    const retry = await limited(c, [`verify:user:${user.userId}`]);
    if (retry !== null) return tooMany(c, retry);
    await sendVerification(c.env, user.userId, user.email, base, c.var.clock());
    return render(c, <CheckMailPage viewer={viewer(c)} resent />);
  }
  const ipRetry = await limited(c, [`ip:${clientIp(c)}`]);
  if (ipRetry !== null) return tooMany(c, ipRetry);
  const email = str(await form(c), "email")
    .trim()
    .slice(0, 254);
  if (!email) return render(c, <CheckMailPage />, 422);
  const retry = await limited(c, [`verify:${email.toLowerCase()}`]);
  if (retry !== null) return tooMany(c, retry);
  // The same page whether or not the address has an account waiting; the mail goes after the answer.
  await afterAnswer(c, resendVerification(c.env, email, base, c.var.clock()));
  return render(c, <CheckMailPage resent />);
});

const resendAgain = { href: "/dashboard/verify/resend", label: "Send a new link" };

signUpApp.get("/verify", (c) => linkCodePage(c, { title: "Confirm your address", action: "/dashboard/verify/open" }));
// After /verify/resend, which it would take for a token.
signUpApp.get("/verify/:token", (c) => oldLink(c, "/dashboard/verify"));

/** The client's limit before a signed-out form is read. */
async function clientLimit(c: DashContext) {
  const retry = await limited(c, [`ip:${clientIp(c)}`]);
  return retry === null ? null : tooMany(c, retry);
}

// Opening only looks the link up: a scanner that runs the page's script changes nothing.
signUpApp.post("/verify/open", async (c) => {
  const refused = await clientLimit(c);
  if (refused) return refused;
  const token = tokenOf(await form(c));
  const link = await verifyLinkOf(c.env, token, c.var.clock());
  if ("gone" in link) return render(c, <LinkGonePage detail={link.gone} again={resendAgain} />, 410);
  return render(c, <VerifyPage token={token} email={link.email} name={link.name} />);
});

// Verifies and sets the password; signs nobody in and leaves the browser's own session as it is (unless it is one of this account's, which all end).
signUpApp.post("/verify", async (c) => {
  const refused = await clientLimit(c);
  if (refused) return refused;
  const f = await form(c);
  const token = tokenOf(f);
  const input = { name: str(f, "name").slice(0, 200), password: str(f, "password").slice(0, 1000) };
  let verified: Awaited<ReturnType<typeof verifyEmail>>;
  try {
    verified = await verifyEmail(c.env, token, input, c.var.clock(), c.var.hashPassword);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const link = err.status === 422 ? await verifyLinkOf(c.env, token, c.var.clock()) : null;
    if (link && !("gone" in link)) return render(c, <VerifyPage token={token} email={link.email} name={input.name} error={err.detail} />, 422);
    return render(c, <LinkGonePage detail={err.detail} again={resendAgain} />, 410);
  }
  if (c.get("user")?.userId === verified.userId) clearSessionCookie(c);
  return c.redirect("/dashboard?done=confirmed", 303);
});

// ------------------------------------------------------------------ organization and sites

signUpApp.get("/organizations/new", (c) => {
  requireUser(c);
  if (!signupOpen(c.env)) throw closed();
  return render(c, <NewOrganizationPage viewer={viewer(c)} />);
});

signUpApp.post("/organizations", async (c) => {
  const user = requireUser(c);
  if (!signupOpen(c.env)) throw closed();
  try {
    const orgId = await createOrganizationAsOwner(c.env, user.userId, str(await form(c), "name"));
    return c.redirect(`/dashboard/organizations/${orgId}/sites/new`, 303);
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return render(c, <NewOrganizationPage viewer={viewer(c)} error={err.detail} />, 422);
    throw err;
  }
});

async function newSitePage(c: DashContext, orgId: number, extra: { error?: string; values?: Record<string, string> } = {}) {
  const a = await orgAccess(c, orgId, "owner");
  const sites = await sitesOf(controlDb(c.env.DB), [a.organizationId]);
  return render(
    c,
    <NewSitePage
      viewer={viewer(c)}
      organizationId={a.organizationId}
      organization={a.organization}
      engines={runnableEngines(c.env)}
      adapters={ADAPTERS}
      first={sites.length === 0}
      {...extra}
    />,
    extra.error ? 422 : 200,
  );
}

signUpApp.get("/organizations/:org_id/sites/new", async (c) => newSitePage(c, id(c.req.param("org_id"))));

/** The form as the admin API's site body. */
function siteBody(f: Form) {
  const targets = [];
  for (let i = 0; i < 5; i++) {
    const code = str(f, `t${i}_code`).trim();
    if (code) targets.push({ code, engine: str(f, `t${i}_engine`) || "pseudo" });
  }
  return { name: str(f, "name").trim(), source_language: str(f, "source_language").trim(), target_languages: targets, enabled_adapters: strs(f, "adapters") };
}

signUpApp.post("/organizations/:org_id/sites", async (c) => {
  const a = await orgAccess(c, id(c.req.param("org_id")), "owner");
  const f = await form(c);
  const db = controlDb(c.env.DB);
  const first = (await sitesOf(db, [a.organizationId])).length === 0;
  let site: Awaited<ReturnType<typeof createSiteAsOwner>>;
  try {
    site = await createSiteAsOwner(c.env, a.organizationId, siteBody(f), a.actor);
  } catch (err) {
    if (err instanceof ApiError && err.status === 422)
      return newSitePage(c, a.organizationId, {
        error: err.detail,
        values: Object.fromEntries(Object.entries(f).filter(([, v]) => typeof v === "string")) as Record<string, string>,
      });
    throw err;
  }
  if (!first) return c.redirect(`/dashboard/sites/${site.id}?done=site-created`, 303);
  // The first site: its first key, shown once beside a quick start (rendered, never stored).
  const key = await firstKey(c.env, a.organizationId, site.id, a.actor);
  return render(
    c,
    <FirstKeyPage
      viewer={viewer(c)}
      siteId={site.id}
      siteName={site.name}
      apiKey={key.key}
      apiBase={new URL(c.req.url).origin}
      sourceLanguage={site.sourceLanguage}
      languages={site.targetLanguages.map((t) => t.code)}
    />,
  );
});

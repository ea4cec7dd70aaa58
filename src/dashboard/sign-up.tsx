/**
 * Self-serve sign-up (SIGNUP=open; 404 otherwise): /dashboard/sign-up → the verification
 * mail → /dashboard/verify/{token} (signs the person in) → their organization → its first
 * site → the first API key beside a quick start. Owners add further sites the same way from
 * the organization's page. Sign-ups are limited per client address (SIGNIN_LIMITER).
 */
import { Hono } from "hono";
import { controlDb } from "../control/db";
import { sitesOf } from "../control/people";
import { ApiError } from "../errors";
import { ADAPTERS } from "../limits";
import { dashboardBase } from "../links";
import { startSession } from "../ops/sessions";
import { createOrganizationAsOwner, createSiteAsOwner, firstKey, runnableEngines, sendVerification, signUp, signUpProblem, signupOpen, verifyEmail } from "../ops/signup";
import { orgAccess, requireUser } from "./access";
import { clientIp, type DashApp, type DashContext, limited, setSessionCookie } from "./auth";
import { type Form, form, id, str, strs } from "./form";
import { CheckMailPage, FirstKeyPage, LinkGonePage, NewOrganizationPage, NewSitePage, SignUpPage } from "./pages/accounts";
import { TooManyAttemptsPage } from "./pages/sign-in";
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
  const f = await form(c);
  const input = { email: str(f, "email").trim().slice(0, 300), name: str(f, "name").slice(0, 200), password: str(f, "password").slice(0, 1000) };
  const retry = await limited(c, [`signup:ip:${clientIp(c)}`]);
  if (retry !== null) {
    c.header("Retry-After", String(retry));
    return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
  }
  const problem = signUpProblem(input);
  if (problem) return render(c, <SignUpPage values={input} error={problem} />, 422);
  // The same page whether or not the address has an account; what differs is mailed, after the answer.
  await afterAnswer(c, signUp(c.env, input, dashboardBase(c)));
  return render(c, <CheckMailPage />);
});

signUpApp.get("/verify/:token", async (c) => {
  let verified: Awaited<ReturnType<typeof verifyEmail>>;
  try {
    verified = await verifyEmail(c.env, c.req.param("token"));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return render(c, <LinkGonePage detail={err.detail} again={{ href: "/dashboard", label: "Sign in" }} />, 410);
  }
  const current = c.get("user");
  if (current?.userId === verified.userId) return c.redirect("/dashboard?done=verified", 303);
  if (!verified.signIn) return c.redirect("/dashboard?done=verified-sign-in", 303);
  setSessionCookie(c, await startSession(c.env, verified.userId, c.req.header("user-agent")));
  return c.redirect("/dashboard?done=verified", 303);
});

signUpApp.post("/verify/resend", async (c) => {
  const user = requireUser(c);
  if (user.verified) return c.redirect("/dashboard", 303);
  const retry = await limited(c, [`verify:user:${user.userId}`]);
  if (retry !== null) {
    c.header("Retry-After", String(retry));
    return render(c, <TooManyAttemptsPage retryAfter={retry} />, 429);
  }
  await sendVerification(c.env, user.userId, user.email, dashboardBase(c));
  return render(c, <CheckMailPage viewer={viewer(c)} resent />);
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

/**
 * The dashboard: a Hono sub-app mounted at /dashboard. Each handler checks access
 * (access.ts), loads data through the same site-object methods and control-plane functions
 * as the API, and renders a page (pages/). No SQL and no business rule lives here: settings
 * go through `updateSiteSettings`, jobs through `requestJob`, decisions through
 * `decideAttention`, keys through `createKey`/`revokeKey`, erasure through `eraseSite`.
 *
 * Every response carries a Content-Security-Policy without inline scripts or styles; every
 * state-changing request must come from the dashboard's own origin (hono/csrf); pages are
 * never cached. Forms are plain HTML: everything works without JavaScript.
 */
import { Hono } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { AttentionDecisionIn, JobIn, KeyCreateIn, SitePatchIn } from "../api/schemas";
import { validationDetail } from "../api/issues";
import { organizationUsage } from "../billing/usage";
import { listAudit, recordAudit } from "../control/audit";
import { controlDb } from "../control/db";
import { eraseOrganization, eraseSite } from "../control/erasure";
import { glossaryChanged } from "../glossary";
import { addTerm, glossaryCsv, listGlossary, parseGlossaryCsv, removeTerm, replaceGlossary } from "../control/glossary";
import { createKey, listKeys, revokeKey } from "../control/keys";
import {
  acceptInvitation,
  canInvite,
  listMembers,
  membershipsOf,
  openInvitation,
  pendingInvitations,
  removeMember,
  revokeInvitation,
  ROLES,
  sitesOf,
  type Role,
} from "../control/people";
import { createSession, endSession } from "../control/sessions";
import type { SiteSettings } from "../control/sites";
import { ApiError } from "../errors";
import { inviteByMail, resendInvitation } from "../ops/accounts";
import { rememberStarter } from "../mail/notices";
import { organizationRequiresTwoFactor, setTwoFactorRequirement } from "../ops/two-factor";
import { ADAPTERS, ENGINES, FORMALITIES } from "../limits";
import type { QAIssue } from "../qa";
import { dashboardBase, siteStub } from "../routes/common";
import { requestJob } from "../routes/job-request";
import { updateSiteSettings } from "../site-settings";
import { can, orgAccess, requireUser, SignInRequired, siteAccess, type OrgAccess } from "./access";
import { dashboardPath, dashboardTarget, withDone } from "./redirect";
import { clearSessionCookie, loadUser, setSessionCookie, type DashApp, type DashContext } from "./auth";
import { DASHBOARD_CSP, setPageHeaders } from "../page-headers";
import { AttentionConfirmPage, AttentionPage } from "./pages/attention";
import { AuditPage } from "./pages/audit";
import { ErrorPage } from "./pages/error";
import { GlossaryPage } from "./pages/glossary";
import { HomePage } from "./pages/home";
import { InvitationGonePage, InvitationPage } from "./pages/invitation";
import { KeysPage } from "./pages/keys";
import type { OrgNav, SiteNav } from "./pages/layout";
import { MembersPage } from "./pages/members";
import { SettingsPage } from "./pages/settings";
import { SignInPage } from "./pages/sign-in";
import { account } from "./account";
import { devMail } from "./dev-mail";
import { form, id, render, str, strs, viewer, type Form } from "./kit";
import { passwordReset } from "./password-reset";
import { signIn } from "./sign-in";
import { signUpApp } from "./sign-up";
import { twoFactorGate } from "./two-factor-gate";
import { EstimatePage, SitePage } from "./pages/site";
import { UnitPage } from "./pages/unit";
import { UnitsPage } from "./pages/units";
import { UsagePage } from "./pages/usage";

export const CSP = DASHBOARD_CSP;

/** What `?done=` says after a redirect (codes, never free text from the URL). */
const NOTICES: Record<string, string> = {
  "signed-out": "You are signed out.",
  joined: "Welcome! You have joined the organization.",
  "password-reset": "Your new password is saved and every session was signed out. Sign in with the new password.",
  "sign-in-expired": "The sign-in took too long. Sign in again.",
  verified: "Your address is confirmed. Welcome to Transync!",
  "verified-sign-in": "Your address is confirmed. Sign in to continue.",
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
  "member-removed": "Member removed.",
  "invitation-withdrawn": "Invitation withdrawn: its link no longer works.",
  "site-deleted": "The site is deleted.",
  "organization-deleted": "The organization is deleted.",
};

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

const notice = (c: DashContext) => NOTICES[c.req.query("done") ?? ""] ?? null;
const siteNav = (a: OrgAccess & { site: SiteSettings }, current: SiteNav["current"]): SiteNav => ({
  siteId: a.site.id,
  siteName: a.site.name,
  organizationId: a.organizationId,
  organization: a.organization,
  role: a.role,
  current,
});
const orgNav = (a: OrgAccess, current: OrgNav["current"]): OrgNav => ({ organizationId: a.organizationId, organization: a.organization, role: a.role, current });

export const dashboard = new Hono<DashApp>();

dashboard.use(async (c, next) => {
  await next();
  // A page that brings its own policy keeps it (the local mailbox's view of a mail's HTML part).
  setPageHeaders(c, c.res.headers.get("Content-Security-Policy") ?? CSP);
  if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
});
dashboard.use(csrf());
dashboard.use(loadUser);
// Before anything else: an unverified address can only verify; a person whose organization requires two-factor sets it up.
dashboard.use(twoFactorGate);

dashboard.onError(async (err, c) => {
  const ctx = c as DashContext;
  if (err instanceof SignInRequired) {
    // The address as the browser sent it (percent-encoded), not Hono's decoded path.
    const url = new URL(c.req.url);
    const next = c.req.method === "GET" ? `?next=${encodeURIComponent(url.pathname + url.search)}` : "";
    return c.redirect(`/dashboard${next}`, 303);
  }
  const user = ctx.get("user") ?? null;
  const v = user ? { email: user.email } : null;
  // After a refused form, "Go back" returns to the page it came from (only ever a dashboard page of this origin).
  const referer = c.req.method === "POST" ? c.req.header("referer") : undefined;
  const back = referer?.startsWith(new URL(c.req.url).origin + "/dashboard") ? (dashboardPath(referer.slice(new URL(c.req.url).origin.length)) ?? undefined) : undefined;
  if (err instanceof ApiError) return render(ctx, <ErrorPage status={err.status} detail={err.detail} viewer={v} back={back} />, err.status as 404);
  if (err instanceof HTTPException && err.status === 403)
    return render(ctx, <ErrorPage status={403} detail="This form was sent from another website, so it was refused. Open the dashboard directly and try again." viewer={v} />, 403);
  if (err instanceof HTTPException && err.status === 413) return render(ctx, <ErrorPage status={413} detail="The upload is larger than 10 MB." viewer={v} />, 413);
  console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), where: "dashboard", error: String(err).replace(/params:.*$/gms, "params: [redacted]") }));
  return render(ctx, <ErrorPage status={500} detail={`Please try again. If it keeps happening, contact support and quote request id ${c.get("requestId")}.`} viewer={v} />, 500);
});

// ------------------------------------------------------------------ signing in

dashboard.get("/", async (c) => {
  const user = c.get("user");
  if (!user) return render(c, <SignInPage notice={notice(c)} next={dashboardPath(c.req.query("next") ?? "") ?? ""} signUp={c.env.SIGNUP === "open"} />);
  const db = controlDb(c.env.DB);
  const memberships = await membershipsOf(db, user.userId);
  const sites = await sitesOf(
    db,
    memberships.map((m) => m.organizationId),
  );
  return render(c, <HomePage viewer={viewer(c)} memberships={memberships} sites={sites} notice={notice(c)} signUpOpen={c.env.SIGNUP === "open"} />);
});

dashboard.route("/", signIn);
dashboard.route("/", passwordReset);
dashboard.route("/", account);
dashboard.route("/", signUpApp);
dashboard.route("/", devMail);

dashboard.post("/sign-out", async (c) => {
  // `next`: an invitation for another email signs out to come back to its link.
  const next = dashboardTarget(str(await form(c), "next"), "next");
  const token = c.get("sessionToken");
  if (token) await endSession(controlDb(c.env.DB), token);
  clearSessionCookie(c);
  return c.redirect(withDone(next ?? "/dashboard", "signed-out"), 303);
});

dashboard.get("/invitations/:token", async (c) => {
  const user = c.get("user");
  const inv = await openInvitation(controlDb(c.env.DB), c.req.param("token"));
  if (!inv) return render(c, <InvitationGonePage viewer={user} />, 404);
  const next = dashboardPath(c.req.query("next") ?? "") ?? "";
  return render(c, <InvitationPage token={c.req.param("token")} invitation={inv} viewer={user} next={next} notice={notice(c)} />);
});

/** Accepting: `acceptInvitation` holds the rule (an existing account only signed in as itself); refusals show the page again, saying why. */
dashboard.post("/invitations/:token", async (c) => {
  const token = c.req.param("token");
  const db = controlDb(c.env.DB);
  const f = await form(c);
  // `next` (a dashboard path, e.g. the demo site's page printed by `npm run dev`) is where the person lands; checked before anything is done.
  const next = dashboardTarget(str(f, "next"), "next");
  const user = c.get("user");
  let accepted;
  try {
    accepted = await acceptInvitation(db, token, { signedIn: user, password: str(f, "password") });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const inv = err.status === 404 ? undefined : await openInvitation(db, token);
    if (!inv) return render(c, <InvitationGonePage viewer={user} />, 404);
    return render(c, <InvitationPage token={token} invitation={inv} viewer={user} error={err.detail} next={next ?? ""} />, err.status as 401 | 403 | 422);
  }
  if (accepted.newAccount) setSessionCookie(c, await createSession(db, accepted.userId, new Date(), c.req.header("user-agent")));
  return c.redirect(withDone(next ?? "/dashboard", "joined"), 303);
});

// ------------------------------------------------------------------ a site

const siteId = (c: DashContext) => id(c.req.param("site_id"));

dashboard.get("/sites/:site_id", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  const stub = siteStub(c.env, a.site.id);
  const [site, connector, status, jobs] = await Promise.all([stub.site(a.site), stub.connector(a.site), stub.status(a.site, ""), stub.listJobs(a.site, false)]);
  const targets = site.target_languages.map((t) => ({ ...t, configured: a.site.targetLanguages.find((x) => x.code === t.code)?.writable ?? false }));
  // After "Start job": say what became of it, not just that it was queued (the page is refreshed to follow it).
  const started = jobs.find((j) => j.id === id(c.req.query("started")));
  const startedNotice = started
    ? started.status === "queued" || started.status === "running"
      ? `Job #${started.id} is ${started.status}. It runs in the background; refresh this page to follow it.`
      : `Job #${started.id} ${started.status === "succeeded" ? "finished" : started.status}: ${started.done_segments} of ${started.estimated_segments} segments translated` +
        (started.qa_failed_segments ? `, ${started.qa_failed_segments} of them held back for review.` : ".")
    : null;
  return render(
    c,
    <SitePage nav={siteNav(a, "overview")} viewer={viewer(c)} sourceLanguage={site.source_language} targets={targets} connector={connector} status={status} jobs={jobs.slice(0, 20)} notice={startedNotice ?? notice(c)} />,
  );
});

/** A delta job from the overview's form (languages, optional prefix, force). */
function jobRequest(f: Form, confirm: boolean) {
  const prefix = str(f, "prefix").trim();
  const parsed = JobIn.safeParse({
    type: "delta",
    prefix: prefix || null,
    languages: strs(f, "languages"),
    force: str(f, "force") === "1",
    confirm,
    estimate_only: !confirm,
  });
  if (!parsed.success) throw new ApiError(422, validationDetail(parsed.error).replace(/^prefix /, "Key prefix "));
  if (!parsed.data.languages?.length) throw new ApiError(422, "languages: choose at least one language.");
  return parsed.data;
}

dashboard.post("/sites/:site_id/jobs/estimate", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  const request = jobRequest(await form(c), false);
  const answer = await requestJob(c.env, a.site, request);
  if (answer.kind !== "estimate") throw new Error("an estimate-only request created a job");
  return render(
    c,
    <EstimatePage nav={siteNav(a, "overview")} viewer={viewer(c)} estimate={answer.body} form={{ languages: request.languages ?? [], prefix: request.prefix ?? "", force: request.force }} />,
  );
});

dashboard.post("/sites/:site_id/jobs", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  const answer = await requestJob(c.env, a.site, jobRequest(await form(c), true));
  if (answer.kind === "created") await rememberStarter(c.env, a.site.id, answer.job.id, a.userId);
  if (answer.kind === "created")
    await recordAudit(controlDb(c.env.DB), {
      organizationId: a.organizationId,
      actor: a.actor,
      action: "job.create",
      target: `site:${a.site.id}`,
      detail: { job_id: answer.job.id, languages: answer.job.languages, estimated_characters: answer.job.estimated_characters },
    });
  return c.redirect(`/dashboard/sites/${a.site.id}${answer.kind === "created" ? `?started=${answer.job.id}` : ""}`, 303);
});

dashboard.post("/sites/:site_id/jobs/:job_id/cancel", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  const jobId = id(c.req.param("job_id"));
  if (jobId < 0) throw new ApiError(404, "There is no such job.");
  await siteStub(c.env, a.site.id).cancelJob(a.site, jobId);
  await recordAudit(controlDb(c.env.DB), { organizationId: a.organizationId, actor: a.actor, action: "job.cancel", target: `site:${a.site.id}`, detail: { job_id: jobId } });
  return c.redirect(`/dashboard/sites/${a.site.id}?done=job-cancelled`, 303);
});

// ------------------------------------------------------------------ units

dashboard.get("/sites/:site_id/units", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  const filters = {
    prefix: (c.req.query("prefix") ?? "").slice(0, 500),
    language: (c.req.query("language") ?? "").slice(0, 35),
    cursor: (c.req.query("cursor") ?? "").slice(0, 2000),
    show: c.req.query("show") === "all" ? ("all" as const) : ("work" as const),
  };
  const stub = siteStub(c.env, a.site.id);
  // "All units" lists every unit; a language narrows to units with work in it, so it uses the API's list.
  const data =
    filters.show === "all" && !filters.language
      ? await stub.listUnits(a.site, { prefix: filters.prefix, cursor: filters.cursor || undefined, limit: 50 })
      : await stub.unitsWithWork(a.site, { prefix: filters.prefix, language: filters.language || undefined, cursor: filters.cursor || undefined, limit: 50 }, dashboardBase(c));
  return render(c, <UnitsPage nav={siteNav(a, "units")} viewer={viewer(c)} data={data} filters={filters} languages={a.site.targetLanguages.map((t) => t.code)} />);
});

dashboard.get("/sites/:site_id/units/open", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  return c.redirect(`/dashboard/sites/${a.site.id}/units/${encodeURIComponent((c.req.query("key") ?? "").trim())}`, 303);
});

dashboard.get("/sites/:site_id/units/:key", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  const key = c.req.param("key");
  const stub = siteStub(c.env, a.site.id);
  const [unit, texts, site] = await Promise.all([stub.unitStatus(a.site, key, dashboardBase(c)), stub.unitTexts(a.site, key), stub.site(a.site)]);
  const languages = [...new Set([...a.site.targetLanguages.map((t) => t.code), ...unit.languages.map((l) => l.code)])];
  const notWritable = site.target_languages.filter((t) => !t.writable).map((t) => t.code);
  return render(c, <UnitPage nav={siteNav(a, "units")} viewer={viewer(c)} unit={unit} texts={texts} languages={languages} notWritable={notWritable} />);
});

// ------------------------------------------------------------------ the review queue

dashboard.get("/sites/:site_id/attention", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  const filters = { unit: (c.req.query("unit") ?? "").slice(0, 500), language: (c.req.query("language") ?? "").slice(0, 35), cursor: (c.req.query("cursor") ?? "").slice(0, 2000) };
  const data = await siteStub(c.env, a.site.id).attention(
    a.site,
    { cursor: filters.cursor || undefined, limit: 20, unit: filters.unit || undefined, language: filters.language || undefined },
    dashboardBase(c),
  );
  return render(
    c,
    <AttentionPage nav={siteNav(a, "attention")} viewer={viewer(c)} data={data} filters={filters} languages={a.site.targetLanguages.map((t) => t.code)} notice={notice(c)} />,
  );
});

/**
 * Fix or discard. A fix runs QA like engine output; with QA errors `decideAttention` saves
 * nothing and answers 409 with the findings, shown here with the editor's text until they
 * confirm (`confirm=1`, the "Save anyway" button) or change it.
 */
dashboard.post("/sites/:site_id/attention/:result_id", async (c) => {
  const a = await siteAccess(c, siteId(c), "editor");
  const f = await form(c);
  const queue = `/dashboard/sites/${a.site.id}/attention`;
  // Where to return is settled before the decision is applied.
  const back = dashboardTarget(str(f, "back"), "back") ?? queue;
  const action = str(f, "action");
  const parsed = AttentionDecisionIn.safeParse(action === "fix" ? { action, text: str(f, "text").replace(/\r\n/g, "\n"), confirm: str(f, "confirm") === "1" } : { action });
  if (!parsed.success) throw new ApiError(422, validationDetail(parsed.error));
  const resultId = c.req.param("result_id").slice(0, 64);
  try {
    await siteStub(c.env, a.site.id).decideAttention(a.site, resultId, parsed.data);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 409 && parsed.data.action === "fix")) throw err;
    const held = err.extra as { qa: QAIssue[]; source_text: string };
    return render(
      c,
      <AttentionConfirmPage nav={siteNav(a, "attention")} viewer={viewer(c)} resultId={resultId} text={parsed.data.text} sourceText={held.source_text} qa={held.qa} back={back} queue={queue} />,
      409,
    );
  }
  await recordAudit(controlDb(c.env.DB), { organizationId: a.organizationId, actor: a.actor, action: `attention.${parsed.data.action}`, target: `site:${a.site.id}`, detail: { result_id: resultId } });
  return c.redirect(withDone(back, parsed.data.action === "fix" ? "fixed" : "discarded"), 303);
});

// ------------------------------------------------------------------ keys (admins)

dashboard.get("/sites/:site_id/keys", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  const keys = await listKeys(controlDb(c.env.DB), a.site.id);
  return render(c, <KeysPage nav={siteNav(a, "keys")} viewer={viewer(c)} keys={keys} notice={notice(c)} />);
});

dashboard.post("/sites/:site_id/keys", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  const parsed = KeyCreateIn.safeParse({ name: str(await form(c), "name").trim() });
  if (!parsed.success) throw new ApiError(422, validationDetail(parsed.error));
  const db = controlDb(c.env.DB);
  const created = await createKey(db, a.site.id, parsed.data.name);
  await recordAudit(db, { organizationId: a.organizationId, actor: a.actor, action: "key.create", target: `site:${a.site.id}`, detail: { key_id: created.id, name: created.name } });
  // Rendered, not redirected: the key is shown this once and never stored.
  const keys = await listKeys(db, a.site.id);
  return render(c, <KeysPage nav={siteNav(a, "keys")} viewer={viewer(c)} keys={keys} created={{ name: created.name, key: created.key }} />);
});

dashboard.post("/sites/:site_id/keys/:key_id/revoke", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  const keyId = id(c.req.param("key_id"));
  const db = controlDb(c.env.DB);
  await revokeKey(db, a.site.id, keyId);
  await recordAudit(db, { organizationId: a.organizationId, actor: a.actor, action: "key.revoke", target: `site:${a.site.id}`, detail: { key_id: keyId } });
  return c.redirect(`/dashboard/sites/${a.site.id}/keys?done=key-revoked`, 303);
});

// ------------------------------------------------------------------ settings (admins; erasure: owners)

function settingsPage(c: DashContext, a: OrgAccess & { site: SiteSettings }, extra: { notice?: string | null; error?: string | null } = {}) {
  const s = a.site;
  return (
    <SettingsPage
      nav={siteNav(a, "settings")}
      viewer={viewer(c)}
      settings={{
        name: s.name,
        sourceLanguage: s.sourceLanguage,
        targets: s.targetLanguages,
        qaMode: s.qaMode,
        reviewMode: s.reviewMode,
        enabledAdapters: s.enabledAdapters,
        enabledEngines: s.enabledEngines,
      }}
      engines={ENGINES}
      formalities={FORMALITIES}
      adapters={ADAPTERS}
      danger={can(a.role, "owner")}
      {...extra}
    />
  );
}

dashboard.get("/sites/:site_id/settings", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  return render(c, settingsPage(c, a, { notice: notice(c) }));
});

/** The settings form as the admin PATCH body (validated by the same schema). */
function settingsPatch(f: Form, site: SiteSettings) {
  const rows = Math.min(Number(str(f, "languages")) || 0, 200);
  const targets = [];
  for (let i = 0; i < rows; i++) {
    const code = str(f, `l${i}_code`).trim();
    if (!code || str(f, `l${i}_remove`) === "1") continue;
    targets.push({ code, engine: str(f, `l${i}_engine`), formality: str(f, `l${i}_formality`) || "default", writable: str(f, `l${i}_writable`) === "1" });
  }
  // An engine chosen for a language is enabled with it: otherwise the language could never be translated.
  const engines = [...new Set([...strs(f, "engines"), ...targets.map((t) => t.engine)])];
  const parsed = SitePatchIn.safeParse({
    name: str(f, "name").trim(),
    target_languages: targets,
    qa_mode: str(f, "qa_mode") || site.qaMode,
    review_mode: str(f, "review_mode") || site.reviewMode,
    enabled_adapters: strs(f, "adapters"),
    enabled_engines: engines,
  });
  if (!parsed.success) throw new ApiError(422, validationDetail(parsed.error));
  return parsed.data;
}

dashboard.post("/sites/:site_id/settings", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  let patch;
  try {
    patch = settingsPatch(await form(c), a.site);
  } catch (err) {
    if (err instanceof ApiError) return render(c, settingsPage(c, a, { error: err.detail }), 422);
    throw err;
  }
  await updateSiteSettings(c.env, a.site.id, patch, a.actor);
  return c.redirect(`/dashboard/sites/${a.site.id}/settings?done=settings-saved`, 303);
});

dashboard.post("/sites/:site_id/erase", async (c) => {
  const a = await siteAccess(c, siteId(c), "owner");
  if (str(await form(c), "confirm_name").trim() !== a.site.name)
    return render(c, settingsPage(c, a, { error: `confirm_name: type the site's name exactly (${a.site.name}) to delete it.` }), 422);
  await eraseSite(c.env, a.site.id, a.actor);
  return c.redirect("/dashboard?done=site-deleted", 303);
});

// ------------------------------------------------------------------ glossary (admins; the organization's)

async function glossaryPage(c: DashContext, a: OrgAccess & { site: SiteSettings }, extra: { notice?: string | null; error?: string | null } = {}) {
  const terms = await listGlossary(controlDb(c.env.DB), a.organizationId);
  return <GlossaryPage nav={siteNav(a, "glossary")} viewer={viewer(c)} terms={terms} languages={a.site.targetLanguages.map((t) => t.code)} {...extra} />;
}

dashboard.get("/sites/:site_id/glossary", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  return render(c, await glossaryPage(c, a, { notice: notice(c) }));
});

dashboard.get("/sites/:site_id/glossary.csv", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  const csv = glossaryCsv(await listGlossary(controlDb(c.env.DB), a.organizationId));
  c.header("Content-Type", "text/csv; charset=utf-8");
  c.header("Content-Disposition", 'attachment; filename="glossary.csv"');
  return c.body(csv);
});

dashboard.post("/sites/:site_id/glossary", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  const f = await form(c);
  try {
    await addTerm(controlDb(c.env.DB), a.organizationId, { source: str(f, "source"), language: str(f, "language").trim(), target: str(f, "target"), case_sensitive: str(f, "case_sensitive") === "1" }, a.actor);
    await glossaryChanged(c.env, a.organizationId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return render(c, await glossaryPage(c, a, { error: err.detail.replace(/^terms\[0\]\./, "") }), 422);
    throw err;
  }
  return c.redirect(`/dashboard/sites/${a.site.id}/glossary?done=term-added`, 303);
});

dashboard.post("/sites/:site_id/glossary/import", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  const file = (await form(c))["file"];
  const upload = Array.isArray(file) ? file[0] : file;
  try {
    if (!(upload instanceof File) || upload.size === 0) throw new ApiError(422, "file: choose a CSV file to import.");
    const terms = parseGlossaryCsv(await upload.text());
    await replaceGlossary(controlDb(c.env.DB), a.organizationId, terms, { actor: a.actor, action: "glossary.replace", target: `organization:${a.organizationId}`, detail: { terms: terms.length, via: "csv" } });
    await glossaryChanged(c.env, a.organizationId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return render(c, await glossaryPage(c, a, { error: err.detail }), 422);
    throw err;
  }
  return c.redirect(`/dashboard/sites/${a.site.id}/glossary?done=imported`, 303);
});

dashboard.post("/sites/:site_id/glossary/:term_id/remove", async (c) => {
  const a = await siteAccess(c, siteId(c), "admin");
  await removeTerm(controlDb(c.env.DB), a.organizationId, id(c.req.param("term_id")), a.actor);
  await glossaryChanged(c.env, a.organizationId);
  return c.redirect(`/dashboard/sites/${a.site.id}/glossary?done=term-removed`, 303);
});

// ------------------------------------------------------------------ an organization

const orgId = (c: DashContext) => id(c.req.param("org_id"));

dashboard.get("/organizations/:org_id/usage", async (c) => {
  const a = await orgAccess(c, orgId(c), "editor");
  const current = new Date().toISOString().slice(0, 7);
  const month = c.req.query("month") ?? current;
  if (!MONTH.test(month)) throw new ApiError(422, "month: use the form YYYY-MM, e.g. 2026-11.");
  const usage = await organizationUsage(controlDb(c.env.DB), a.organizationId, month);
  return render(c, <UsagePage nav={orgNav(a, "usage")} viewer={viewer(c)} usage={usage} current={current} />);
});

async function membersPage(c: DashContext, a: OrgAccess, extra: { notice?: string | null; error?: string | null } = {}) {
  const db = controlDb(c.env.DB);
  const [members, invitations, requireTwoFactor] = await Promise.all([
    listMembers(db, a.organizationId),
    pendingInvitations(db, a.organizationId),
    organizationRequiresTwoFactor(c.env, a.organizationId),
  ]);
  const invitable = ROLES.filter((r) => canInvite(a.role, r));
  return (
    <MembersPage nav={orgNav(a, "members")} viewer={viewer(c)} members={members} invitations={invitations} invitable={invitable} requireTwoFactor={requireTwoFactor} {...extra} />
  );
}

dashboard.get("/organizations/:org_id/members", async (c) => {
  const a = await orgAccess(c, orgId(c), "editor");
  return render(c, await membersPage(c, a, { notice: notice(c) }));
});

dashboard.post("/organizations/:org_id/members/invite", async (c) => {
  const a = await orgAccess(c, orgId(c), "admin");
  const f = await form(c);
  const email = str(f, "email").trim();
  const role = str(f, "role") as Role;
  if (!ROLES.includes(role)) return render(c, await membersPage(c, a, { error: "role: choose editor, admin or owner." }), 422);
  if (!canInvite(a.role, role)) throw new ApiError(403, "Only owners can invite owners.");
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) return render(c, await membersPage(c, a, { error: "email: enter an email address, like name@example.com." }), 422);
  // By mail only: the inviter never sees the link, so only the mailbox's owner can choose a new account's password.
  await inviteByMail(c.env, { organizationId: a.organizationId, email, role, invitedBy: a.userId, actor: a.actor }, dashboardBase(c));
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=invitation-sent`, 303);
});

dashboard.post("/organizations/:org_id/members/invitations/:invitation_id/resend", async (c) => {
  const a = await orgAccess(c, orgId(c), "admin");
  const invitationId = id(c.req.param("invitation_id"));
  const pending = (await pendingInvitations(controlDb(c.env.DB), a.organizationId)).find((i) => i.id === invitationId);
  if (!pending) throw new ApiError(404, "There is no such open invitation.");
  if (!canInvite(a.role, pending.role as Role)) throw new ApiError(403, "Only owners can send an invitation for an owner.");
  await resendInvitation(c.env, a.organizationId, invitationId, a.actor, dashboardBase(c));
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=invitation-resent`, 303);
});

dashboard.post("/organizations/:org_id/two-factor", async (c) => {
  const a = await orgAccess(c, orgId(c), "owner");
  const required = str(await form(c), "required") === "1";
  await setTwoFactorRequirement(c.env, a.organizationId, required, a.actor);
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=${required ? "two-factor-required" : "two-factor-optional"}`, 303);
});

dashboard.post("/organizations/:org_id/members/:user_id/remove", async (c) => {
  const a = await orgAccess(c, orgId(c), "owner");
  await removeMember(controlDb(c.env.DB), a.organizationId, id(c.req.param("user_id")), a.actor);
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=member-removed`, 303);
});

dashboard.post("/organizations/:org_id/members/invitations/:invitation_id/revoke", async (c) => {
  const a = await orgAccess(c, orgId(c), "admin");
  const db = controlDb(c.env.DB);
  const invitationId = id(c.req.param("invitation_id"));
  const pending = (await pendingInvitations(db, a.organizationId)).find((i) => i.id === invitationId);
  if (pending && !canInvite(a.role, pending.role as Role)) throw new ApiError(403, "Only owners can withdraw an invitation for an owner.");
  await revokeInvitation(db, a.organizationId, invitationId, a.actor);
  return c.redirect(`/dashboard/organizations/${a.organizationId}/members?done=invitation-withdrawn`, 303);
});

dashboard.get("/organizations/:org_id/audit", async (c) => {
  const a = await orgAccess(c, orgId(c), "owner");
  const cursorText = c.req.query("cursor") ?? "";
  const cursor = cursorText ? id(cursorText) : undefined;
  if (cursor === -1) throw new ApiError(422, "cursor: not a page of this list.");
  const db = controlDb(c.env.DB);
  const [data, members] = await Promise.all([listAudit(db, { organizationId: a.organizationId, cursor, limit: 50 }), listMembers(db, a.organizationId)]);
  const actors = Object.fromEntries(members.map((m) => [`user:${m.userId}`, m.email]));
  return render(c, <AuditPage nav={orgNav(a, "audit")} viewer={viewer(c)} data={data} actors={actors} cursor={cursorText} />);
});

dashboard.post("/organizations/:org_id/erase", async (c) => {
  const a = await orgAccess(c, orgId(c), "owner");
  if (str(await form(c), "confirm_name").trim() !== a.organization)
    return render(c, await membersPage(c, a, { error: `confirm_name: type the organization's name exactly (${a.organization}) to delete it.` }), 422);
  await eraseOrganization(c.env, a.organizationId, a.actor);
  // Members who belonged to no other organization are gone with it, their sessions too.
  return c.redirect("/dashboard?done=organization-deleted", 303);
});

dashboard.all("*", async (c) => {
  if (c.req.path === "/dashboard/") return c.redirect("/dashboard", 301);
  const user = c.get("user");
  return render(c, <ErrorPage status={404} detail="There is no such page in the dashboard." viewer={user ? { email: user.email } : null} />, 404);
});

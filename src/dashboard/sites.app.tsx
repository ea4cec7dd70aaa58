/** A site's overview (connector, counts, jobs) and its jobs: estimate → confirm → start, cancel. The rules are in ops/jobs.ops.ts. */
import { Hono } from "hono";
import { JobIn } from "../api/schemas";
import { ApiError } from "../errors";
import { cancelJob, requestJob } from "../ops/jobs.ops";
import { rememberStarter } from "../ops/notices.ops";
import { siteOverview } from "../ops/sites.ops";
import { siteAccess } from "./access";
import type { DashApp } from "./auth";
import { type Form, form, id, str, strs } from "./form";
import { EstimatePage, SitePage } from "./pages/site.page";
import { parsed } from "./parse";
import { notice, render, siteFrame } from "./respond";

export const sites = new Hono<DashApp>();

sites.get("/sites/:site_id", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const { view, connector, status, jobs } = await siteOverview(c.env, a.site);
  const targets = view.target_languages.map((t) => ({ ...t, configured: a.site.targetLanguages.find((x) => x.code === t.code)?.writable ?? false }));
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
    <SitePage
      {...siteFrame(c, a, "overview")}
      sourceLanguage={view.source_language}
      targets={targets}
      connector={connector}
      status={status}
      jobs={jobs.slice(0, 20)}
      notice={startedNotice ?? notice(c)}
      error={
        // Suspended by the operator (src/ops/oncall.ops.ts): said on the site's first page, where its people look.
        a.site.suspended ? `This site is suspended: ${a.site.suspended}. Its connector's keys are refused and its jobs are paused; contact support.` : null
      }
    />,
  );
});

/** A delta job from the overview's form (languages, optional prefix, force), validated as the API's JobIn. */
function jobRequest(f: Form, confirm: boolean) {
  const prefix = str(f, "prefix").trim();
  const request = parsed(
    JobIn,
    { type: "delta", prefix: prefix || null, languages: strs(f, "languages"), force: str(f, "force") === "1", confirm, estimate_only: !confirm },
    (detail) => detail.replace(/^prefix /, "Key prefix "),
  );
  if (!request.languages?.length) throw new ApiError(422, "languages: choose at least one language.");
  return request;
}

sites.post("/sites/:site_id/jobs/estimate", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const request = jobRequest(await form(c), false);
  const answer = await requestJob(c.env, a.actor, a.site, request, c.var.clock());
  if (answer.kind !== "estimate") throw new Error("an estimate-only request created a job");
  return render(
    c,
    <EstimatePage {...siteFrame(c, a, "overview")} estimate={answer.body} form={{ languages: request.languages ?? [], prefix: request.prefix ?? "", force: request.force }} />,
  );
});

sites.post("/sites/:site_id/jobs", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const answer = await requestJob(c.env, a.actor, a.site, jobRequest(await form(c), true), c.var.clock());
  // The person who started it is mailed when it ends (ops/notices.ops.ts, the 15-minute cron).
  if (answer.kind === "created") await rememberStarter(c.env, a.site.id, answer.job.id, a.userId);
  return c.redirect(`/dashboard/sites/${a.site.id}${answer.kind === "created" ? `?started=${answer.job.id}` : ""}`, 303);
});

sites.post("/sites/:site_id/jobs/:job_id/cancel", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const jobId = id(c.req.param("job_id"));
  if (jobId < 0) throw new ApiError(404, "There is no such job.");
  await cancelJob(c.env, a.actor, a.site, jobId);
  return c.redirect(`/dashboard/sites/${a.site.id}?done=job-cancelled`, 303);
});

/**
 * A job's lines and data points (docs/decisions.md "Operating the service"): `job.created` (in the
 * creating request's context, so with its request id), `job.started`, `job.finished` with its
 * figures. Each carries the site and job ids; never a text.
 */
import type { SiteSettings } from "../../control/sites.control";
import type { EngineError } from "../../engines/types";
import { type MetricsSink, record } from "../../obs/metrics";
import type { JobRow } from "./jobs";

type Sink = { METRICS?: MetricsSink };

const ids = (settings: SiteSettings, job: JobRow) => ({ site_id: settings.id, org_id: settings.organizationId, job_id: job.id });

export function jobCreated(env: Sink, settings: SiteSettings, job: JobRow) {
  record(env, "info", "job.created", { ...ids(settings, job), type: job.type, status: job.status, languages: (JSON.parse(job.languages) as string[]).length });
}

export function jobStarted(env: Sink, settings: SiteSettings, job: JobRow) {
  record(env, "info", "job.started", { ...ids(settings, job), status: "running" });
}

/** Once per job, when it leaves queued/running (succeeded, failed, cancelled). `ms`: from its start (or creation) to its end. */
export function jobFinished(env: Sink, settings: SiteSettings, job: JobRow) {
  const from = Date.parse(job.started_at ?? job.created_at);
  const to = job.finished_at ? Date.parse(job.finished_at) : Date.now();
  const errors = JSON.parse(job.errors) as unknown[];
  record(env, job.status === "failed" ? "warn" : "info", "job.finished", {
    ...ids(settings, job),
    status: job.status,
    items: job.done_segments + job.failed_segments,
    characters: job.characters,
    ms: Number.isFinite(from) && Number.isFinite(to) ? Math.max(0, to - from) : undefined,
    errors: errors.length,
  });
}

/**
 * `engine.failed`: an engine batch (or a whole language) failed. `code` is the failure's kind,
 * `status` the engine's HTTP status when its message names one (engines/http.ts words them
 * "(HTTP 503…"), `retryable` whether the engine may succeed later (an outage, a rate limit).
 */
export function engineFailed(env: Sink, settings: SiteSettings, jobId: number, engine: string, language: string, err: EngineError, texts: number) {
  const status = /\bHTTP (\d{3})\b/.exec(err.message)?.[1];
  record(env, "warn", "engine.failed", {
    site_id: settings.id,
    org_id: settings.organizationId,
    job_id: jobId,
    engine,
    language,
    code: err.kind,
    status: status === undefined ? undefined : Number(status),
    retryable: err.kind === "unavailable",
    count: texts,
  });
}

/**
 * `job.budget_reached`: texts of a job that would take it past its estimate (texts changed since
 * its creation, now longer or no longer memory hits) were left to the next job (budget.ts).
 * `count`: the items left, `characters`: what their texts would have billed.
 */
export function budgetReached(env: Sink, settings: SiteSettings, jobId: number, language: string, groups: { items: { characters: number }[] }[]) {
  record(env, "info", "job.budget_reached", {
    site_id: settings.id,
    org_id: settings.organizationId,
    job_id: jobId,
    language,
    count: groups.reduce((n, g) => n + g.items.length, 0),
    characters: groups.reduce((n, g) => n + g.items[0]!.characters, 0),
  });
}

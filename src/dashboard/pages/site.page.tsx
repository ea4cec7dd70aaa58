import type { z } from "zod";
import type { ConnectorOut } from "../../api/admin.schemas";
import type { Job, LanguageCounts } from "../../api/schemas";
import type { JobAnswer } from "../../ops/jobs.ops";
import { Card } from "../components/Card";
import { DataTable } from "../components/DataTable";
import { PostButton } from "../components/PostButton";
import { Badge, Empty, Layout, n, type SiteNav, Time, type Viewer } from "./layout";

/** The site's latest handshake, as the admin API answers it. */
export type ConnectorView = z.infer<typeof ConnectorOut>;
export type LanguageCountsView = LanguageCounts;
export type JobView = Job;

export interface SiteOverview {
  nav: SiteNav;
  viewer: Viewer;
  sourceLanguage: string;
  targets: { code: string; engine: string; formality: string; writable: boolean; configured: boolean }[];
  connector: ConnectorView | null;
  status: { units_total: number; segments_total: number; languages: LanguageCountsView[] };
  jobs: JobView[];
  notice?: string | null;
  error?: string | null;
}

export function SitePage(p: SiteOverview) {
  const base = `/dashboard/sites/${p.nav.siteId}`;
  const writable = p.targets.filter((t) => t.writable);
  const active = p.jobs.filter((j) => j.status === "queued" || j.status === "running");
  return (
    <Layout title={p.nav.siteName} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>{p.nav.siteName}</h1>
      <div class="grid">
        <Card id="connector" title="Connector">
          {p.connector ? (
            <>
              <dl class="facts">
                <dt>Last handshake</dt>
                <dd>
                  <Time at={p.connector.at} />
                </dd>
                <dt>Connector version</dt>
                <dd>
                  <code>{p.connector.connector_version}</code>
                </dd>
                <dt>Website languages</dt>
                <dd>{p.connector.languages === null ? <span class="muted">not declared</span> : p.connector.languages.join(", ") || "none"}</dd>
                <dt>Adapters</dt>
                <dd>{p.connector.adapters.join(", ") || <span class="muted">none</span>}</dd>
                <dt>Capabilities</dt>
                <dd>{p.connector.capabilities.join(", ") || <span class="muted">none</span>}</dd>
              </dl>
              {p.connector.warnings.length ? (
                <ul class="warnings" aria-label="Warnings from the latest handshake">
                  {p.connector.warnings.map((w) => (
                    <li>{w}</li>
                  ))}
                </ul>
              ) : (
                <p class="ok-line">No warnings.</p>
              )}
            </>
          ) : (
            <Empty title="No connector has checked in yet.">
              <p>
                Install the Transync plugin on your website and give it an API key
                {p.nav.role !== "editor" ? (
                  <>
                    {" "}
                    (<a href={`${base}/keys`}>create one</a>)
                  </>
                ) : null}
                . Until its first handshake no language is writable.
              </p>
            </Empty>
          )}
        </Card>

        <Card id="languages" title="Languages">
          <p class="muted">
            {n(p.status.units_total)} units, {n(p.status.segments_total)} segments in {p.sourceLanguage}.
          </p>
          <DataTable
            columns={["Language", ...["Up to date", "Outdated", "Missing", "In review", "Needs attention"].map((label) => ({ label, class: "num" }))]}
            rows={p.status.languages}
            row={(l) => {
              const t = p.targets.find((x) => x.code === l.code);
              return (
                <tr>
                  <th scope="row">
                    {l.code} {t && !t.writable ? <Badge state="stale" label="not writable" /> : null}
                  </th>
                  <td class="num">{n(l.ok)}</td>
                  <td class="num">{n(l.stale)}</td>
                  <td class="num">{n(l.missing)}</td>
                  <td class="num">{n(l.review)}</td>
                  <td class="num">{l.attention ? <a href={`${base}/attention?language=${encodeURIComponent(l.code)}`}>{n(l.attention)}</a> : "0"}</td>
                </tr>
              );
            }}
            empty={
              <Empty title="No target languages.">
                {p.nav.role !== "editor" ? (
                  <p>
                    Add them in <a href={`${base}/settings`}>Settings</a>.
                  </p>
                ) : null}
              </Empty>
            }
          />
        </Card>
      </div>

      <Card id="start" title="Translate">
        {writable.length ? (
          <form method="post" action={`${base}/jobs/estimate`} class="stack">
            <fieldset>
              <legend>Languages</legend>
              <div class="choices">
                {writable.map((t) => (
                  <label class="choice">
                    <input type="checkbox" name="languages" value={t.code} checked /> {t.code}
                  </label>
                ))}
              </div>
            </fieldset>
            <label for="prefix">Only units whose key starts with (optional)</label>
            <input id="prefix" name="prefix" placeholder="post:" aria-describedby="prefix-hint" />
            <p id="prefix-hint" class="muted small">
              The model name, a colon, then the start of the key, e.g. <code>post:</code> for every post.
            </p>
            <label class="choice">
              <input type="checkbox" name="force" value="1" /> Also retranslate segments that are up to date
            </label>
            <div>
              <button type="submit">Estimate</button> <span class="muted small">You see the cost before anything starts.</span>
            </div>
          </form>
        ) : (
          <Empty title="No language can be translated right now.">
            <p>A language is translated only when it is writable in the settings and the website has it (as declared in the connector's latest handshake).</p>
          </Empty>
        )}
      </Card>

      <Card id="jobs" title="Jobs" head={active.length ? <a href={base}>Refresh</a> : null}>
        <DataTable
          columns={["Job", "State", "Progress", "Languages", { label: "Characters", class: "num" }, "Created"]}
          actions
          rows={p.jobs}
          row={(j) => (
            <tr>
              <td>
                #{j.id} {j.type === "translate" ? "translate" : "delta"}
                {j.prefix ? <div class="muted small">{j.prefix}</div> : null}
              </td>
              <td>
                <Badge state={j.status} />
                {j.cancel_reason ? (
                  <p class="small cancel-reason">
                    <span class="muted">Reason:</span> {j.cancel_reason}
                  </p>
                ) : null}
              </td>
              <td>
                <progress max={Math.max(j.estimated_segments, 1)} value={Math.min(j.done_segments, Math.max(j.estimated_segments, 1))} aria-label={`Job ${j.id} progress`}>
                  {j.done_segments} of {j.estimated_segments}
                </progress>
                <div class="small">
                  {n(j.done_segments)} of {n(j.estimated_segments)} segments
                  {j.failed_segments ? <span class="bad"> · {n(j.failed_segments)} failed</span> : null}
                  {j.qa_failed_segments ? <span> · {n(j.qa_failed_segments)} held for review</span> : null}
                </div>
                {j.errors.length ? (
                  <ul class="errors small">
                    {j.errors.map((e) => (
                      <li>
                        {e.language}: {e.message} ({n(e.segments)} segments)
                      </li>
                    ))}
                  </ul>
                ) : null}
              </td>
              <td>{j.languages.join(", ")}</td>
              <td class="num">{n(j.characters)}</td>
              <td>
                <Time at={j.created_at} />
              </td>
              <td>
                {j.status === "queued" || j.status === "running" ? (
                  <PostButton action={`${base}/jobs/${j.id}/cancel`} kind="secondary">
                    Cancel
                  </PostButton>
                ) : null}
              </td>
            </tr>
          )}
          empty={
            <Empty title="No jobs yet.">
              <p>Estimate a job above to translate what is missing or outdated.</p>
            </Empty>
          }
        />
      </Card>
    </Layout>
  );
}

/** The estimate-only answer of a job request: the scope, and its cost as the billing gate computed it. */
export type EstimateView = Extract<JobAnswer, { kind: "estimate" }>["body"];

export function EstimatePage(p: { nav: SiteNav; viewer: Viewer; estimate: EstimateView; form: { languages: string[]; prefix: string; force: boolean } }) {
  const base = `/dashboard/sites/${p.nav.siteId}`;
  const e = p.estimate;
  const c = e.cost;
  return (
    <Layout title="Confirm job" viewer={p.viewer} site={p.nav}>
      <section class="card narrow-wide">
        <h1>Start this job?</h1>
        {e.estimated_segments === 0 ? (
          <p class="notice" role="status">
            Nothing to translate: every segment in scope is up to date in {e.languages.join(", ") || "these languages"}.
          </p>
        ) : null}
        <dl class="facts">
          <dt>Languages</dt>
          <dd>{e.languages.join(", ")}</dd>
          <dt>Scope</dt>
          <dd>
            {p.form.prefix ? <code>{p.form.prefix}</code> : "the whole site"}
            {p.form.force ? ", including up-to-date segments" : ", what is missing or outdated"}
          </dd>
          <dt>Segments</dt>
          <dd>
            {n(e.estimated_segments)} ({n(e.estimated_tm_segments)} from translation memory, not billed)
          </dd>
          <dt>Billable characters</dt>
          <dd>{n(c.characters)}</dd>
          <dt>This month</dt>
          <dd>
            {c.included_characters === null ? (
              <>unmetered plan: no overage</>
            ) : (
              <>
                {n(c.used_characters)} used and {n(c.reserved_characters)} reserved of {n(c.included_characters)} included; {n(c.remaining_characters)} left
              </>
            )}
          </dd>
          <dt>Overage</dt>
          <dd>
            {c.overage_characters ? (
              <strong class="bad">
                {n(c.overage_characters)} characters beyond the included volume, about ${(c.overage_cents / 100).toFixed(2)} ({c.currency.toUpperCase()})
              </strong>
            ) : (
              "none"
            )}
          </dd>
        </dl>
        <form method="post" action={`${base}/jobs`} class="actions">
          {p.form.languages.map((l) => (
            <input type="hidden" name="languages" value={l} />
          ))}
          <input type="hidden" name="prefix" value={p.form.prefix} />
          {p.form.force ? <input type="hidden" name="force" value="1" /> : null}
          <input type="hidden" name="confirm" value="1" />
          <button type="submit" disabled={e.estimated_segments === 0}>
            {c.overage_characters ? "Confirm and start (overage applies)" : "Start job"}
          </button>
          <a href={base} class="button secondary">
            Back
          </a>
        </form>
      </section>
    </Layout>
  );
}

import { WEBHOOK_EVENTS, type Webhook, type WebhookDelivery } from "../../api/webhook.schemas";
import { Card } from "../components/Card";
import { DataTable } from "../components/DataTable";
import { PostButton } from "../components/PostButton";
import { Badge, Empty, Layout, type SiteNav, Time, type Viewer } from "./layout";

const EVENT_WORDS: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  "job.finished": "A job finished (succeeded, failed or cancelled)",
  "results.available": "Results are ready to pull (at most every 10 seconds)",
  "attention.created": "QA held translations back for review",
  "usage.threshold": "Usage reached 80 % or 100 % of the plan",
  ping: "Test events",
};

const STATUS_BADGE: Record<WebhookDelivery["status"], [string, string]> = {
  delivered: ["ok", "Delivered"],
  pending: ["queued", "Retrying"],
  failed: ["failed", "Failed"],
};

export interface WebhooksView {
  nav: SiteNav;
  viewer: Viewer;
  webhook: Webhook | null;
  deliveries: WebhookDelivery[];
  /** The secret, right after it was issued (shown this once). */
  secret?: string | null;
  notice?: string | null;
  error?: string | null;
  /** What the form held when it was refused. */
  form?: { url: string; events: string[] } | null;
}

export function WebhooksPage(p: WebhooksView) {
  const base = `/dashboard/sites/${p.nav.siteId}/webhooks`;
  const hook = p.webhook;
  const url = p.form?.url ?? hook?.url ?? "";
  const chosen = new Set(p.form?.events ?? hook?.events ?? WEBHOOK_EVENTS);
  return (
    <Layout title={`Webhooks · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>Webhooks</h1>
      <p class="muted">
        The connector can hear about finished jobs and new results at once instead of polling. Each event is signed (Standard Webhooks); the connector verifies it with the secret
        and then pulls as usual. Without a webhook, polling works as before.
      </p>
      {hook?.disabled_at ? (
        <p class="alert" role="alert">
          <strong>This webhook is disabled</strong>: its deliveries failed for 3 days (since <Time at={hook.failing_since} />
          ), so nothing is sent. Fix the receiving endpoint, then enable it again.
        </p>
      ) : null}
      {p.secret ? (
        <Card id="new-secret" class="created" title="Your signing secret">
          <p>
            <strong>Copy it now: it is shown only once.</strong> Paste it into the connector's webhook settings.
            {hook?.previous_secret_expires_at ? (
              <>
                {" "}
                The previous secret keeps signing too until <Time at={hook.previous_secret_expires_at} />.
              </>
            ) : null}
          </p>
          <label for="secret-value">Signing secret</label>
          <input id="secret-value" class="mono" readonly value={p.secret} />
        </Card>
      ) : null}
      <Card id="endpoint" title={hook ? "Endpoint" : "Add a webhook"}>
        {hook ? (
          <dl class="facts">
            <dt>State</dt>
            <dd>
              {hook.disabled_at ? <Badge state="failed" label="Disabled" /> : hook.failing_since ? <Badge state="warning" label="Failing" /> : <Badge state="ok" label="Active" />}
            </dd>
            <dt>Registered</dt>
            <dd>
              <Time at={hook.created_at} />
            </dd>
          </dl>
        ) : null}
        <form method="post" action={base}>
          <label for="url">Endpoint URL</label>
          <input id="url" name="url" type="url" required maxlength={2000} value={url} placeholder="https://example.com/transync/webhook" aria-describedby="url-help" />
          <p id="url-help" class="muted small">
            https:// only, without a user name or password. {hook ? "Saving issues a new secret and enables the webhook." : ""}
          </p>
          <fieldset>
            <legend>Events</legend>
            {WEBHOOK_EVENTS.filter((e) => e !== "ping").map((e) => (
              <label class="choice">
                <input type="checkbox" name="events" value={e} checked={chosen.has(e)} /> <code>{e}</code> — {EVENT_WORDS[e]}
              </label>
            ))}
          </fieldset>
          <button type="submit">{hook ? "Save and issue a new secret" : "Add webhook"}</button>
        </form>
      </Card>
      {hook ? (
        <Card id="actions" title="Actions">
          <div class="actions">
            <PostButton action={`${base}/test`} kind="secondary">
              Send test event
            </PostButton>
            <PostButton action={`${base}/rotate`} kind="secondary">
              Rotate secret
            </PostButton>
            {hook.disabled_at ? (
              <PostButton action={`${base}/enable`} kind="secondary">
                Enable again
              </PostButton>
            ) : null}
            <PostButton action={`${base}/delete`} kind="danger" label="Remove the webhook">
              Remove webhook
            </PostButton>
          </div>
          <p class="muted small">Rotating issues a new secret; the old one keeps signing for 24 hours, so the connector can switch without missing events.</p>
        </Card>
      ) : null}
      <Card id="deliveries" title="Recent deliveries">
        <DataTable
          columns={["Event", "Sent", "Attempts", "State", { label: "Status", class: "num" }, { label: "Duration", class: "num" }, "Error"]}
          actions
          rows={p.deliveries}
          row={(d) => (
            <tr>
              <td>
                <code>{d.event}</code>
              </td>
              <td>
                <Time at={d.created_at} />
              </td>
              <td class="num">{d.attempts}</td>
              <td>
                <Badge state={STATUS_BADGE[d.status][0]} label={STATUS_BADGE[d.status][1]} />
              </td>
              <td class="num">{d.status_code ?? "—"}</td>
              <td class="num">{d.duration_ms === null ? "—" : `${d.duration_ms} ms`}</td>
              <td class="small">{d.error ?? ""}</td>
              <td>
                {hook && d.status !== "pending" ? (
                  <PostButton action={`${base}/deliveries/${d.id}/redeliver`} kind="secondary" label={`Send the ${d.event} delivery of ${d.created_at} again`}>
                    Redeliver
                  </PostButton>
                ) : null}
              </td>
            </tr>
          )}
          empty={
            <Empty title="No deliveries yet.">
              <p>{hook ? "Send a test event to see one here." : "Add a webhook to receive events."}</p>
            </Empty>
          }
        />
        <p class="muted small">
          The last 100 deliveries are kept. Failed attempts are retried with growing delays for about 27 hours; a 4xx answer other than 429 ends a delivery.
        </p>
      </Card>
    </Layout>
  );
}

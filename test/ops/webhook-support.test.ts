/**
 * The operator's webhook endpoints (docs/runbook.md "Webhooks that do not arrive"): a site's
 * endpoint and deliveries with their next attempt, sending one again (audited with the operator's
 * name; the receiver gets the same `webhook-id`), the deliveries the dead-letter queue ended, and
 * the 404/409/422 answers. Every answer is checked against the OpenAPI document.
 */
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { describe, expect, it, vi } from "vitest";
import { controlDb } from "../../src/control/db";
import { recordAttempt } from "../../src/control/webhooks.control";
import type { WebhookMessage } from "../../src/webhooks/events";
import { logDelivery } from "../../src/webhooks/publish";
import { consumeDeadLetters } from "../../src/webhooks/sweeper";
import { admin, client, createSite } from "../helpers/api";
import { mockFetch } from "../helpers/http";
import { operator } from "../helpers/operator";

const db = () => controlDb(env.DB);

/** A delivery logged for the site at `at`, as the publisher logs it (no queue message: the test settles it by hand). */
const logged = (siteId: number, at: number) => logDelivery({ db: db(), now: () => at }, siteId, "ping", {});

async function deadLetter(id: string) {
  const message = { body: { kind: "deliver", id } as WebhookMessage, ack: () => {}, retry: () => {} } as unknown as Message<WebhookMessage>;
  await consumeDeadLetters({ queue: "transync-webhooks-dlq", messages: [message] } as unknown as MessageBatch<WebhookMessage>, db());
}

describe("a site's webhook deliveries, for the operator", () => {
  it("lists the endpoint and its deliveries with the next attempt, by state; the dead letters across sites; resends one, audited with the operator's name", async () => {
    const hook = `https://hooks.example.test/${crypto.randomUUID()}`;
    const site = await createSite();
    expect((await client(site.key).put("/v1/webhook", { url: hook })).status).toBe(200);
    const t0 = Date.now() - 60_000;
    const delivered = await logged(site.siteId, t0);
    await recordAttempt(db(), delivered, { status: "delivered", statusCode: 204, durationMs: 80, error: null, nextAttemptAt: null });
    const retrying = await logged(site.siteId, t0 + 1_000);
    const next = new Date(t0 + 1_000 + 5_000).toISOString();
    await recordAttempt(db(), retrying, { status: "pending", statusCode: 503, durationMs: 120, error: "HTTP 503", nextAttemptAt: next });
    const dead = await logged(site.siteId, t0 + 2_000);
    await deadLetter(dead);

    const list = await admin("GET", `/admin/v1/sites/${site.siteId}/webhook/deliveries`);
    expect(list.status).toBe(200);
    expect(list.body.webhook).toMatchObject({ url: hook, disabled_at: null, failing_since: null });
    expect(list.body.webhook.secret).toBeUndefined();
    expect(list.body.deliveries.map((d: { id: string }) => d.id)).toEqual([dead, retrying, delivered]);
    expect(list.body.deliveries[1]).toEqual({
      id: retrying,
      event: "ping",
      created_at: new Date(t0 + 1_000).toISOString(),
      attempts: 1,
      status: "pending",
      status_code: 503,
      duration_ms: 120,
      error: "HTTP 503",
      next_attempt_at: next,
    });
    expect(list.body.deliveries[0]).toMatchObject({ status: "failed", attempts: 0, error: expect.stringContaining("failed every retry"), next_attempt_at: null });
    const failed = await admin("GET", `/admin/v1/sites/${site.siteId}/webhook/deliveries?status=failed&limit=5`);
    expect(failed.body.deliveries.map((d: { id: string }) => d.id)).toEqual([dead]);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}/webhook/deliveries?status=pending`)).body.deliveries.map((d: { id: string }) => d.id)).toEqual([retrying]);

    // The dead letters: of this site, and among all sites'.
    const letters = await admin("GET", `/admin/v1/webhook/dead-letters?site_id=${site.siteId}`);
    expect(letters.status).toBe(200);
    expect(letters.body.dead_letters).toEqual([expect.objectContaining({ id: dead, site_id: site.siteId, status: "failed" })]);
    expect((await admin("GET", "/admin/v1/webhook/dead-letters")).body.dead_letters.map((d: { id: string }) => d.id)).toContain(dead);

    // Resent by a named operator: pending again at once, then the receiver gets it with the same webhook-id.
    const fetches = mockFetch([http.post(hook, () => new HttpResponse(null, { status: 204 }))]);
    const alice = operator("alice");
    const again = await alice("POST", `/admin/v1/sites/${site.siteId}/webhook/deliveries/${dead}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: dead, status: "pending", attempts: 0, status_code: null, error: null });
    await vi.waitFor(() => expect(fetches.requests.map((r) => r.headers.get("webhook-id"))).toContain(dead), { timeout: 15_000, interval: 200 });
    await vi.waitFor(
      async () =>
        expect((await admin("GET", `/admin/v1/sites/${site.siteId}/webhook/deliveries?status=delivered`)).body.deliveries.map((d: { id: string }) => d.id)).toContain(dead),
      { timeout: 10_000, interval: 200 },
    );
    expect((await admin("GET", `/admin/v1/webhook/dead-letters?site_id=${site.siteId}`)).body.dead_letters).toEqual([]);
    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit[0]).toMatchObject({ actor: "admin:alice", action: "webhook.redeliver", target: `site:${site.siteId}`, detail: { delivery: dead } });
  });

  it("answers 404 for an unknown site or delivery, 422 for a malformed id or state, 409 without an endpoint or while it is disabled", async () => {
    const site = await createSite();
    const id = await logged(site.siteId, Date.now());
    const redeliver = (delivery: string, siteId = site.siteId) => admin("POST", `/admin/v1/sites/${siteId}/webhook/deliveries/${delivery}/redeliver`);

    expect((await admin("GET", "/admin/v1/sites/987654321/webhook/deliveries")).status).toBe(404);
    expect((await redeliver(id, 987654321)).status).toBe(404);
    expect((await redeliver(`msg_${"0".repeat(32)}`)).status).toBe(404);
    const malformed = await redeliver("msg_nothex");
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toContain("delivery_id");
    const badState = await admin("GET", `/admin/v1/sites/${site.siteId}/webhook/deliveries?status=lost`);
    expect(badState.status).toBe(422);
    expect(badState.body.detail).toContain("status");

    // No endpoint registered: nothing can be sent.
    const none = await redeliver(id);
    expect(none.status).toBe(409);
    expect(none.body.detail).toContain("no webhook registered");
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}/webhook/deliveries`)).body.webhook).toBeNull();

    // Disabled after failing for days: the owner re-enables it first.
    await client(site.key).put("/v1/webhook", { url: `https://hooks.example.test/${crypto.randomUUID()}` });
    await env.DB.prepare("UPDATE webhook_endpoints SET failing_since = ?, disabled_at = ? WHERE site_id = ?")
      .bind("2031-01-01T00:00:00.000Z", "2031-01-04T00:00:00.000Z", site.siteId)
      .run();
    const disabled = await redeliver(id);
    expect(disabled.status).toBe(409);
    expect(disabled.body.detail).toContain("disabled since 2031-01-04T00:00:00.000Z");
    // Nothing was queued or audited.
    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit.map((a: { action: string }) => a.action)).not.toContain("webhook.redeliver");
  });
});

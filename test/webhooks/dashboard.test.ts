/** The dashboard's Webhooks page: admins and owners manage the endpoint; editors do not see it. */
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { findEndpoint } from "../../src/control/webhooks.control";
import { DELIVERY } from "../../src/webhooks/policy";
import { client, createSite } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { mockFetch } from "../helpers/http";
import { heldQueue } from "../helpers/webhooks";

const HOOK = "https://hooks.example.test/dash";

describe("the Webhooks page", () => {
  it("an admin adds a webhook (secret shown once), sends a test, sees the delivery, rotates, removes", async () => {
    const site = await createSite();
    const { cookie } = await person(site.orgId, "admin");
    const base = `/dashboard/sites/${site.siteId}/webhooks`;
    const empty = await dash("GET", base, { cookie });
    expect(empty.status).toBe(200);
    expect(empty.html).toContain("Add a webhook");
    expect(empty.html).toContain("No deliveries yet.");

    const refused = await dash("POST", base, { cookie, form: { url: "http://hooks.example.test/x", events: ["job.finished"] } });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain("url: must use https://");
    expect(refused.html).toContain('value="http://hooks.example.test/x"');

    const saved = await dash("POST", base, { cookie, form: { url: HOOK, events: ["job.finished", "results.available"] } });
    expect(saved.status).toBe(200);
    const secret = /id="secret-value" class="mono" readonly="" value="(whsec_[^"]+)"/.exec(saved.html)?.[1];
    expect(secret).toBeDefined();
    // The connector sees the same endpoint through the API, without the secret.
    expect((await client(site.key).get("/v1/webhook")).body).toMatchObject({ url: HOOK, events: ["job.finished", "results.available", "ping"] });
    expect((await dash("GET", base, { cookie })).html).not.toContain(secret!);

    const fetches = mockFetch([http.post(HOOK, () => new HttpResponse("nope", { status: 410 }))]);
    const queue = heldQueue();
    const test = await dash("POST", `${base}/test`, { cookie });
    expect(test.location).toBe(`${base}?done=webhook-test`);
    await queue.until(() => expect(fetches.requests).toHaveLength(1));
    expect((await dash("GET", base, { cookie })).html).toContain("HTTP 410");
    const listed = (await dash("GET", base, { cookie })).html;
    const deliveryId = /deliveries\/(msg_[0-9a-f]{32})\/redeliver/.exec(listed)?.[1];
    expect(deliveryId).toBeDefined();

    // Redeliver: the same webhook-id again.
    const again = await dash("POST", `${base}/deliveries/${deliveryId}/redeliver`, { cookie });
    expect(again.location).toBe(`${base}?done=webhook-redelivered`);
    await queue.until(() => expect(fetches.requests).toHaveLength(2));
    expect(fetches.requests[1].headers.get("webhook-id")).toBe(deliveryId);

    const rotated = await dash("POST", `${base}/rotate`, { cookie });
    expect(rotated.html).toContain("The previous secret keeps signing too until");
    expect(rotated.html).not.toContain(`value="${secret}"`);

    expect((await dash("POST", `${base}/delete`, { cookie })).location).toBe(`${base}?done=webhook-removed`);
    expect((await client(site.key).get("/v1/webhook")).status).toBe(404);
  });

  it("a disabled webhook says so and is enabled again there", async () => {
    const site = await createSite();
    const { cookie } = await person(site.orgId, "owner");
    await client(site.key).put("/v1/webhook", { url: HOOK });
    const long = new Date(Date.now() - DELIVERY.disableAfterMs - 1).toISOString();
    await env.DB.prepare("UPDATE webhook_endpoints SET failing_since = ?, disabled_at = ? WHERE site_id = ?").bind(long, new Date().toISOString(), site.siteId).run();
    const base = `/dashboard/sites/${site.siteId}/webhooks`;
    const page = await dash("GET", base, { cookie });
    expect(page.html).toContain("This webhook is disabled");
    expect(page.html).toContain("Enable again");
    expect((await dash("POST", `${base}/enable`, { cookie })).location).toBe(`${base}?done=webhook-enabled`);
    expect(await findEndpoint(controlDb(env.DB), site.siteId)).toMatchObject({ disabledAt: null, failingSince: null });
    expect((await dash("GET", `${base}?done=webhook-enabled`, { cookie })).html).not.toContain("This webhook is disabled");
  });

  it("editors neither see nor use it", async () => {
    const site = await createSite();
    const { cookie } = await person(site.orgId, "editor");
    const base = `/dashboard/sites/${site.siteId}/webhooks`;
    expect((await dash("GET", `/dashboard/sites/${site.siteId}`, { cookie })).html).not.toContain(base);
    expect((await dash("GET", base, { cookie })).status).toBe(403);
    expect((await dash("POST", base, { cookie, form: { url: HOOK, events: ["job.finished"] } })).status).toBe(403);
    expect((await client(site.key).get("/v1/webhook")).status).toBe(404);
  });
});

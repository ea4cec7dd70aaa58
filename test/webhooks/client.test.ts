/** The client's `verifyWebhook`, as a connector's receiving endpoint uses it. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifyWebhook, type WebhookEvent } from "../../client/src/index.js";
import { findEndpoint } from "../../src/control/webhooks.control";
import { putWebhook, rotateWebhookSecret } from "../../src/ops/webhooks.ops";
import { signatureHeaders } from "../../src/webhooks/signing";
import { deps, siteRef } from "../helpers/webhooks";

describe("verifyWebhook", () => {
  it("answers the event of a correctly signed delivery (Headers or a plain object) and throws otherwise", async () => {
    const site = siteRef();
    const { secret } = await putWebhook(env, "admin", site, { url: "https://hooks.example.test/x" });
    const endpoint = (await findEndpoint(deps({ now: Date.now }).db, site.id))!;
    const body = JSON.stringify({ type: "results.available", timestamp: new Date().toISOString(), data: { pending: 3, languages: ["de"] } });
    const headers = signatureHeaders(endpoint, "msg_abc", new Date(), body);

    const event: WebhookEvent = verifyWebhook(secret, new Headers(headers), body);
    expect(event).toEqual(JSON.parse(body));
    if (event.type === "results.available") expect(event.data.pending).toBe(3);
    expect(verifyWebhook(secret, { ...headers, "Webhook-Id": headers["webhook-id"] }, body)).toEqual(JSON.parse(body));

    expect(() => verifyWebhook(secret, headers, body.replace("3", "4"))).toThrow();
    expect(() => verifyWebhook(secret, { ...headers, "webhook-timestamp": String(Math.floor(Date.now() / 1000) - 3600) }, body)).toThrow();
    const { secret: fresh } = await rotateWebhookSecret(env, "admin", site);
    expect(() => verifyWebhook(fresh, headers, body)).toThrow();
    const both = signatureHeaders((await findEndpoint(deps({ now: Date.now }).db, site.id))!, "msg_def", new Date(), body);
    expect(verifyWebhook(secret, both, body)).toEqual(JSON.parse(body));
    expect(verifyWebhook(fresh, both, body)).toEqual(JSON.parse(body));
  });
});

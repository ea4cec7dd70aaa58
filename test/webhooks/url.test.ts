/**
 * Webhook destinations (issue 37, finding 4): a URL must point to a public host. Each internal
 * form of the review's reproduction, and the notations the WHATWG parser folds into them, is
 * refused at both doors (the API and the dashboard) through the one check; an address stored
 * before the rule is refused again when a delivery is attempted, without a request.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { findDelivery } from "../../src/control/webhooks.control";
import { attempt } from "../../src/webhooks/deliver";
import { queueDelivery } from "../../src/webhooks/publish";
import { destinationProblem } from "../../src/webhooks/url";
import { client, createSite } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { deps, receiver, siteRef } from "../helpers/webhooks";

/** The review's 16 forms (metadata, private, loopback, link-local, CGNAT, ULA, mapped IPv6, decimal / hex / octal). */
const FINDING: [string, string][] = [
  ["https://169.254.169.254/latest/meta-data/", "link-local"],
  ["https://metadata.google.internal/computeMetadata/v1/", "not public"],
  ["https://10.0.0.1/hook", "private"],
  ["https://172.16.5.4/hook", "private"],
  ["https://192.168.1.1/hook", "private"],
  ["https://127.0.0.1/hook", "loopback"],
  ["https://localhost/hook", "not public"],
  ["https://[::1]/hook", "loopback"],
  ["https://[fe80::1]/hook", "link-local"],
  ["https://100.64.0.1/hook", "CGNAT"],
  ["https://[fd00::1]/hook", "unique-local"],
  ["https://[::ffff:127.0.0.1]/hook", "IPv4-mapped"],
  ["https://[::ffff:169.254.169.254]/hook", "IPv4-mapped"],
  ["https://2130706433/hook", "loopback"], // decimal 127.0.0.1
  ["https://0x7f000001/hook", "loopback"], // hex
  ["https://0177.0.0.1/hook", "loopback"], // octal
];

/** More of the same kinds, in other notations and ranges. */
const MORE: [string, string][] = [
  ["https://127.1/hook", "loopback"], // short form
  ["https://0x7f.1/hook", "loopback"],
  ["https://0xa9.0xfe.0xa9.0xfe/hook", "link-local"],
  ["https://０x7f000001/hook", "loopback"], // full-width
  ["https://127.0.0.1./hook", "loopback"],
  ["https://0/hook", "unspecified"],
  ["https://0.0.0.0/hook", "unspecified"],
  ["https://[::]/hook", "unspecified"],
  ["https://224.0.0.1/hook", "multicast"],
  ["https://[ff02::1]/hook", "multicast"],
  ["https://255.255.255.255/hook", "broadcast"],
  ["https://192.0.2.10/hook", "documentation"],
  ["https://198.51.100.10/hook", "documentation"],
  ["https://203.0.113.10/hook", "documentation"],
  ["https://[2001:db8::1]/hook", "documentation"],
  ["https://[::127.0.0.1]/hook", "IPv4-compatible"],
  ["https://[64:ff9b::a9fe:a9fe]/hook", "NAT64"],
  ["https://[2002:7f00:1::]/hook", "special-purpose"], // 6to4
  ["https://LOCALHOST./hook", "not public"],
  ["https://api.localhost/hook", "not public"],
  ["https://printer.local/hook", "not public"],
  ["https://db.internal/hook", "not public"],
  ["https://metadata/hook", "not public"],
  ["https://instance-data/hook", "not public"],
  ["https://router.home.arpa/hook", "not public"],
];

const PUBLIC = [
  "https://hooks.example.test/x",
  "https://8.8.8.8/hook",
  "https://[2606:4700:4700::1111]/hook",
  "https://☃.example/hook",
  "https://localhost.example.com/hook",
  "https://internal.example.com/hook",
];

describe("webhook destinations", () => {
  it.each([...FINDING, ...MORE])("%s is refused (%s)", (url, kind) => {
    expect(destinationProblem(url, false)).toContain(kind);
    // The development flag allows loopback only.
    const loopback = kind === "loopback" || /\/\/localhost\.?\//i.test(url);
    if (!loopback) expect(destinationProblem(url, true)).not.toBeNull();
  });

  it.each(PUBLIC)("%s is a public destination", (url) => {
    expect(destinationProblem(url, false)).toBeNull();
  });

  it("PUT /v1/webhook refuses each of the finding's 16 forms with a 422 naming url, and keeps none", async () => {
    const c = client((await createSite()).key);
    for (const [url, kind] of FINDING) {
      const res = await c.put("/v1/webhook", { url });
      expect(res.status, url).toBe(422);
      expect(res.body.detail).toContain("url: must point to a public host");
      expect(res.body.detail).toContain(kind);
    }
    expect((await c.get("/v1/webhook")).status).toBe(404);
  });

  it("the dashboard's form refuses them through the same check", async () => {
    const site = await createSite();
    const { cookie } = await person(site.orgId, "admin");
    const base = `/dashboard/sites/${site.siteId}/webhooks`;
    for (const [url] of FINDING) {
      const res = await dash("POST", base, { cookie, form: { url, events: ["job.finished"] } });
      expect(res.status, url).toBe(422);
      expect(res.html).toContain("url: must point to a public host");
    }
    expect((await client(site.key).get("/v1/webhook")).status).toBe(404);
  });

  it("an address stored before the rule is refused at delivery: nothing is sent, the log says why", async () => {
    const site = siteRef();
    const now = new Date().toISOString();
    await env.DB.prepare("INSERT INTO webhook_endpoints (site_id, url, events, secret, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?)")
      .bind(site.id, "https://169.254.169.254/latest/meta-data/", `whsec_${btoa("a".repeat(24))}`, now, now)
      .run();
    const r = receiver([() => new Response("secret", { status: 200 })]);
    const d = deps({ now: Date.now, fetch: r.fetch });
    const id = await queueDelivery(d.publish, site.id, "ping", {});
    expect(await attempt(d.deliver, id)).toBeNull();
    expect(r.received).toHaveLength(0);
    expect(await findDelivery(d.db, id)).toMatchObject({ status: "failed", attempts: 1, statusCode: null, error: "destination not allowed" });
  });
});

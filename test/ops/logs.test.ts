// The on-call logs (docs/decisions.md "Operating the service"): one http.request line per request with
// the X-Request-Id answered, the job's created/started/finished lines with site and job ids (the
// creating request's id carried into the site object), the events' Analytics Engine points, and
// never a key, token, password or text in any line, across a full connector cycle and a
// dashboard sign-in. Every console line is captured by spies (the Worker, the site object and
// its alarms share the isolate).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { putWebhook } from "../../src/ops/webhooks.ops";
import { attempt } from "../../src/webhooks/deliver";
import { queueDelivery } from "../../src/webhooks/publish";
import { ADMIN, type Call, createSite, request, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { deeplError, mockEngines, runToEnd } from "../helpers/faults";
import { runJob } from "../helpers/jobs";
import { recordObjectSleeps } from "../helpers/seams";
import { clock, deps, receiver, siteRef } from "../helpers/webhooks";

afterEach(() => void vi.restoreAllMocks());

function captureLogs() {
  const lines: string[] = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    });
  return lines;
}

type Line = Record<string, unknown> & { level: string; event: string };

describe("logs of a connector's full cycle", () => {
  it("one http.request per request with its X-Request-Id; job.created (with the request id), started and finished; no key, token, password or text", async () => {
    const lines = captureLogs();
    const points = vi.spyOn(env.METRICS!, "writeDataPoint");
    const answered: { method: string; path: string; res: Call }[] = [];
    const call = async (method: string, path: string, opts: Parameters<typeof request>[2] = {}) => {
      const res = await request(method, path, opts);
      answered.push({ method, path, res });
      return res;
    };

    const site = await createSite({ handshake: false });
    const key = site.key;
    const texts = ["Welcome to our bakery, open daily", "Fresh sourdough every morning", "Ask about our gluten-free loaves"];
    expect((await call("POST", "/v1/handshake", { key, body: { connector_version: "test/1.0", source_language: "en", languages: ["de", "fr"], capabilities: [] } })).status).toBe(
      200,
    );
    const pushed = await call("PUT", "/v1/units/batch", {
      key,
      body: {
        units: [
          unit(
            "home",
            texts.slice(0, 2).map((text, i) => ({ key: `s${i}`, text })),
          ),
          unit("about", [{ key: "s0", text: texts[2] }]),
        ],
      },
    });
    expect(pushed.status).toBe(200);
    const created = await call("POST", "/v1/jobs", { key, body: { confirm: true } });
    expect(created.status).toBe(202);
    const c = { get: (path: string) => call("GET", path, { key }) } as Parameters<typeof runJob>[0];
    const job = await runJob(c, site.siteId, created.body.id);
    expect(job.status).toBe("succeeded");
    const results = await call("GET", "/v1/results?limit=500", { key });
    const ids = results.body.results.map((r: { id: string }) => r.id) as string[];
    const translations = results.body.results.map((r: { text: string }) => r.text) as string[];
    expect(ids.length).toBe(6);
    expect((await call("POST", "/v1/results/ack", { key, body: { ids } })).body.acknowledged).toBe(6);
    expect((await call("POST", "/v1/reviews", { key, body: { reviews: [{ id: ids[0], outcome: "approved", text: "Edited by a person, with care" }] } })).body.updated).toBe(1);
    // A dashboard sign-in: the owner's password must not be logged either.
    const owner = await person(site.orgId, "owner");
    const signedIn = await dash("POST", "/dashboard/sign-in", { form: { email: owner.email, password: owner.password } });
    expect(signedIn.status).toBe(303);

    const parsed = lines.map((l) => JSON.parse(l) as Line);
    // Every line is one JSON object with a level and a dotted event.
    for (const line of parsed) {
      expect(["debug", "info", "warn", "error"]).toContain(line.level);
      expect(line.event).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
    }
    const requests = parsed.filter((l) => l.event === "http.request");
    for (const { method, path, res } of answered) {
      const id = res.headers.get("x-request-id");
      const mine = requests.filter((l) => l.request_id === id);
      expect(mine, `${method} ${path}`).toHaveLength(1);
      expect(mine[0]).toMatchObject({ method, status: res.status, site_id: site.siteId, org_id: site.orgId, key_prefix: key.slice(0, 10) });
      expect(mine[0].ms).toEqual(expect.any(Number));
      // The route's pattern, never the raw path.
      expect(String(mine[0].route)).toMatch(/^\/v1\//);
    }
    expect(requests.find((l) => l.request_id === created.headers.get("x-request-id"))!.route).toBe("/v1/jobs");
    expect(requests.find((l) => l.method === "GET" && String(l.route).includes(":"))!.route).toBe("/v1/jobs/:job_id");

    // The job's lines: created in the creating request's context (inside the site object), then started and finished.
    const jobLines = parsed.filter((l) => l.job_id === job.id && l.site_id === site.siteId);
    expect(jobLines.find((l) => l.event === "job.created")).toMatchObject({ request_id: created.headers.get("x-request-id"), org_id: site.orgId, status: "queued" });
    expect(jobLines.find((l) => l.event === "job.started")).toBeTruthy();
    expect(jobLines.find((l) => l.event === "job.finished")).toMatchObject({ status: "succeeded", items: 6, characters: job.characters, errors: 0, ms: expect.any(Number) });

    // Analytics Engine: the same events, in the fixed layout (index org; blobs event, engine, code, status, version; doubles count, characters, ms).
    const written = points.mock.calls.map(([p]) => p as { indexes: string[]; blobs: string[]; doubles: number[] });
    const finished = written.find((p) => p.blobs[0] === "job.finished")!;
    expect(finished.indexes).toEqual([String(site.orgId)]);
    expect(finished.blobs).toEqual(["job.finished", "", "", "succeeded", env.VERSION?.id ?? ""]);
    // The version writes every point: a gradual deployment compares its two versions by it (scripts/rollout.mjs).
    expect(written.find((p) => p.blobs[0] === "http.request")!.blobs[4]).toBe(env.VERSION?.id ?? "");
    expect(finished.doubles.slice(0, 2)).toEqual([1, job.characters]);
    expect(written.filter((p) => p.blobs[0] === "http.request" && p.indexes[0] === String(site.orgId)).length).toBeGreaterThanOrEqual(answered.length);
    // The site's size, once a day from its alarm: the bytes in the count double.
    const sizes = written.filter((p) => p.blobs[0] === "site.storage_bytes" && p.indexes[0] === String(site.orgId));
    expect(sizes).toHaveLength(1);
    expect(sizes[0].doubles[0]).toBeGreaterThan(0);

    // Nothing secret or customer-written in any line.
    const all = lines.join("\n");
    // The invitation's mail went to the outbox: logged as its kind, never its address.
    expect(parsed.find((l) => l.event === "mail.sent")).toMatchObject({ level: "info", via: "outbox" });
    for (const secret of [key, ADMIN, owner.password, owner.email, ...texts, ...translations, "Edited by a person, with care"]) expect(all, secret).not.toContain(secret);
    expect(lines.length).toBeGreaterThan(answered.length);
  });

  it("an engine outage: engine.failed with the engine, kind, HTTP status and retryable; the job's errors counted in job.finished", async () => {
    recordObjectSleeps();
    mockEngines({ deepl: () => deeplError(503, "Service temporarily unavailable") });
    const site = await createSite({ target_languages: [{ code: "de", engine: "deepl" }] });
    const lines = captureLogs();
    const c = { get: (path: string) => request("GET", path, { key: site.key }) } as Parameters<typeof runToEnd>[0];
    expect((await request("PUT", "/v1/units", { key: site.key, body: unit("home", [{ key: "t", text: "Opening hours" }]) })).status).toBe(200);
    const created = await request("POST", "/v1/jobs", { key: site.key, body: { confirm: true } });
    const job = await runToEnd(c, site.siteId, created.body.id);
    expect(job.failed_segments).toBe(1);
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    expect(parsed.find((l) => l.event === "engine.failed")).toMatchObject({
      level: "warn",
      site_id: site.siteId,
      job_id: job.id,
      engine: "deepl",
      language: "de",
      code: "unavailable",
      status: 503,
      retryable: true,
    });
    expect(parsed.find((l) => l.event === "job.finished" && l.job_id === job.id)).toMatchObject({ errors: 1, items: 1 });
    expect(lines.join("\n")).not.toContain("Opening hours");
  });

  it("webhook deliveries: one webhook.delivery line and point per attempt, with the outcome and the endpoint's status", async () => {
    const site = siteRef();
    await putWebhook(env, "admin", site, { url: "https://hooks.example.test/oncall" });
    const t = clock();
    const r = receiver([() => new Response("down", { status: 503 }), () => new Response(null, { status: 204 })]);
    const metrics = { writeDataPoint: vi.fn() };
    const d = deps({ now: t.now, fetch: r.fetch });
    const id = await queueDelivery(d.publish, site.id, "ping", {});
    const lines = captureLogs();
    await attempt({ ...d.deliver, metrics }, id);
    t.advance(5_000);
    await attempt({ ...d.deliver, metrics }, id);
    const parsed = lines.map((l) => JSON.parse(l) as Line).filter((l) => l.event === "webhook.delivery");
    expect(parsed).toMatchObject([
      { level: "warn", site_id: site.id, delivery_id: id, status: "pending", code: 503, attempts: 1 },
      { level: "info", site_id: site.id, delivery_id: id, status: "delivered", code: 204, attempts: 2 },
    ]);
    expect(metrics.writeDataPoint.mock.calls.map(([p]) => p.blobs)).toEqual([
      ["webhook.delivery", "", "503", "pending", ""],
      ["webhook.delivery", "", "204", "delivered", ""],
    ]);
    expect(lines.join("\n")).not.toContain("hooks.example.test");
  });

  it("a key that slips into a line keeps its prefix only", async () => {
    const lines = captureLogs();
    const { log } = await import("../../src/obs/log");
    log("error", "test.slip", { error: "upstream said: Bearer tsk_Zk3q9vJ0bYp2XwR7mN5sT1aL8cD4eF6gH2jK4l is invalid" });
    expect(lines[0]).toContain("tsk_Zk3q9v…");
    expect(lines[0]).not.toContain("tsk_Zk3q9vJ0bYp2XwR7mN5sT1aL8cD4eF6gH2jK4l");
  });
});

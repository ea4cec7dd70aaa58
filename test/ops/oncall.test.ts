// The operator's on-call endpoints (docs/decisions.md "Operating the service"): find an organization and
// its site, read the site's diagnostics and jobs, cancel a queued job, find a key's site, suspend
// the site (its key gets 403 saying so, its jobs stop, the dashboard shows it) and resume it, all
// audited; the deep health with the version; billing discrepancies; an overloaded object's 503.
import { createExecutionContext, createScheduledController, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { generateKey } from "../../src/control/keys.control";
import worker from "../../src/index";
import { ADMIN, admin, createSite, request, unit } from "../helpers/api";
import { auditActions, meter } from "../helpers/billing";
import { dash, person } from "../helpers/dashboard";
import { setClock } from "../helpers/seams";
import { stubOf } from "../helpers/site";

afterEach(() => {
  setClock(undefined);
  vi.restoreAllMocks();
});

const tag = () => crypto.randomUUID().slice(0, 8);

async function provisioned() {
  const name = `Oncall Bakery ${tag()}`;
  const org = (await admin("POST", "/admin/v1/organizations", { name })).body;
  const site = await createSite({ orgId: org.id });
  expect((await admin("PUT", `/admin/v1/organizations/${org.id}/subscription`, { plan: "scale", status: "active", site_ids: [site.siteId] })).status).toBe(200);
  const pushed = await request("PUT", "/v1/units/batch", { key: site.key, body: { units: [unit("home", [{ key: "t", text: "Good morning" }])] } });
  expect(pushed.status).toBe(200);
  return { name, ...site };
}

const queueJob = async (key: string) => {
  const res = await request("POST", "/v1/jobs", { key, body: { confirm: true } });
  expect(res.status).toBe(202);
  return res.body.id as number;
};

describe("the operator's views and actions", () => {
  it("finds the organization and site, reads diagnostics, lists and cancels a queued job, looks up a key, suspends and resumes", async () => {
    const site = await provisioned();

    // Organizations: by a part of the name, and by id.
    const byName = await admin("GET", `/admin/v1/organizations?q=${encodeURIComponent(site.name.slice(7))}`);
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual({
      organizations: [{ id: site.orgId, name: site.name, created_at: expect.any(String), plan: "scale", subscription_status: "active", sites: 1 }],
      next_cursor: null,
    });
    expect((await admin("GET", `/admin/v1/organizations?q=${site.orgId}`)).body.organizations.map((o: { id: number }) => o.id)).toContain(site.orgId);
    const sites = await admin("GET", `/admin/v1/sites?organization_id=${site.orgId}`);
    expect(sites.body).toEqual({
      sites: [{ id: site.siteId, name: expect.any(String), organization_id: site.orgId, source_language: "en", suspended: false, suspended_reason: null }],
      next_cursor: null,
    });

    // A queued job (the pool's alarms wait an hour): diagnostics and the jobs list show it; the operator cancels it.
    const first = await queueJob(site.key);
    const diag = await admin("GET", `/admin/v1/sites/${site.siteId}/diagnostics`);
    expect(diag.status).toBe(200);
    expect(diag.body).toMatchObject({ jobs: { queued: 1, running: 0 }, ledger_outbox: 0, faults: null, suspended: null, alarm_at: expect.any(String) });
    expect(diag.body.storage_bytes).toBeGreaterThan(0);
    expect(diag.body.alarms.map((a: { need: string }) => a.need)).toContain("jobs");
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}/jobs?status=queued`)).body.jobs.map((j: { id: number }) => j.id)).toEqual([first]);
    const cancelled = await admin("POST", `/admin/v1/sites/${site.siteId}/jobs/${first}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, body: { id: first, status: "cancelled" } });
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}/jobs?status=active`)).body.jobs).toEqual([]);

    // The key's site, from the key alone; an unknown or malformed key is 404.
    const found = await admin("POST", "/admin/v1/keys/lookup", { key: site.key });
    expect(found.body).toEqual({
      key_id: site.keyId,
      name: "test",
      prefix: site.key.slice(0, 10),
      site_id: site.siteId,
      organization_id: site.orgId,
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      revoked_at: null,
    });
    expect((await admin("POST", "/admin/v1/keys/lookup", { key: generateKey() })).status).toBe(404);
    expect((await admin("POST", "/admin/v1/keys/lookup", { key: "not a key" })).status).toBe(404);

    // Suspended: the key is refused with the reason, a queued job does not start, the dashboard says so.
    const second = await queueJob(site.key);
    const suspended = await admin("POST", `/admin/v1/sites/${site.siteId}/suspend`, { reason: "unpaid invoices" });
    expect(suspended.body).toEqual({ site_id: site.siteId, suspended: "unpaid invoices", suspended_at: expect.any(String) });
    const refused = await request("GET", "/v1/status", { key: site.key });
    expect(refused).toMatchObject({ status: 403, body: { detail: "site suspended: unpaid invoices; contact support" } });
    const stub = stubOf(site.siteId);
    await runDurableObjectAlarm(stub);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}/jobs?status=active`)).body.jobs).toMatchObject([{ id: second, status: "queued" }]);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}/diagnostics`)).body.suspended).toBe("unpaid invoices");
    expect((await admin("GET", `/admin/v1/sites?organization_id=${site.orgId}`)).body.sites[0]).toMatchObject({ suspended: true, suspended_reason: "unpaid invoices" });
    const owner = await person(site.orgId, "owner");
    const page = await dash("GET", `/dashboard/sites/${site.siteId}`, { cookie: owner.cookie });
    expect(page.html).toContain("This site is suspended: unpaid invoices.");

    // Resumed: the key works and the waiting job runs.
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}/suspend`)).body).toEqual({ site_id: site.siteId, suspended: null, suspended_at: null });
    expect((await request("GET", "/v1/status", { key: site.key })).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const job = (await request("GET", `/v1/jobs/${second}`, { key: site.key })).body;
      if (job.status === "succeeded") break;
      await runDurableObjectAlarm(stub);
    }
    expect((await request("GET", `/v1/jobs/${second}`, { key: site.key })).body.status).toBe("succeeded");

    // Every action audited with the actor; the key itself nowhere.
    const audit = await auditActions(site.orgId);
    expect(audit.map((a) => `${a.actor} ${a.action}`)).toEqual(expect.arrayContaining(["admin job.cancel", "admin key.lookup", "admin site.suspend", "admin site.resume"]));
    expect(JSON.stringify(audit)).not.toContain(site.key);
    expect(audit.find((a) => a.action === "site.suspend")!.detail).toContain("unpaid invoices");
  });

  it("pages organizations 50 at a time with an opaque cursor", async () => {
    const prefix = `Pager ${tag()}`;
    for (let i = 0; i < 51; i++) await admin("POST", "/admin/v1/organizations", { name: `${prefix} ${i}` });
    const first = await admin("GET", `/admin/v1/organizations?q=${encodeURIComponent(prefix)}`);
    expect(first.body.organizations).toHaveLength(50);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await admin("GET", `/admin/v1/organizations?q=${encodeURIComponent(prefix)}&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ organizations: [{ name: `${prefix} 50` }], next_cursor: null });
  });

  it("refuses bad bodies with a 422 naming the field", async () => {
    const site = await provisioned();
    const empty = await admin("POST", `/admin/v1/sites/${site.siteId}/suspend`, { reason: " " });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toMatch(/reason/);
    const missing = await admin("POST", "/admin/v1/keys/lookup", {});
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toMatch(/key/);
    expect((await admin("GET", "/admin/v1/sites/999999999/diagnostics")).status).toBe(404);
    expect((await request("GET", "/admin/v1/health", { key: "wrong-token-wrong-token-wrong-token" })).status).toBe(401);
  });
});

describe("deep health", () => {
  it("200 with the version when D1 and a site object answer; 503 when D1 does not", async () => {
    const res = await admin("GET", "/admin/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      d1: "ok",
      site_object: "ok",
      queue: "bound",
      mail: "outbox",
      dashboard_url_set: true,
      dev_flags: expect.arrayContaining(["DEV_MAILBOX", "JOB_ALARM_DELAY_MS"]),
      billing_provider: "manual",
      version: { id: env.VERSION!.id },
    });
    expect(res.body.engines).toContainEqual({ name: "pseudo", configured: true });

    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const broken = { ...env, DB: { prepare: () => ({ first: async () => Promise.reject(new Error("D1_ERROR: unavailable")) }) } } as unknown as Env;
    const ctx = createExecutionContext();
    const down = await createApp().fetch(new Request("https://api.test/admin/v1/health", { headers: { authorization: `Bearer ${ADMIN}` } }), broken, ctx);
    await waitOnExecutionContext(ctx);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ d1: "failed", site_object: "ok" });
  });
});

describe("an overloaded site object", () => {
  it("answers 503 with Retry-After, not 500", async () => {
    const site = await createSite();
    const overloaded = Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), { overloaded: true, retryable: false });
    const SITE = { getByName: () => ({ invoke: async () => Promise.reject(overloaded) }) };
    const ctx = createExecutionContext();
    const res = await createApp().fetch(
      new Request("https://api.test/v1/status", { headers: { authorization: `Bearer ${site.key}`, "cf-connecting-ip": "203.0.113.77" } }),
      { ...env, SITE } as unknown as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toEqual({ detail: "This site is receiving more requests than it can serve: retry in 5 seconds." });
  });
});

describe("billing reconciliation", () => {
  it("usage that reached D1 after its month was closed is listed and logged as billing.late_usage by the daily check", async () => {
    const org = (await admin("POST", "/admin/v1/organizations", { name: `Late ${tag()}` })).body;
    const site = await createSite({ orgId: org.id, handshake: false });
    await meter(org.id, site.siteId, "2026-09", 10_000);
    setClock(new Date("2026-10-02T08:00:00Z"));
    const closeLog = vi.spyOn(console, "log").mockImplementation(() => undefined);
    expect((await admin("POST", "/admin/v1/billing/close?month=2026-09")).status).toBe(200);
    expect(closeLog.mock.calls.map(([l]) => JSON.parse(String(l))).find((l) => l.event === "billing.close" && l.org_id === org.id)).toMatchObject({
      month: "2026-09",
      status: "closed",
      code: "manual",
      used_characters: 10_000,
    });
    closeLog.mockRestore();
    expect(
      (await admin("GET", "/admin/v1/billing/discrepancies?month=2026-09")).body.discrepancies.filter((d: { organization_id: number }) => d.organization_id === org.id),
    ).toEqual([]);

    await meter(org.id, site.siteId, "2026-09", 2_500); // flushed late, after the close
    const listed = (await admin("GET", "/admin/v1/billing/discrepancies?month=2026-09")).body.discrepancies.filter(
      (d: { organization_id: number }) => d.organization_id === org.id,
    );
    expect(listed).toEqual([
      {
        organization_id: org.id,
        month: "2026-09",
        closed_characters: 10_000,
        ledger_characters: 12_500,
        late_characters: 2_500,
        late_credit_characters: 0,
        closed_at: expect.any(String),
      },
    ]);
    // A credit that reached D1 while the month was being closed (the endpoint refuses closed months): listed too, to refund by hand.
    await env.DB.prepare("INSERT INTO credits (organization_id, month, characters, reason, actor, created_at) VALUES (?, '2026-09', 700, 'raced the close', 'admin', ?)")
      .bind(org.id, "2026-10-02T08:00:00.100Z")
      .run();
    expect(
      (await admin("GET", "/admin/v1/billing/discrepancies?month=2026-09")).body.discrepancies.find((d: { organization_id: number }) => d.organization_id === org.id),
    ).toMatchObject({ late_characters: 2_500, late_credit_characters: 700 });

    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const info = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime: new Date("2026-10-03T00:20:00Z"), cron: "20 0 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const late = warn.mock.calls.map(([l]) => JSON.parse(String(l))).filter((l) => l.event === "billing.late_usage" && l.org_id === org.id);
    expect(late).toEqual([{ level: "warn", event: "billing.late_usage", org_id: org.id, month: "2026-09", characters: 2_500, count: 1 }]);
    // The daily cron's own line: what it did (the month close ran before the check).
    const runs = info.mock.calls.map(([l]) => JSON.parse(String(l))).filter((l) => l.event === "cron.run");
    expect(runs).toEqual([
      expect.objectContaining({ level: "info", cron: "20 0 * * *", code: "20 0 * * *", status: "ok", late_usage: expect.any(Number), ms: expect.any(Number) }),
    ]);
    expect((await admin("GET", "/admin/v1/billing/discrepancies?month=2026-13")).status).toBe(422);
  });
});

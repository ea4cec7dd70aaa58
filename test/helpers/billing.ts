/** Billing tests: organizations with sites, webhook deliveries through the Worker, ledger rows for a month. */
import { env, exports } from "cloudflare:workers";
import { admin, createSite, type TestSite } from "./api";

/** An organization without a subscription, with `sites` sites (each with a key). */
export async function organization(sites = 1) {
  const org = await admin("POST", "/admin/v1/organizations", { name: `Billing ${Math.random().toString(36).slice(2, 8)}` });
  const orgId = org.body.id as number;
  const list: TestSite[] = [];
  for (let i = 0; i < sites; i++) list.push(await createSite({ orgId }));
  return { orgId, sites: list };
}

export async function deliver(payload: string, signature?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== undefined) headers["stripe-signature"] = signature;
  const res = await exports.default.fetch(new Request("https://api.test/billing/stripe/webhook", { method: "POST", headers, body: payload }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function contract(orgId: number) {
  return env.DB.prepare("SELECT plan, status, provider, site_limit, past_due_since FROM subscriptions WHERE organization_id = ?").bind(orgId).first<{
    plan: string;
    status: string;
    provider: string;
    site_limit: number | null;
    past_due_since: string | null;
  }>();
}

export async function covered(orgId: number) {
  const rows = await env.DB.prepare("SELECT site_id FROM subscription_sites WHERE organization_id = ? ORDER BY site_id").bind(orgId).all<{ site_id: number }>();
  return rows.results.map((r) => r.site_id);
}

/** Billed characters for a site in a month, as a finished job would have metered them. */
export async function meter(orgId: number, siteId: number, month: string, characters: number) {
  const jobId = Math.floor(Math.random() * 1e9);
  await env.DB.prepare("INSERT INTO usage_ledger (organization_id, site_id, job_id, slice, characters, month, created_at) VALUES (?, ?, ?, 1, ?, ?, ?)")
    .bind(orgId, siteId, jobId, characters, `${month}-01`, `${month}-15T12:00:00.000Z`)
    .run();
}

export async function auditActions(orgId: number) {
  const rows = await env.DB.prepare("SELECT actor, action, detail FROM audit_log WHERE organization_id = ? ORDER BY id")
    .bind(orgId)
    .all<{ actor: string; action: string; detail: string | null }>();
  return rows.results;
}

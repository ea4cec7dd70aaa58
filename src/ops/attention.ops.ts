/**
 * The review queue (translations held back by QA), as the admin API and the dashboard's
 * Attention page handle it: list, and decide (fix with a text, or discard). The decision is
 * the site object's; the audit row follows its answer (the fixed text is content, not an
 * audit detail).
 */
import type { AttentionDecision } from "../api/admin.schemas";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import type { SiteSettings } from "../control/sites.control";
import { siteStub } from "../site/stub";
import type { Actor } from "./actor";

type Query = Parameters<ReturnType<typeof siteStub>["attention"]>[1];

/** A page of the queue; `dashboardBase` makes its `attention_url`s. */
export async function listAttention(env: Env, site: SiteSettings, query: Query, dashboardBase: string) {
  return siteStub(env, site.id).attention(site, query, dashboardBase);
}

/**
 * The operator reading a site's queue (the admin API): the page, and an `attention.read` audit
 * row naming the operator, the site and how many items (texts with their sources) were shown.
 * The customer's own reads (the connector, the dashboard) are not audited: the audit log answers
 * who outside the organization saw its content.
 */
export async function operatorReadsAttention(env: Env, actor: Actor, site: SiteSettings, query: Query, dashboardBase: string, at = new Date()) {
  const page = await listAttention(env, site, query, dashboardBase);
  await auditStatement(
    controlDb(env.DB),
    { organizationId: site.organizationId, actor, action: "attention.read", target: `site:${site.id}`, detail: { items: page.items.length } },
    at,
  ).run();
  return page;
}

export async function decideAttention(env: Env, actor: Actor, site: SiteSettings, resultId: string, decision: AttentionDecision) {
  const out = await siteStub(env, site.id).decideAttention(site, resultId, decision);
  await auditStatement(controlDb(env.DB), {
    organizationId: site.organizationId,
    actor,
    action: `attention.${decision.action}`,
    target: `site:${site.id}`,
    detail: { result_id: resultId },
  }).run();
  return out;
}

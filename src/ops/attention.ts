/**
 * The review queue (translations held back by QA), as the admin API and the dashboard's
 * Attention page handle it: list, and decide (fix with a text, or discard). The decision is
 * the site object's; the audit row follows its answer (the fixed text is content, not an
 * audit detail).
 */
import type { AttentionDecision } from "../api/schemas";
import { auditStatement } from "../control/audit";
import { controlDb } from "../control/db";
import type { SiteSettings } from "../control/sites";
import { siteStub } from "../site/stub";
import type { Actor } from "./actor";

type Query = Parameters<ReturnType<typeof siteStub>["attention"]>[1];

/** A page of the queue; `dashboardBase` makes its `attention_url`s. */
export async function listAttention(env: Env, site: SiteSettings, query: Query, dashboardBase: string) {
  return siteStub(env, site.id).attention(site, query, dashboardBase);
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

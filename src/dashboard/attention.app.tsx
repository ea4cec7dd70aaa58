/** The review queue: held-back translations side by side with their source, fix or discard. The decision is ops/attention.ops.ts's. */
import { Hono } from "hono";
import { AttentionDecisionIn } from "../api/admin.schemas";
import type { QAIssue } from "../api/schemas";
import { ApiError } from "../errors";
import { dashboardBase } from "../links";
import { decideAttention, listAttention } from "../ops/attention.ops";
import { siteAccess } from "./access";
import type { DashApp } from "./auth";
import { form, id, str } from "./form";
import { AttentionConfirmPage, AttentionPage } from "./pages/attention.page";
import { parsed } from "./parse";
import { dashboardTarget, withDone } from "./redirect";
import { notice, render, siteFrame } from "./respond";

export const attention = new Hono<DashApp>();

attention.get("/sites/:site_id/attention", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const filters = { unit: (c.req.query("unit") ?? "").slice(0, 500), language: (c.req.query("language") ?? "").slice(0, 35), cursor: (c.req.query("cursor") ?? "").slice(0, 2000) };
  const data = await listAttention(
    c.env,
    a.site,
    { cursor: filters.cursor || undefined, limit: 20, unit: filters.unit || undefined, language: filters.language || undefined },
    dashboardBase(c),
  );
  return render(c, <AttentionPage {...siteFrame(c, a, "attention")} data={data} filters={filters} languages={a.site.targetLanguages.map((t) => t.code)} notice={notice(c)} />);
});

/**
 * Fix or discard. A fix runs QA like engine output; with QA errors `decideAttention` saves
 * nothing and answers 409 with the findings, shown here with the editor's text until they
 * confirm (`confirm=1`, the "Save anyway" button) or change it.
 */
attention.post("/sites/:site_id/attention/:result_id", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const f = await form(c);
  const queue = `/dashboard/sites/${a.site.id}/attention`;
  // Where to return is settled before the decision is applied.
  const back = dashboardTarget(str(f, "back"), "back") ?? queue;
  const action = str(f, "action");
  const decision = parsed(AttentionDecisionIn, action === "fix" ? { action, text: str(f, "text").replace(/\r\n/g, "\n"), confirm: str(f, "confirm") === "1" } : { action });
  const resultId = c.req.param("result_id").slice(0, 64);
  try {
    await decideAttention(c.env, a.actor, a.site, resultId, decision);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 409 && decision.action === "fix")) throw err;
    const held = err.extra as { qa: QAIssue[]; source_text: string };
    return render(
      c,
      <AttentionConfirmPage {...siteFrame(c, a, "attention")} resultId={resultId} text={decision.text} sourceText={held.source_text} qa={held.qa} back={back} queue={queue} />,
      409,
    );
  }
  return c.redirect(withDone(back, decision.action === "fix" ? "fixed" : "discarded"), 303);
});

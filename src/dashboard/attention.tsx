/** The review queue: held-back translations side by side with their source, fix or discard. The decision is ops/attention.ts's. */
import { Hono } from "hono";
import { AttentionDecisionIn } from "../api/schemas";
import { dashboardBase } from "../links";
import { decideAttention, listAttention } from "../ops/attention";
import { siteAccess } from "./access";
import type { DashApp } from "./auth";
import { form, id, safeNext, str } from "./form";
import { AttentionPage } from "./pages/attention";
import { parsed } from "./parse";
import { notice, render, siteNav, viewer } from "./respond";

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
  return render(
    c,
    <AttentionPage nav={siteNav(a, "attention")} viewer={viewer(c)} data={data} filters={filters} languages={a.site.targetLanguages.map((t) => t.code)} notice={notice(c)} />,
  );
});

attention.post("/sites/:site_id/attention/:result_id", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const f = await form(c);
  const action = str(f, "action");
  const decision = parsed(AttentionDecisionIn, action === "fix" ? { action, text: str(f, "text").replace(/\r\n/g, "\n") } : { action });
  await decideAttention(c.env, a.actor, a.site, c.req.param("result_id").slice(0, 64), decision);
  const back = safeNext(str(f, "back") || `/dashboard/sites/${a.site.id}/attention`);
  return c.redirect(`${back}${back.includes("?") ? "&" : "?"}done=${decision.action === "fix" ? "fixed" : "discarded"}`, 303);
});

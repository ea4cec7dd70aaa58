/** The organization's glossary (admins): add and remove terms, CSV export and import. Changes go through ops/glossary.ops.ts. */
import { Hono } from "hono";
import { ApiError } from "../errors";
import { addTerm, exportCsv, importCsv, listTerms, removeTerm } from "../ops/glossary.ops";
import { siteAccess } from "./access";
import type { DashApp, DashContext } from "./auth";
import { form, id, str } from "./form";
import { GlossaryPage } from "./pages/glossary.page";
import { notice, render, type SiteAccess, siteFrame } from "./respond";

export const glossary = new Hono<DashApp>();

async function glossaryPage(c: DashContext, a: SiteAccess, extra: { notice?: string | null; error?: string | null } = {}) {
  const terms = await listTerms(c.env, a.organizationId);
  return <GlossaryPage {...siteFrame(c, a, "glossary")} terms={terms} languages={a.site.targetLanguages.map((t) => t.code)} {...extra} />;
}

/** A refused change (422) is shown on the page with the form; anything else goes to the error page. */
async function refusedOnPage(c: DashContext, a: SiteAccess, change: () => Promise<unknown>, rewrite: (detail: string) => string = (d) => d) {
  try {
    await change();
    return null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return render(c, await glossaryPage(c, a, { error: rewrite(err.detail) }), 422);
    throw err;
  }
}

glossary.get("/sites/:site_id/glossary", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  return render(c, await glossaryPage(c, a, { notice: notice(c) }));
});

glossary.get("/sites/:site_id/glossary.csv", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const csv = await exportCsv(c.env, a.organizationId);
  c.header("Content-Type", "text/csv; charset=utf-8");
  c.header("Content-Disposition", 'attachment; filename="glossary.csv"');
  return c.body(csv);
});

glossary.post("/sites/:site_id/glossary", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const f = await form(c);
  const term = { source: str(f, "source"), language: str(f, "language").trim(), target: str(f, "target"), case_sensitive: str(f, "case_sensitive") === "1" };
  const refused = await refusedOnPage(
    c,
    a,
    () => addTerm(c.env, a.actor, a.organizationId, term),
    (d) => d.replace(/^terms\[0\]\./, ""),
  );
  return refused ?? c.redirect(`/dashboard/sites/${a.site.id}/glossary?done=term-added`, 303);
});

glossary.post("/sites/:site_id/glossary/import", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const file = (await form(c, { upload: true })).file;
  const upload = Array.isArray(file) ? file[0] : file;
  const refused = await refusedOnPage(c, a, async () => {
    if (!(upload instanceof File) || upload.size === 0) throw new ApiError(422, "file: choose a CSV file to import.");
    await importCsv(c.env, a.actor, a.organizationId, await upload.text());
  });
  return refused ?? c.redirect(`/dashboard/sites/${a.site.id}/glossary?done=imported`, 303);
});

glossary.post("/sites/:site_id/glossary/:term_id/remove", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  await removeTerm(c.env, a.actor, a.organizationId, id(c.req.param("term_id")));
  return c.redirect(`/dashboard/sites/${a.site.id}/glossary?done=term-removed`, 303);
});

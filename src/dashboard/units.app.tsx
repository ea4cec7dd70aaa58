/** A site's units: those that need work (or all), and one unit's segment × language matrix. */
import { Hono } from "hono";
import { dashboardBase } from "../links";
import { unitOf, unitsOf } from "../ops/units.ops";
import { siteAccess } from "./access";
import type { DashApp } from "./auth";
import { id } from "./form";
import { UnitPage } from "./pages/unit.page";
import { UnitsPage } from "./pages/units.page";
import { render, siteFrame } from "./respond";

export const units = new Hono<DashApp>();

units.get("/sites/:site_id/units", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const filters = {
    prefix: (c.req.query("prefix") ?? "").slice(0, 500),
    language: (c.req.query("language") ?? "").slice(0, 35),
    cursor: (c.req.query("cursor") ?? "").slice(0, 2000),
    show: c.req.query("show") === "all" ? ("all" as const) : ("work" as const),
  };
  // "All units" lists every unit; a language narrows to units with work in it, so it uses the API's list.
  const data = await unitsOf(
    c.env,
    a.site,
    { prefix: filters.prefix, language: filters.language || undefined, cursor: filters.cursor || undefined, limit: 50, all: filters.show === "all" },
    dashboardBase(c),
  );
  return render(c, <UnitsPage {...siteFrame(c, a, "units")} data={data} filters={filters} languages={a.site.targetLanguages.map((t) => t.code)} />);
});

units.get("/sites/:site_id/units/open", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  return c.redirect(`/dashboard/sites/${a.site.id}/units/${encodeURIComponent((c.req.query("key") ?? "").trim())}`, 303);
});

units.get("/sites/:site_id/units/:key", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "editor");
  const { unit, texts, notWritable } = await unitOf(c.env, a.site, c.req.param("key"), dashboardBase(c));
  const languages = [...new Set([...a.site.targetLanguages.map((t) => t.code), ...unit.languages.map((l) => l.code)])];
  return render(c, <UnitPage {...siteFrame(c, a, "units")} unit={unit} texts={texts} languages={languages} notWritable={notWritable} />);
});

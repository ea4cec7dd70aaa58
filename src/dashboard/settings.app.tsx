/** A site's settings (admins) and deleting the site (owners, after typing its name). Changes go through ops/sites.ops.ts. */
import { Hono } from "hono";
import { SitePatchIn } from "../api/admin.schemas";
import type { SiteSettings } from "../control/sites.control";
import { ENGINES } from "../engines/registry";
import { ApiError } from "../errors";
import { ADAPTERS, FORMALITIES } from "../limits";
import { eraseSite } from "../ops/erasure.ops";
import { updateSiteSettings } from "../ops/sites.ops";
import { can, siteAccess } from "./access";
import type { DashApp, DashContext } from "./auth";
import { type Form, form, id, str, strs } from "./form";
import { SettingsPage } from "./pages/settings.page";
import { parsed } from "./parse";
import { notice, render, type SiteAccess, siteFrame } from "./respond";

export const settings = new Hono<DashApp>();

function settingsPage(c: DashContext, a: SiteAccess, extra: { notice?: string | null; error?: string | null } = {}) {
  return (
    <SettingsPage {...siteFrame(c, a, "settings")} settings={a.site} engines={ENGINES} formalities={FORMALITIES} adapters={ADAPTERS} danger={can(a.role, "owner")} {...extra} />
  );
}

/** The settings form as the admin PATCH body (validated by the same schema). */
function settingsPatch(f: Form, site: SiteSettings) {
  const rows = Math.min(Number(str(f, "languages")) || 0, 200);
  const targets = [];
  for (let i = 0; i < rows; i++) {
    const code = str(f, `l${i}_code`).trim();
    if (!code || str(f, `l${i}_remove`) === "1") continue;
    targets.push({ code, engine: str(f, `l${i}_engine`), formality: str(f, `l${i}_formality`) || "default", writable: str(f, `l${i}_writable`) === "1" });
  }
  // An engine chosen for a language is enabled with it: otherwise the language could never be translated.
  const engines = [...new Set([...strs(f, "engines"), ...targets.map((t) => t.engine)])];
  return parsed(SitePatchIn, {
    name: str(f, "name").trim(),
    target_languages: targets,
    qa_mode: str(f, "qa_mode") || site.qaMode,
    review_mode: str(f, "review_mode") || site.reviewMode,
    enabled_adapters: strs(f, "adapters"),
    enabled_engines: engines,
    share_memory: str(f, "share_memory") === "1",
  });
}

settings.get("/sites/:site_id/settings", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  return render(c, settingsPage(c, a, { notice: notice(c) }));
});

settings.post("/sites/:site_id/settings", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  let patch: ReturnType<typeof settingsPatch>;
  try {
    patch = settingsPatch(await form(c), a.site);
  } catch (err) {
    if (err instanceof ApiError) return render(c, settingsPage(c, a, { error: err.detail }), 422);
    throw err;
  }
  await updateSiteSettings(c.env, a.actor, a.site.id, patch);
  return c.redirect(`/dashboard/sites/${a.site.id}/settings?done=settings-saved`, 303);
});

settings.post("/sites/:site_id/erase", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "owner");
  if (str(await form(c), "confirm_name").trim() !== a.site.name)
    return render(c, settingsPage(c, a, { error: `confirm_name: type the site's name exactly (${a.site.name}) to delete it.` }), 422);
  await eraseSite(c.env, a.actor, a.site.id);
  return c.redirect("/dashboard?done=site-deleted", 303);
});

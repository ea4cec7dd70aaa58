/** What the dashboard reads of a site's units (the connector reads the same through the public API's routes). */
import type { SiteSettings } from "../control/sites.control";
import { siteStub } from "../site/stub";
import type { UnitListItem } from "../site/sync/unit-list";

/** What both lists give of a unit: its key, label and work per language. */
export type UnitRow = Omit<UnitListItem, "languages"> & { languages: Omit<UnitListItem["languages"][number], "ok">[] };

/** Units with work (narrowed by language), or every unit when `all` and no language is given. */
export async function unitsOf(
  env: Env,
  site: SiteSettings,
  filters: { prefix: string; language?: string; cursor?: string; limit: number; all: boolean },
  dashboardBase: string,
): Promise<{ units: UnitRow[]; next_cursor: string | null }> {
  const stub = siteStub(env, site.id);
  return filters.all && !filters.language
    ? stub.listUnits(site, { prefix: filters.prefix, cursor: filters.cursor, limit: filters.limit })
    : stub.unitsWithWork(site, { prefix: filters.prefix, language: filters.language, cursor: filters.cursor, limit: filters.limit }, dashboardBase);
}

/** A unit's segment × language matrix with its texts, and the site's target languages that are not writable. */
export async function unitOf(env: Env, site: SiteSettings, key: string, dashboardBase: string) {
  const stub = siteStub(env, site.id);
  const [unit, texts, view] = await Promise.all([stub.unitStatus(site, key, dashboardBase), stub.unitTexts(site, key), stub.site(site)]);
  return { unit, texts, notWritable: view.target_languages.filter((t) => !t.writable).map((t) => t.code) };
}

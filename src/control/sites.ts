/** Sites in the control plane, and the settings object handed to a site's Durable Object. */
import { eq } from "drizzle-orm";
import type { SiteCreate, SitePatch } from "../api/schemas";
import { notFound } from "../errors";
import { ADAPTERS, type Adapter, type EngineName, type Formality, type QaMode, type ReviewMode } from "../limits";
import type { ControlDb } from "./db";
import { organizations, sites, type TargetLanguageSetting } from "./schema";

/** Everything the data plane needs to know about its site; passed on every call to the site object. */
export interface SiteSettings {
  id: number;
  organizationId: number;
  organization: string;
  name: string;
  sourceLanguage: string;
  targetLanguages: { code: string; formality: Formality; engine: EngineName; writable: boolean }[];
  enabledAdapters: Adapter[];
  enabledEngines: EngineName[];
  qaMode: QaMode;
  reviewMode: ReviewMode;
}

type SiteRow = typeof sites.$inferSelect;

function toSettings(row: SiteRow, organization: string): SiteSettings {
  return {
    id: row.id,
    organizationId: row.organizationId,
    organization,
    name: row.name,
    sourceLanguage: row.sourceLanguage,
    targetLanguages: row.targetLanguages as SiteSettings["targetLanguages"],
    enabledAdapters: row.enabledAdapters as Adapter[],
    enabledEngines: row.enabledEngines as EngineName[],
    qaMode: row.qaMode as QaMode,
    reviewMode: row.reviewMode as ReviewMode,
  };
}

export async function getSite(db: ControlDb, siteId: number): Promise<SiteSettings | undefined> {
  const rows = await db
    .select({ site: sites, organization: organizations.name })
    .from(sites)
    .innerJoin(organizations, eq(organizations.id, sites.organizationId))
    .where(eq(sites.id, siteId))
    .limit(1);
  return rows[0] && toSettings(rows[0].site, rows[0].organization);
}

export async function requireSite(db: ControlDb, siteId: number): Promise<SiteSettings> {
  const site = await getSite(db, siteId);
  if (!site) throw notFound(`Site ${siteId}`);
  return site;
}

function defaultEngines(targets: TargetLanguageSetting[]): EngineName[] {
  return [...new Set(targets.map((t) => t.engine as EngineName))];
}

export async function createSite(db: ControlDb, input: SiteCreate): Promise<SiteSettings> {
  const org = await db.select().from(organizations).where(eq(organizations.id, input.organization_id)).get();
  if (!org) throw notFound(`Organization ${input.organization_id}`);
  const targets = input.target_languages as TargetLanguageSetting[];
  const [row] = await db
    .insert(sites)
    .values({
      organizationId: org.id,
      name: input.name,
      sourceLanguage: input.source_language,
      targetLanguages: targets,
      enabledAdapters: input.enabled_adapters ?? [...ADAPTERS],
      enabledEngines: input.enabled_engines ?? defaultEngines(targets),
      qaMode: input.qa_mode ?? "editors",
      reviewMode: input.review_mode ?? "draft",
    })
    .returning();
  return toSettings(row, org.name);
}

export async function patchSite(db: ControlDb, siteId: number, patch: SitePatch): Promise<SiteSettings> {
  const current = await requireSite(db, siteId);
  const values: Partial<typeof sites.$inferInsert> = { updatedAt: new Date().toISOString() };
  if (patch.name !== undefined) values.name = patch.name;
  if (patch.source_language !== undefined) values.sourceLanguage = patch.source_language;
  if (patch.target_languages !== undefined) values.targetLanguages = patch.target_languages as TargetLanguageSetting[];
  if (patch.enabled_adapters !== undefined) values.enabledAdapters = patch.enabled_adapters;
  if (patch.enabled_engines !== undefined) values.enabledEngines = patch.enabled_engines;
  if (patch.qa_mode !== undefined) values.qaMode = patch.qa_mode;
  if (patch.review_mode !== undefined) values.reviewMode = patch.review_mode;
  const [row] = await db.update(sites).set(values).where(eq(sites.id, siteId)).returning();
  return toSettings(row, current.organization);
}

/** The admin API's site body: Site plus organization id, qa_mode and review_mode. */
export function adminSiteOut(site: SiteSettings) {
  return {
    id: site.id,
    name: site.name,
    organization: site.organization,
    organization_id: site.organizationId,
    source_language: site.sourceLanguage,
    target_languages: site.targetLanguages,
    enabled_adapters: site.enabledAdapters,
    enabled_engines: site.enabledEngines,
    qa_mode: site.qaMode,
    review_mode: site.reviewMode,
  };
}

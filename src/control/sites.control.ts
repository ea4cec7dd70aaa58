/** Sites in the control plane, and the settings object handed to a site's Durable Object. */
import { eq, sql } from "drizzle-orm";
import type { SiteCreate, SitePatch } from "../api/admin.schemas";
import type { EngineName } from "../engines/registry";
import { notFound } from "../errors";
import { ADAPTERS, type Adapter, type Formality, type QaMode, type ReviewMode } from "../limits";
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
  /** Copies its memory to the organization's and reads exact matches from there (src/memory/). */
  shareMemory: boolean;
  /**
   * `sites.settings_version`: bumped by every change, so the site object can tell newer
   * settings from older ones (an isolate's cached copy) and never goes back.
   */
  version: number;
  /** The operator's reason while the site is suspended (keys refused, jobs stopped); null or absent otherwise. */
  suspended?: string | null;
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
    shareMemory: row.shareMemory,
    version: row.settingsVersion,
    suspended: row.suspendedReason ?? null,
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

/**
 * The insert of a new site with its defaults (every adapter, the targets' engines, qa_mode `editors`, review_mode `draft`,
 * `share_memory` on: docs/decisions.md "How sharing works"); answers the row.
 */
export function insertSiteStatement(db: ControlDb, organizationId: number, input: SiteCreate) {
  const targets = input.target_languages as TargetLanguageSetting[];
  return db
    .insert(sites)
    .values({
      organizationId,
      name: input.name,
      sourceLanguage: input.source_language,
      targetLanguages: targets,
      enabledAdapters: input.enabled_adapters ?? [...ADAPTERS],
      enabledEngines: input.enabled_engines ?? defaultEngines(targets),
      qaMode: input.qa_mode ?? "editors",
      reviewMode: input.review_mode ?? "draft",
      // New sites share (the column's default, false, is for the sites that existed before the setting).
      shareMemory: input.share_memory ?? true,
    })
    .returning();
}

/** The patch's fields whose values differ from the current settings (snake_case, as in the API). */
export function changedFields(current: SiteSettings, patch: SitePatch): (keyof SitePatch)[] {
  const before: Record<keyof SitePatch, unknown> = {
    name: current.name,
    source_language: current.sourceLanguage,
    target_languages: current.targetLanguages,
    enabled_adapters: current.enabledAdapters,
    enabled_engines: current.enabledEngines,
    qa_mode: current.qaMode,
    review_mode: current.reviewMode,
    share_memory: current.shareMemory,
  };
  return (Object.keys(before) as (keyof SitePatch)[]).filter((field) => patch[field] !== undefined && JSON.stringify(patch[field]) !== JSON.stringify(before[field]));
}

/** The update statement of a patch; it bumps `settings_version` in the same statement (atomic under concurrent patches). */
export function patchStatement(db: ControlDb, siteId: number, patch: SitePatch) {
  const values: Partial<typeof sites.$inferInsert> = { updatedAt: new Date().toISOString() };
  if (patch.name !== undefined) values.name = patch.name;
  if (patch.source_language !== undefined) values.sourceLanguage = patch.source_language;
  if (patch.target_languages !== undefined) values.targetLanguages = patch.target_languages as TargetLanguageSetting[];
  if (patch.enabled_adapters !== undefined) values.enabledAdapters = patch.enabled_adapters;
  if (patch.enabled_engines !== undefined) values.enabledEngines = patch.enabled_engines;
  if (patch.qa_mode !== undefined) values.qaMode = patch.qa_mode;
  if (patch.review_mode !== undefined) values.reviewMode = patch.review_mode;
  if (patch.share_memory !== undefined) values.shareMemory = patch.share_memory;
  return db
    .update(sites)
    .set({ ...values, settingsVersion: sql`${sites.settingsVersion} + 1` })
    .where(eq(sites.id, siteId))
    .returning();
}

export { toSettings as siteSettingsOf };

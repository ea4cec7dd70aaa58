/**
 * `usage.threshold`: after billed work the consumer looks at the month's usage (the same
 * figures as GET /v1/usage: the site on `pro`, the organization otherwise) and announces 80 %
 * and 100 % of the included volume, each once per month and site (a mark in D1).
 */
import type { UsageThreshold } from "../api/webhook.schemas";
import { usageOut } from "../billing/metering";
import type { ControlDb } from "../control/db";
import { getSite } from "../control/sites.control";
import { markOnce } from "../control/webhooks.control";

export const THRESHOLDS = [80, 100] as const;

/** The thresholds crossed and not announced yet this month (marking them announced). */
export async function newThresholds(db: ControlDb, siteId: number, nowMs: number): Promise<UsageThreshold[]> {
  const site = await getSite(db, siteId);
  if (!site) return [];
  const usage = await usageOut(db, site, new Date(nowMs));
  const included = usage.included_characters;
  if (!included) return [];
  const month = usage.month_start.slice(0, 7);
  const crossed: UsageThreshold[] = [];
  for (const percent of THRESHOLDS) {
    if (usage.used_characters * 100 < included * percent) continue;
    if (await markOnce(db, siteId, `usage.threshold:${month}:${percent}`, nowMs))
      crossed.push({ month, used_characters: usage.used_characters, included_characters: included, percent });
  }
  return crossed;
}

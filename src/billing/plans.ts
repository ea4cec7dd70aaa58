/** Plans: what each sells (sites, included characters, overage); docs/decisions.md "Billing". */
import type { Plan } from "../limits";

export interface PlanRules {
  /** Most sites covered; null for unlimited. `pro` licenses each listed site separately. */
  maxSites: number | null;
  /** Usage counted per site (pro) or pooled over the organization's covered sites. */
  perSite: boolean;
  /** Included characters per month (per site for pro); null when not metered. */
  included: number | null;
  overageCentsPerMillion: number;
}

export const PLANS: Record<Plan, PlanRules> = {
  pro: { maxSites: null, perSite: true, included: 250_000, overageCentsPerMillion: 2_000 },
  agency: { maxSites: 10, perSite: false, included: 2_000_000, overageCentsPerMillion: 1_500 },
  growth: { maxSites: 25, perSite: false, included: 5_000_000, overageCentsPerMillion: 1_200 },
  scale: { maxSites: null, perSite: false, included: null, overageCentsPerMillion: 0 },
};

export const CURRENCY = "usd";

/** The grace after a Stripe payment fails (`past_due`) before job requests answer `subscription_inactive`. */
export const PAST_DUE_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/** Calendar month in UTC containing `at`: [start, end). */
export function monthOf(at: Date) {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end, key: start.toISOString().slice(0, 10) };
}

// The contract's four adapter names, and a guard that turns a site's `enabled_adapters` (typed
// as strings, since a site's list is free to grow) into values a UnitSnapshotIn takes, no cast.
import type { components } from "./schema.js";

/** The adapter a unit is pushed with: one of the contract's four fixed names. */
export type Adapter = components["schemas"]["UnitSnapshotIn"]["adapter"];

/** The four adapter names (`UnitSnapshotIn.adapter`), in the contract's order. */
export const ADAPTERS = ["wordpress", "drupal", "wagtail", "strapi"] as const satisfies readonly Adapter[];

// Fails to compile if the service's list and ADAPTERS ever differ.
const _everyAdapter: Record<Adapter, true> = { wordpress: true, drupal: true, wagtail: true, strapi: true };
void _everyAdapter;

/** Whether `value` is one of the four adapter names: `site.enabled_adapters.find(isAdapter)` is an `Adapter | undefined`. */
export function isAdapter(value: unknown): value is Adapter {
  return typeof value === "string" && (ADAPTERS as readonly string[]).includes(value);
}

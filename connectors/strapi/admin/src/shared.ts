// What the page and the panel share: the plugin's id and permissions, the words for a locale's
// state and the badge each one wears.
export const PLUGIN_ID = "transync";
export const READ = "plugin::transync.read";
export const JOBS = "plugin::transync.jobs";

export type LocaleState = "up_to_date" | "translating" | "in_review" | "stale" | "conflict" | "not_sent";
type Variant = "success" | "primary" | "danger" | "warning" | "neutral" | "secondary" | "alternative";

export const STATES: Record<LocaleState, { label: string; variant: Variant; hint: string }> = {
  up_to_date: { label: "Up to date", variant: "success", hint: "every text is translated and approved" },
  translating: { label: "Translating", variant: "secondary", hint: "changes are on their way to the service, or a job is translating them" },
  in_review: { label: "In review", variant: "primary", hint: "translations are in the draft, waiting for an editor to publish them" },
  stale: { label: "Stale", variant: "warning", hint: "some texts changed since they were translated: translate now, or wait for the next job" },
  conflict: { label: "Conflict", variant: "danger", hint: "a new translation met an editor's change: choose below" },
  not_sent: { label: "Not sent", variant: "neutral", hint: "the service has not seen this entry yet (publish the source locale)" },
};

export const CONNECTION: Record<string, { label: string; variant: Variant }> = {
  ok: { label: "Connected", variant: "success" },
  wrong_key: { label: "Wrong API key", variant: "danger" },
  unreachable: { label: "Service unreachable", variant: "danger" },
  refused: { label: "Refused by the service", variant: "danger" },
  error: { label: "Error", variant: "danger" },
  unknown: { label: "Not connected yet", variant: "neutral" },
};

/** The message of a failed admin fetch (the route's `error` or Strapi's error envelope). */
export function errorText(error: unknown): string {
  const e = error as { response?: { data?: { error?: string | { message?: string } } }; message?: string };
  const body = e?.response?.data?.error;
  if (typeof body === "string") return body;
  return body?.message ?? e?.message ?? String(error);
}

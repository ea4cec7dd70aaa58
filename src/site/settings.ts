/** The site's settings as the object last saw them, the latest handshake, and what is writable. */
import type { SiteSettings } from "../control/sites.control";
import type { Capability } from "../limits";
import type { Store } from "./store";

export interface Handshake {
  connectorVersion: string;
  sourceLanguage: string;
  /** Languages configured on the website, lowercased; null when the connector did not say. */
  languages: string[] | null;
  adapters: string[];
  capabilities: Capability[];
  at: string;
  /** The languages as the connector sent them (absent in handshakes stored before it was kept). */
  declaredLanguages?: string[] | null;
  /** The warnings the handshake answered with. */
  warnings?: string[];
}

export const lower = (code: string) => code.toLowerCase();

/** The site's target language codes, in its own spelling and order. */
export const siteTargets = (settings: SiteSettings) => settings.targetLanguages.map((t) => t.code);

/** Maps a code in any case to the site's own spelling of that target language, if it is one. */
export function targetCodeMap(settings: SiteSettings): Map<string, string> {
  return new Map(settings.targetLanguages.map((t) => [lower(t.code), t.code]));
}

export function getHandshake(store: Store): Handshake | undefined {
  return store.getMeta<Handshake>("handshake");
}

/**
 * A target language is writable only if it is writable in the site's settings and listed in
 * the latest handshake's `languages` (spec, TargetLanguage). Before any handshake, or when
 * the handshake did not list languages, nothing is listed and so nothing is writable.
 */
export function writableLanguages(settings: SiteSettings, handshake: Handshake | undefined): string[] {
  const listed = new Set(handshake?.languages ?? []);
  return settings.targetLanguages.filter((t) => t.writable && listed.has(lower(t.code))).map((t) => t.code);
}

export function capabilities(store: Store): Set<Capability> {
  return new Set(getHandshake(store)?.capabilities ?? []);
}

/** The target languages a unit is translated into: the site's, narrowed by the unit's `writable_languages`. */
export function unitTargets(siteTargets: readonly string[], unitWritable: string | null): string[] {
  if (!unitWritable) return [...siteTargets];
  const allowed = new Set((JSON.parse(unitWritable) as string[]).map(lower));
  return siteTargets.filter((code) => allowed.has(lower(code)));
}

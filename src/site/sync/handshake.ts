/** POST /v1/handshake and the Site body, whose `writable` flags depend on the latest handshake. */
import type { z } from "@hono/zod-openapi";
import type { HandshakeIn } from "../../api/schemas";
import type { SiteSettings } from "../../control/sites.control";
import { CAPABILITIES, type Capability } from "../../limits";
import { getHandshake, type Handshake, lower, writableLanguages } from "../settings";
import type { Store } from "../store";

export function siteOut(settings: SiteSettings, handshake: Handshake | undefined) {
  const writable = new Set(writableLanguages(settings, handshake));
  return {
    id: settings.id,
    name: settings.name,
    organization: settings.organization,
    source_language: settings.sourceLanguage,
    target_languages: settings.targetLanguages.map((t) => ({
      code: t.code,
      formality: t.formality,
      engine: t.engine,
      writable: writable.has(t.code),
    })),
    enabled_adapters: settings.enabledAdapters,
    enabled_engines: settings.enabledEngines,
  };
}

export function getSiteInfo(store: Store, settings: SiteSettings) {
  return siteOut(settings, getHandshake(store));
}

export function handshake(store: Store, settings: SiteSettings, input: z.infer<typeof HandshakeIn>) {
  const known = new Set<string>(CAPABILITIES);
  const capabilities = [...new Set((input.capabilities ?? []).filter((c) => known.has(c)))] as Capability[];
  const state: Handshake = {
    connectorVersion: input.connector_version,
    sourceLanguage: input.source_language,
    languages: input.languages ? [...new Set(input.languages.map(lower))] : null,
    adapters: input.adapters ?? [],
    capabilities,
    at: store.now(),
    declaredLanguages: input.languages ? [...new Set(input.languages)] : null,
  };

  const warnings: string[] = [];
  if (lower(input.source_language) !== lower(settings.sourceLanguage))
    warnings.push(`The website's source language is ${input.source_language}, but the site is set up to translate from ${settings.sourceLanguage}.`);
  const listed = new Set(state.languages ?? []);
  const lacking = settings.targetLanguages.filter((t) => !listed.has(lower(t.code))).map((t) => t.code);
  if (lacking.length)
    warnings.push(
      state.languages === null
        ? `The handshake did not list the website's languages, so no target language is writable: send "languages".`
        : `The website lacks target language${lacking.length === 1 ? "" : "s"} ${lacking.join(", ")}; ${lacking.length === 1 ? "it is" : "they are"} not writable until the website has ${lacking.length === 1 ? "it" : "them"}.`,
    );
  const targets = new Set([settings.sourceLanguage, input.source_language, ...settings.targetLanguages.map((t) => t.code)].map(lower));
  const extra = (input.languages ?? []).filter((l, i, all) => !targets.has(lower(l)) && all.findIndex((m) => lower(m) === lower(l)) === i);
  if (extra.length)
    warnings.push(
      `The website has language${extra.length === 1 ? "" : "s"} ${extra.join(", ")} that ${extra.length === 1 ? "is not a target language" : "are not target languages"} of this site; ${extra.length === 1 ? "it is" : "they are"} not translated until the site has ${extra.length === 1 ? "it" : "them"}.`,
    );
  const enabled = new Set<string>(settings.enabledAdapters);
  const disabled = [...new Set(state.adapters)].filter((a) => !enabled.has(a));
  if (disabled.length)
    warnings.push(
      `Adapter${disabled.length === 1 ? "" : "s"} ${disabled.join(", ")} ${disabled.length === 1 ? "is" : "are"} not enabled for this site; units from ${disabled.length === 1 ? "it" : "them"} will be refused.`,
    );
  store.setMeta("handshake", { ...state, warnings });

  return {
    ...siteOut(settings, state),
    review_mode: settings.reviewMode,
    qa_mode: settings.qaMode,
    capabilities,
    warnings,
  };
}

/** The latest handshake for the admin API and the dashboard: null before the first one. */
export function connectorInfo(store: Store) {
  const h = getHandshake(store);
  if (!h) return null;
  return {
    at: h.at,
    connector_version: h.connectorVersion,
    languages: h.declaredLanguages !== undefined ? h.declaredLanguages : h.languages,
    adapters: h.adapters,
    capabilities: h.capabilities,
    warnings: h.warnings ?? [],
  };
}

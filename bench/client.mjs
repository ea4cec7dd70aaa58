/**
 * HTTP through the Worker (Miniflare's dispatchFetch) with the generated API client (client/),
 * and provisioning through the admin API.
 */
import { createTransyncClient } from "@transync/client";
import { ADMIN_TOKEN, MiniflareRequest } from "./runtime.mjs";

const BASE = "https://api.bench";
const clients = new WeakMap();

/** The generated client for one Miniflare instance and key, sending through dispatchFetch. */
function clientFor(mf, key) {
  let byKey = clients.get(mf);
  if (!byKey) clients.set(mf, (byKey = new Map()));
  let api = byKey.get(key ?? "");
  if (!api) byKey.set(key ?? "", (api = createTransyncClient({ baseUrl: BASE, key, Request: MiniflareRequest, fetch: (request) => mf.dispatchFetch(request) })));
  return api;
}

/** A body given as a ready JSON string is sent as it is (the push scenarios build theirs once). */
const asJson = (body) => (typeof body === "string" ? body : JSON.stringify(body));

/** Calls the Worker; `body` may be an object (sent as JSON) or a ready string. Throws unless 2xx. */
export async function call(mf, method, path, { key, body } = {}) {
  const { data, error, response } = await clientFor(mf, key).request(method, path, { body, bodySerializer: asJson });
  if (response.status < 200 || response.status > 299) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(error ?? null).slice(0, 500)}`);
  return data ?? null;
}

let sites = 0;

/**
 * An organization on the scale plan with one site (pseudo engine in every target language),
 * an API key, and a handshake listing the languages (so they are writable).
 */
export async function createSite(mf, { languages, capabilities = [] }) {
  const admin = { key: ADMIN_TOKEN };
  const n = ++sites;
  const org = await call(mf, "POST", "/admin/v1/organizations", { ...admin, body: { name: `Bench org ${n}` } });
  const site = await call(mf, "POST", "/admin/v1/sites", {
    ...admin,
    body: { organization_id: org.id, name: `Bench site ${n}`, source_language: "en", target_languages: languages.map((code) => ({ code, engine: "pseudo" })) },
  });
  await call(mf, "PUT", `/admin/v1/organizations/${org.id}/subscription`, { ...admin, body: { plan: "scale", status: "active", site_ids: [site.id] } });
  const { key } = await call(mf, "POST", `/admin/v1/sites/${site.id}/keys`, { ...admin, body: { name: "bench" } });
  await handshake(mf, key, languages, capabilities);
  return { id: site.id, key, languages };
}

export function handshake(mf, key, languages, capabilities = []) {
  return call(mf, "POST", "/v1/handshake", { key, body: { connector_version: "bench/1.0", source_language: "en", languages, capabilities } });
}

/** A keyset cursor as the API encodes it (base64url of the JSON position). */
export const cursor = (position) => Buffer.from(JSON.stringify(position)).toString("base64url");

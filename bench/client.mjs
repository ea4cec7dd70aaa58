/** HTTP through the Worker (Miniflare's dispatchFetch) and provisioning through the admin API. */
import { ADMIN_TOKEN } from "./runtime.mjs";

const BASE = "https://api.bench";

/** Calls the Worker; `body` may be an object (sent as JSON) or a ready string. Throws unless 2xx. */
export async function call(mf, method, path, { key, body } = {}) {
  const headers = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await mf.dispatchFetch(BASE + path, { method, headers, body: typeof body === "string" || body === undefined ? body : JSON.stringify(body) });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
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

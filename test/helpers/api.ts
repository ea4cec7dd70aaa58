/** HTTP-level helpers: provisioning through the admin API and calls through the Worker's fetch. */
import { exports } from "cloudflare:workers";
import { undocumented } from "./openapi";

/** The test pool's ADMIN_TOKEN (vitest.config.ts): at least 32 characters, or the admin API is disabled. */
export const ADMIN = "test-admin-token-0123456789abcdefghij";
const BASE = "https://api.test";
let ipCounter = 0;
/** Per test file, so files running at the same time (sharing the pool's limiters) use different addresses. */
const [ip1, ip2] = crypto.getRandomValues(new Uint16Array(2));
const ipPrefix = `2001:db8:${ip1.toString(16)}:${ip2.toString(16)}`;

/**
 * A client address for each request unless a test gives one (`cf-connecting-ip`): as in
 * production, where callers come from many addresses, so tests about other things do not
 * share one failed-authentication budget. The rate-limit tests set addresses themselves.
 */
function nextIp() {
  ipCounter++;
  return `${ipPrefix}::${ipCounter.toString(16)}`;
}

export interface Call {
  status: number;
  body: any;
  headers: Headers;
}

export async function request(method: string, path: string, opts: { key?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string> } = {}): Promise<Call> {
  const headers: Record<string, string> = { "cf-connecting-ip": nextIp(), ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  let body: BodyInit | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  return answered(method, BASE + path, await exports.default.fetch(new Request(BASE + path, { method, headers, body })));
}

/** An answer as a Call, its body parsed (text kept when not JSON); it must be one the OpenAPI document describes (helpers/openapi.ts). */
export async function answered(method: string, url: string, res: Response): Promise<Call> {
  const text = await res.text();
  const problem = await undocumented(method, url, { status: res.status, headers: res.headers, text });
  if (problem) throw new Error(`Response outside the OpenAPI document: ${problem}`);
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export const admin = (method: string, path: string, body?: unknown) => request(method, path, { key: ADMIN, body });

export interface TestSite {
  orgId: number;
  siteId: number;
  key: string;
  keyId: number;
}

export interface SiteOptions {
  orgId?: number;
  name?: string;
  source_language?: string;
  target_languages?: { code: string; engine?: string; formality?: string; writable?: boolean }[];
  enabled_adapters?: string[];
  qa_mode?: "editors" | "separate";
  /** The site's share_memory (the API's default, true, when absent). */
  share_memory?: boolean;
  plan?: "pro" | "agency" | "growth" | "scale" | null;
  included_characters?: number | null;
  /** Sends a handshake listing every target language (so they are writable). Default true. */
  handshake?: boolean | { capabilities?: string[]; languages?: string[] };
}

let counter = 0;

/** An organization (unless given), a subscription (scale unless `plan: null`), a site and a key. */
export async function createSite(opts: SiteOptions = {}): Promise<TestSite> {
  let orgId = opts.orgId;
  if (!orgId) {
    const org = await admin("POST", "/admin/v1/organizations", { name: `Org ${++counter}` });
    if (org.status !== 201) throw new Error(`org: ${org.status} ${JSON.stringify(org.body)}`);
    orgId = org.body.id as number;
  }
  const targets = (opts.target_languages ?? [{ code: "de" }, { code: "fr" }]).map((t) => ({ engine: "pseudo", ...t }));
  const site = await admin("POST", "/admin/v1/sites", {
    organization_id: orgId,
    name: opts.name ?? `Site ${++counter}`,
    source_language: opts.source_language ?? "en",
    target_languages: targets,
    ...(opts.enabled_adapters ? { enabled_adapters: opts.enabled_adapters } : {}),
    ...(opts.qa_mode ? { qa_mode: opts.qa_mode } : {}),
    ...(opts.share_memory !== undefined ? { share_memory: opts.share_memory } : {}),
  });
  if (site.status !== 201) throw new Error(`site: ${site.status} ${JSON.stringify(site.body)}`);
  const siteId = site.body.id as number;
  if (opts.plan !== null && !opts.orgId) {
    const sub = await admin("PUT", `/admin/v1/organizations/${orgId}/subscription`, {
      plan: opts.plan ?? "scale",
      status: "active",
      site_ids: [siteId],
      ...(opts.included_characters !== undefined ? { included_characters: opts.included_characters } : {}),
    });
    if (sub.status !== 200) throw new Error(`subscription: ${sub.status} ${JSON.stringify(sub.body)}`);
  }
  const key = await admin("POST", `/admin/v1/sites/${siteId}/keys`, { name: "test" });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${JSON.stringify(key.body)}`);
  const out = { orgId, siteId, key: key.body.key as string, keyId: key.body.id as number };
  if (opts.handshake !== false) {
    const hs = typeof opts.handshake === "object" ? opts.handshake : {};
    const res = await request("POST", "/v1/handshake", {
      key: out.key,
      body: {
        connector_version: "test/1.0",
        source_language: opts.source_language ?? "en",
        languages: hs.languages ?? targets.map((t) => t.code),
        capabilities: hs.capabilities ?? [],
      },
    });
    if (res.status !== 200) throw new Error(`handshake: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return out;
}

/** A client bound to one key. */
export function client(key: string) {
  return {
    get: (path: string) => request("GET", path, { key }),
    post: (path: string, body?: unknown) => request("POST", path, { key, body: body ?? {} }),
    put: (path: string, body: unknown) => request("PUT", path, { key, body }),
    del: (path: string) => request("DELETE", path, { key }),
  };
}

export function unit(externalKey: string, segments: { key: string; text: string; [k: string]: unknown }[], extra: Record<string, unknown> = {}) {
  return { external_key: externalKey, adapter: "wordpress", label: externalKey, path: `/${externalKey}`, segments, ...extra };
}

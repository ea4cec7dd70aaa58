// OAuth access tokens for Cloud Translation from a service account: an RS256-signed JWT
// (crypto.subtle) exchanged at Google's token endpoint, cached until shortly before expiry.

import { callJson } from "./http";
import { EngineError, type Sleep } from "./types";

export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const GOOGLE_TRANSLATE_SCOPE = "https://www.googleapis.com/auth/cloud-translation";
/** Lifetime asked for (Google's maximum). */
const TOKEN_LIFETIME_S = 3600;
/** A token is replaced this long before it expires. */
const REFRESH_MARGIN_MS = 5 * 60_000;

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
}

/** Parses GOOGLE_SERVICE_ACCOUNT; undefined when it is not a service-account key file. */
export function parseServiceAccount(json: string): ServiceAccount | undefined {
  try {
    const data = JSON.parse(json) as Partial<ServiceAccount> | null;
    if (typeof data?.client_email === "string" && typeof data.private_key === "string") {
      return data as ServiceAccount;
    }
  } catch {
    // fall through
  }
  return undefined;
}

interface CachedToken {
  token: string;
  /** Epoch ms after which the token is no longer used. */
  refreshAt: number;
}

const tokens = new Map<string, Promise<CachedToken>>();
const keys = new Map<string, Promise<CryptoKey>>();

/** Forgets cached tokens and keys (tests). */
export function clearGoogleTokenCache(): void {
  tokens.clear();
  keys.clear();
}

/** An access token for the service account, from the cache while it is fresh. */
export async function serviceAccountToken(account: ServiceAccount, now: () => number = Date.now, sleep?: Sleep): Promise<string> {
  const cacheKey = `${account.client_email}|${account.private_key_id ?? ""}|${account.private_key.length}`;
  const cached = tokens.get(cacheKey);
  if (cached) {
    const entry = await cached.catch(() => undefined);
    if (entry && entry.refreshAt > now()) return entry.token;
    if (tokens.get(cacheKey) === cached) tokens.delete(cacheKey);
  }
  let pending = tokens.get(cacheKey);
  if (!pending) {
    pending = fetchToken(account, now, sleep);
    tokens.set(cacheKey, pending);
    pending.catch(() => {
      if (tokens.get(cacheKey) === pending) tokens.delete(cacheKey);
    });
  }
  return (await pending).token;
}

async function fetchToken(account: ServiceAccount, now: () => number, sleep: Sleep | undefined): Promise<CachedToken> {
  const issuedAt = Math.floor(now() / 1000);
  const assertion = await signJwt(
    { alg: "RS256", typ: "JWT", ...(account.private_key_id ? { kid: account.private_key_id } : {}) },
    {
      iss: account.client_email,
      scope: GOOGLE_TRANSLATE_SCOPE,
      aud: GOOGLE_TOKEN_URL,
      iat: issuedAt,
      exp: issuedAt + TOKEN_LIFETIME_S,
    },
    await signingKey(account.private_key),
  );
  const answer = (await callJson({
    engine: "Google OAuth",
    url: GOOGLE_TOKEN_URL,
    init: {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
    },
    secrets: [assertion, account.private_key],
    classify: (status, body) => {
      // invalid_grant / invalid_client: the key is revoked, wrong or the clock is off.
      if (status === 400 || status === 401) {
        const code = /"error"\s*:\s*"([a-z_]+)"/.exec(body)?.[1];
        return new EngineError("rejected", `Google refused the service-account credentials (HTTP ${status}${code ? `: ${code}` : ""}); check GOOGLE_SERVICE_ACCOUNT`);
      }
      return undefined;
    },
    sleep,
  })) as { access_token?: unknown; expires_in?: unknown };
  if (typeof answer.access_token !== "string" || !answer.access_token) {
    throw new EngineError("bad_response", "Google's token endpoint answered without an access token");
  }
  const lifetimeMs = (typeof answer.expires_in === "number" ? answer.expires_in : TOKEN_LIFETIME_S) * 1000;
  const margin = Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2);
  return { token: answer.access_token, refreshAt: now() + lifetimeMs - margin };
}

async function signingKey(pem: string): Promise<CryptoKey> {
  let pending = keys.get(pem);
  if (!pending) {
    pending = importPkcs8(pem);
    keys.set(pem, pending);
    pending.catch(() => keys.delete(pem));
  }
  return pending;
}

async function importPkcs8(pem: string): Promise<CryptoKey> {
  try {
    const base64 = pem
      .replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "")
      .replace(/\\n/g, "")
      .replace(/\s+/g, "");
    const der = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return await crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  } catch {
    // Never quote the key.
    throw new EngineError("not_configured", "Google Cloud Translation is not configured: the private_key in GOOGLE_SERVICE_ACCOUNT is not a PKCS#8 PEM key.");
  }
}

async function signJwt(header: object, claims: object, key: CryptoKey): Promise<string> {
  const encoder = new TextEncoder();
  const unsigned = `${base64url(encoder.encode(JSON.stringify(header)))}.${base64url(encoder.encode(JSON.stringify(claims)))}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, encoder.encode(unsigned));
  return `${unsigned}.${base64url(new Uint8Array(signature))}`;
}

export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Site API keys: `tsk_`, 32 random base62 characters (190 bits) and a 6-character base62
 * CRC32 checksum of what precedes it (as GitHub's tokens), 42 characters in all. A key whose
 * checksum does not match (mistyped, truncated or made up) is refused without hashing it or
 * asking D1. Only the SHA-256 hash is stored; the key is shown once, at creation. Look-ups are cached per
 * isolate for KEY_CACHE_MS so a revoked key stops working within that time everywhere
 * (at once in the isolate that revoked it), and `last_used_at` is written at most once a
 * minute per key and isolate, after the response.
 */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { sha256Hex } from "../digest";
import { log, redactError } from "../obs/log";
import type { ControlDb } from "./db";
import { apiKeys } from "./schema";
import { getSite, type SiteSettings } from "./sites.control";

export const KEY_PREFIX = "tsk_";
const RANDOM_CHARS = 32;
const CHECKSUM_CHARS = 6;
const KEY_PATTERN = /^tsk_[0-9A-Za-z]{38}$/;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** How long a key look-up is trusted; revocation takes effect within this time. */
export const KEY_CACHE_MS = 30_000;
/** `last_used_at` precision. */
const LAST_USED_MS = 60_000;

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (IEEE) of an ASCII string. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The checksum part of a key: CRC-32 of the prefix and random part, in base62, left-padded to 6. */
export function keyChecksum(body: string): string {
  let n = crc32(body);
  let out = "";
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** Uniform base62 characters: bytes of 248 and above are drawn again (248 = 4 × 62). */
function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

export function generateKey(): string {
  const body = KEY_PREFIX + randomBase62(RANDOM_CHARS);
  return body + keyChecksum(body);
}

/** Only a key's hash is stored and looked up. */
export const hashKey = sha256Hex;

/** The key's shape and checksum: decided without I/O. */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const cut = key.length - CHECKSUM_CHARS;
  return keyChecksum(key.slice(0, cut)) === key.slice(cut);
}

interface CachedKey {
  keyId: number;
  site: SiteSettings;
  fetchedAt: number;
  lastUsedAt: number;
}

const cache = new Map<string, CachedKey | null>();
const negativeUntil = new Map<string, number>();

/** Drops cached look-ups of a site (after its settings or keys change). */
export function forgetSite(siteId: number) {
  for (const [hash, entry] of cache) if (entry?.site.id === siteId) cache.delete(hash);
}

export interface Authenticated {
  keyId: number;
  /** What the per-key rate limit counts by: a prefix of the key's hash (unique, and not the key). */
  limitKey: string;
  site: SiteSettings;
  /** A D1 write to run after the response (last_used_at), if one is due. */
  touch?: Promise<unknown>;
}

/**
 * The key's site, or null when the key is malformed, has a wrong checksum, is unknown or
 * revoked. A well-formed key is looked up in D1 when this isolate has not verified it within
 * KEY_CACHE_MS (and did not find it unknown within the last 5 s), whoever sends it.
 */
export async function authenticate(db: ControlDb, key: string, now = Date.now()): Promise<Authenticated | null> {
  if (!isWellFormedKey(key)) return null;
  const hash = await hashKey(key);
  let entry = cache.get(hash);
  if (entry && now - entry.fetchedAt > KEY_CACHE_MS) entry = undefined;
  if (entry === undefined) {
    if ((negativeUntil.get(hash) ?? 0) > now) return null;
    const row = await db
      .select({ id: apiKeys.id, siteId: apiKeys.siteId, lastUsedAt: apiKeys.lastUsedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
      .get();
    const site = row && (await getSite(db, row.siteId));
    if (!row || !site) {
      // Unknown keys are remembered briefly so a flood of bad keys does not reach D1 each time.
      negativeUntil.set(hash, now + 5_000);
      if (negativeUntil.size > 10_000) negativeUntil.clear();
      return null;
    }
    entry = { keyId: row.id, site, fetchedAt: now, lastUsedAt: row.lastUsedAt ? Date.parse(row.lastUsedAt) : 0 };
    cache.set(hash, entry);
    if (cache.size > 10_000) cache.clear();
  }
  if (!entry) return null;
  let touch: Promise<unknown> | undefined;
  if (now - entry.lastUsedAt >= LAST_USED_MS) {
    entry.lastUsedAt = now;
    touch = db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(now).toISOString() })
      .where(eq(apiKeys.id, entry.keyId))
      .run()
      .catch((err) => log("warn", "d1.fault", { code: "key.last_used_at", error: redactError(err) }));
  }
  return { keyId: entry.keyId, limitKey: `key:${hash.slice(0, 32)}`, site: entry.site, touch };
}

/**
 * A new key and the statement that stores it (its hash, never the key): the caller runs it in
 * one batch with the audit row (src/ops/keys.ops.ts). `keyIdOf` is a SQL expression for the new
 * row's id, usable in later statements of the same batch.
 */
export async function newKey(db: ControlDb, siteId: number, name: string, now = new Date()) {
  const key = generateKey();
  const hash = await hashKey(key);
  const createdAt = now.toISOString();
  return {
    key,
    createdAt,
    insert: db
      .insert(apiKeys)
      .values({ siteId, name, prefix: key.slice(0, KEY_PREFIX.length + 6), hash, createdAt })
      .returning({ id: apiKeys.id }),
    keyIdOf: sql`(SELECT ${apiKeys.id} FROM ${apiKeys} WHERE ${apiKeys.hash} = ${hash})`,
  };
}

export async function listKeys(db: ControlDb, siteId: number) {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.siteId, siteId)).orderBy(desc(apiKeys.id));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    created_at: r.createdAt,
    last_used_at: r.lastUsedAt,
    revoked_at: r.revokedAt,
  }));
}

/** The key's id if it is one of the site's (revoked or not). */
export async function findKey(db: ControlDb, siteId: number, keyId: number) {
  return db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.siteId, siteId)))
    .get();
}

/** Marks a key revoked (a key revoked before keeps its first time). */
export function revokeStatement(db: ControlDb, keyId: number, now = new Date()) {
  return db
    .update(apiKeys)
    .set({ revokedAt: now.toISOString() })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
}

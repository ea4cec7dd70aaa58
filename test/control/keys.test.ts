// API keys at the domain depth: the format and checksum, the hash-only row, the look-up and
// its cache, revocation — and one audit row in the same batch as the key (src/ops/keys.ops.ts).
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { authenticate, hashKey, isWellFormedKey, KEY_CACHE_MS } from "../../src/control/keys.control";
import { apiKeys, auditLog } from "../../src/control/schema";
import { OPERATOR } from "../../src/ops/actor";
import { createKey, listKeys, revokeKey } from "../../src/ops/keys.ops";
import { createSite } from "../helpers/api";

const db = controlDb(env.DB);

describe("keys", () => {
  it("are created shown once, stored as a hash, and audited with their id in the same batch", async () => {
    const site = await createSite();
    const ref = { id: site.siteId, organizationId: site.orgId };
    const created = await createKey(env, OPERATOR, ref, { name: "ci" });
    expect(isWellFormedKey(created.key)).toBe(true);
    const row = await db.select().from(apiKeys).where(eq(apiKeys.id, created.id)).get();
    expect(row?.hash).toBe(await hashKey(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);
    expect((await listKeys(env, ref)).map((k) => k.id)).toContain(created.id);
    const audit = await db.select().from(auditLog).where(eq(auditLog.action, "key.create"));
    expect(audit.find((a) => (a.detail as { key_id?: number } | null)?.key_id === created.id)).toMatchObject({
      actor: "admin",
      target: `site:${site.siteId}`,
      detail: { key_id: created.id, name: "ci" },
    });
  });

  it("authenticate: a live key finds its site; a revoked one stops at once in this isolate", async () => {
    const site = await createSite();
    const ref = { id: site.siteId, organizationId: site.orgId };
    const { key, id } = await createKey(env, OPERATOR, ref, { name: "deploy" });
    const now = Date.now();
    expect((await authenticate(db, key, now))?.site.id).toBe(site.siteId);
    await revokeKey(env, OPERATOR, ref, id);
    expect(await authenticate(db, key, now + 1)).toBeNull();
    expect(await authenticate(db, key, now + KEY_CACHE_MS + 1)).toBeNull();
    await expect(revokeKey(env, OPERATOR, { ...ref, id: ref.id + 1_000_000 }, id)).rejects.toMatchObject({ status: 404 });
  });

  it("a malformed or mistyped key is refused without a look-up", async () => {
    expect(await authenticate(db, "tsk_short")).toBeNull();
    const site = await createSite();
    const { key } = await createKey(env, OPERATOR, { id: site.siteId, organizationId: site.orgId }, { name: "typo" });
    const typo = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    expect(isWellFormedKey(typo)).toBe(false);
    expect(await authenticate(db, typo)).toBeNull();
  });
});

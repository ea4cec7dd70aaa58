/**
 * A site's API keys, as both doors handle them (the admin API's `/admin/v1/sites/{id}/keys`
 * and the dashboard's Keys page): create (the key is answered this once and never stored),
 * list, revoke. Each change is one D1 batch with its audit row; the isolate's key cache
 * forgets the site at once (other isolates within KEY_CACHE_MS).
 */
import { sql } from "drizzle-orm";
import type { ApiKey, KeyCreate, KeyCreated } from "../api/admin.schemas";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import { findKey, forgetSite, listKeys as keysOf, newKey, revokeStatement } from "../control/keys.control";
import { notFound } from "../errors";
import type { Actor, SiteRef } from "./actor";

export async function createKey(env: Env, actor: Actor, site: SiteRef, input: KeyCreate): Promise<KeyCreated> {
  const db = controlDb(env.DB);
  const created = await newKey(db, site.id, input.name);
  const [[row]] = await db.batch([
    created.insert,
    // The key itself is a secret: only its id and name are recorded.
    auditStatement(db, {
      organizationId: site.organizationId,
      actor,
      action: "key.create",
      target: `site:${site.id}`,
      detail: sql`json_object('key_id', ${created.keyIdOf}, 'name', ${input.name})`,
    }),
  ]);
  return { id: row.id, name: input.name, key: created.key, created_at: created.createdAt };
}

export async function listKeys(env: Env, site: SiteRef): Promise<ApiKey[]> {
  return keysOf(controlDb(env.DB), site.id);
}

/** The key answers 401 from then on; revoking a revoked key again changes nothing but is recorded. */
export async function revokeKey(env: Env, actor: Actor, site: SiteRef, keyId: number): Promise<void> {
  const db = controlDb(env.DB);
  if (!(await findKey(db, site.id, keyId))) throw notFound(`Key ${keyId} of site ${site.id}`);
  await db.batch([
    revokeStatement(db, keyId),
    auditStatement(db, { organizationId: site.organizationId, actor, action: "key.revoke", target: `site:${site.id}`, detail: { key_id: keyId } }),
  ]);
  forgetSite(site.id);
}

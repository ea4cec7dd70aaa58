/**
 * Telling the site objects that their organization's glossary changed. Whoever replaces an
 * organization's glossary in D1 (the admin API, the dashboard's table and CSV import) calls
 * `pushGlossary` afterwards, so each site's status count and QA use the new terms at once.
 */
import { eq } from "drizzle-orm";
import { controlDb } from "./control/db";
import { sites } from "./control/schema";
import type { GlossaryTerm } from "./engines/types";
import type { SiteObject } from "./site/object";

/** Sites are told a few at a time; one that cannot be reached reloads from D1 within GLOSSARY_MAX_AGE_MS. */
const FAN_OUT = 6;

export async function pushGlossary(env: Env, organizationId: number, terms: GlossaryTerm[]) {
  const ids = (await controlDb(env.DB).select({ id: sites.id }).from(sites).where(eq(sites.organizationId, organizationId))).map((s) => s.id);
  for (let i = 0; i < ids.length; i += FAN_OUT) {
    await Promise.all(
      ids.slice(i, i + FAN_OUT).map(async (id) => {
        const stub = env.SITE.getByName(String(id)) as unknown as Pick<SiteObject, "applyGlossary">;
        try {
          await stub.applyGlossary(terms);
        } catch (err) {
          console.error(JSON.stringify({ level: "warn", message: "glossary push failed; the site reloads it later", site_id: id, error: String(err) }));
        }
      }),
    );
  }
}

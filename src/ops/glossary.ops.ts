/**
 * An organization's glossary, shared by its sites: replace (the admin PUT, the dashboard's
 * CSV import), add and remove one term, list and export. Each change is one D1 batch with its
 * audit row; then every site of the organization is handed the whole current glossary, so
 * each site's status count and QA use the new terms at once (a site that cannot be reached
 * reloads from D1 within GLOSSARY_MAX_AGE_MS, src/site/jobs/glossary-copy.ts).
 */
import { eq } from "drizzle-orm";
import type { GlossaryTerm } from "../api/admin.schemas";
import { auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import {
  countTerms,
  deleteTermStatement,
  findTerm,
  glossaryCsv,
  insertTermStatement,
  listGlossary,
  parseGlossaryCsv,
  replaceStatements,
  validateTerms,
} from "../control/glossary.control";
import { sites } from "../control/schema";
import { ApiError, notFound } from "../errors";
import { log, redactError } from "../obs/log";
import { readGlossary } from "../site/jobs/glossary-copy";
import { siteStub } from "../site/stub";
import type { Actor } from "./actor";
import { requireOrganization } from "./organizations.ops";

/** Sites are told a few at a time. */
const FAN_OUT = 6;
/** The most terms a glossary holds (GlossaryIn's bound). */
const MAX_TERMS = 10_000;

/** Hands the organization's whole current glossary to each of its sites. */
async function pushGlossary(env: Env, organizationId: number) {
  const db = controlDb(env.DB);
  const terms = await readGlossary(db, organizationId);
  const ids = (await db.select({ id: sites.id }).from(sites).where(eq(sites.organizationId, organizationId))).map((s) => s.id);
  for (let i = 0; i < ids.length; i += FAN_OUT) {
    await Promise.all(
      ids.slice(i, i + FAN_OUT).map(async (id) => {
        try {
          await siteStub(env, id).applyGlossary(terms);
        } catch (err) {
          log("warn", "glossary.push_failed", { site_id: id, org_id: organizationId, error: redactError(err) });
        }
      }),
    );
  }
}

export async function listTerms(env: Env, organizationId: number) {
  return listGlossary(controlDb(env.DB), organizationId);
}

export async function exportCsv(env: Env, organizationId: number): Promise<string> {
  return glossaryCsv(await listTerms(env, organizationId));
}

/** Replaces the whole glossary; `via` says where the terms came from when not the admin API's body (`csv`). */
export async function replaceGlossary(env: Env, actor: Actor, organizationId: number, terms: GlossaryTerm[], via?: "csv"): Promise<number> {
  await requireOrganization(env, organizationId);
  const db = controlDb(env.DB);
  await db.batch([
    ...replaceStatements(db, organizationId, terms),
    auditStatement(db, {
      organizationId,
      actor,
      action: "glossary.replace",
      target: `organization:${organizationId}`,
      detail: via ? { terms: terms.length, via } : { terms: terms.length },
    }),
  ]);
  await pushGlossary(env, organizationId);
  return terms.length;
}

/** The CSV file's terms replace the glossary, all or nothing (a 422 names the line and the rule). */
export async function importCsv(env: Env, actor: Actor, organizationId: number, csv: string): Promise<number> {
  return replaceGlossary(env, actor, organizationId, parseGlossaryCsv(csv), "csv");
}

/** Adds one term, under the same rules and limits as a whole glossary. */
export async function addTerm(env: Env, actor: Actor, organizationId: number, term: GlossaryTerm): Promise<void> {
  const [valid] = validateTerms([term]);
  const db = controlDb(env.DB);
  if ((await countTerms(db, organizationId)) >= MAX_TERMS) throw new ApiError(422, "terms: the glossary holds 10,000 terms, the most allowed; remove some first.");
  await db.batch([
    insertTermStatement(db, organizationId, valid),
    auditStatement(db, { organizationId, actor, action: "glossary.add", target: `organization:${organizationId}`, detail: { source: valid.source, language: valid.language } }),
  ]);
  await pushGlossary(env, organizationId);
}

export async function removeTerm(env: Env, actor: Actor, organizationId: number, termId: number): Promise<void> {
  const db = controlDb(env.DB);
  const row = await findTerm(db, organizationId, termId);
  if (!row) throw notFound(`Glossary term ${termId}`);
  await db.batch([
    deleteTermStatement(db, termId),
    auditStatement(db, { organizationId, actor, action: "glossary.remove", target: `organization:${organizationId}`, detail: { source: row.source, language: row.language } }),
  ]);
  await pushGlossary(env, organizationId);
}

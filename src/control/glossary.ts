/**
 * An organization's glossary (shared by its sites): read, replace (the admin PUT and the
 * dashboard's CSV import), add and remove one term, and CSV in and out. Every way in is
 * validated by the admin API's schema (GlossaryIn), so the rules are the same everywhere.
 */
import { and, asc, count, eq } from "drizzle-orm";
import { GlossaryIn } from "../api/schemas";
import { validationDetail } from "../api/issues";
import { ApiError, notFound } from "../errors";
import { auditStatement, type AuditEntry } from "./audit";
import type { ControlDb } from "./db";
import { glossaryTerms } from "./schema";

export interface GlossaryTerm {
  source: string;
  language: string;
  target: string;
  case_sensitive?: boolean;
}

export async function listGlossary(db: ControlDb, organizationId: number) {
  return db
    .select()
    .from(glossaryTerms)
    .where(eq(glossaryTerms.organizationId, organizationId))
    .orderBy(asc(glossaryTerms.language), asc(glossaryTerms.source), asc(glossaryTerms.id));
}

/** Validates terms with the admin API's rules; the 422 names the field and the rule. */
export function validateTerms(terms: unknown): GlossaryTerm[] {
  const parsed = GlossaryIn.safeParse({ terms });
  if (!parsed.success) throw new ApiError(422, validationDetail(parsed.error));
  return parsed.data.terms;
}

/** Replaces the whole glossary in one batch (optionally with an audit row in the same batch). */
export async function replaceGlossary(db: ControlDb, organizationId: number, terms: GlossaryTerm[], audit?: Omit<AuditEntry, "organizationId">) {
  const rows = terms.map((t) => ({ organizationId, source: t.source, language: t.language, target: t.target, caseSensitive: t.case_sensitive ?? false }));
  // D1 allows 100 bound parameters per statement: 6 columns → 16 rows per insert.
  const inserts = [];
  for (let i = 0; i < rows.length; i += 16) inserts.push(db.insert(glossaryTerms).values(rows.slice(i, i + 16)));
  await db.batch([
    db.delete(glossaryTerms).where(eq(glossaryTerms.organizationId, organizationId)),
    ...inserts,
    ...(audit ? [auditStatement(db, { organizationId, ...audit })] : []),
  ]);
  return rows.length;
}

/** Adds one term, under the same limits as a whole glossary (at most 10,000 terms). */
export async function addTerm(db: ControlDb, organizationId: number, term: GlossaryTerm, actor: string) {
  const [valid] = validateTerms([term]);
  const [{ n }] = await db.select({ n: count() }).from(glossaryTerms).where(eq(glossaryTerms.organizationId, organizationId));
  if (n >= 10_000) throw new ApiError(422, "terms: the glossary holds 10,000 terms, the most allowed; remove some first.");
  await db.batch([
    db.insert(glossaryTerms).values({ organizationId, source: valid.source, language: valid.language, target: valid.target, caseSensitive: valid.case_sensitive ?? false }),
    auditStatement(db, { organizationId, actor, action: "glossary.add", target: `organization:${organizationId}`, detail: { source: valid.source, language: valid.language } }),
  ]);
}

export async function removeTerm(db: ControlDb, organizationId: number, termId: number, actor: string) {
  const row = await db.select().from(glossaryTerms).where(and(eq(glossaryTerms.id, termId), eq(glossaryTerms.organizationId, organizationId))).get();
  if (!row) throw notFound(`Glossary term ${termId}`);
  await db.batch([
    db.delete(glossaryTerms).where(eq(glossaryTerms.id, termId)),
    auditStatement(db, { organizationId, actor, action: "glossary.remove", target: `organization:${organizationId}`, detail: { source: row.source, language: row.language } }),
  ]);
}

// ------------------------------------------------------------------ CSV (RFC 4180)

export const CSV_HEADER = ["source", "language", "target", "case_sensitive"];

const cell = (v: string) => (/[",\r\n]/.test(v) || /^[=+\-@\t]/.test(v) ? `"${(/^[=+\-@\t]/.test(v) ? "'" : "") + v.replace(/"/g, '""')}"` : v);

/** The glossary as CSV. Cells that a spreadsheet would run as a formula are prefixed with `'`. */
export function glossaryCsv(terms: { source: string; language: string; target: string; caseSensitive: boolean }[]) {
  const lines = [CSV_HEADER.join(",")];
  for (const t of terms) lines.push([cell(t.source), cell(t.language), cell(t.target), t.caseSensitive ? "true" : "false"].join(","));
  return lines.join("\r\n") + "\r\n";
}

function parseRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") row.push(field), (field = "");
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field), rows.push(row), (row = []), (field = "");
    } else field += ch;
  }
  if (quoted) throw new ApiError(422, "file: a quoted cell is not closed.");
  if (field !== "" || row.length) row.push(field), rows.push(row);
  return rows.filter((r) => r.some((c) => c.trim() !== ""));
}

/** Terms from a CSV with the header `source,language,target[,case_sensitive]` (as exported). */
export function parseGlossaryCsv(text: string): GlossaryTerm[] {
  const rows = parseRows(text.replace(/^\uFEFF/, ""));
  if (!rows.length) throw new ApiError(422, "file: the CSV file is empty.");
  const header = rows[0].map((h) => h.trim().toLowerCase());
  const col = (name: string) => header.indexOf(name);
  if (col("source") < 0 || col("language") < 0 || col("target") < 0)
    throw new ApiError(422, "file: the first line must name the columns source, language, target (and optionally case_sensitive).");
  const terms = rows.slice(1).map((r, i) => {
    const flag = col("case_sensitive") >= 0 ? (r[col("case_sensitive")] ?? "").trim().toLowerCase() : "";
    if (flag && !["true", "false", "yes", "no", "1", "0"].includes(flag)) throw new ApiError(422, `file: line ${i + 2}: case_sensitive must be true or false.`);
    const unformula = (v: string) => (/^'[=+\-@\t]/.test(v) ? v.slice(1) : v);
    return {
      source: unformula(r[col("source")] ?? ""),
      language: (r[col("language")] ?? "").trim(),
      target: unformula(r[col("target")] ?? ""),
      case_sensitive: ["true", "yes", "1"].includes(flag),
    };
  });
  try {
    return validateTerms(terms);
  } catch (err) {
    // terms[3].source → line 5 of the file (line 1 is the header).
    if (err instanceof ApiError) throw new ApiError(422, `file: ${err.detail.replace(/terms\[(\d+)\]\.?/g, (_, n) => `line ${Number(n) + 2}: `)}`);
    throw err;
  }
}

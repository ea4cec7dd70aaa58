/**
 * An organization's glossary terms in D1 (shared by its sites): rows, the statements that
 * replace, add and remove them (src/ops/glossary.ops.ts batches them with the audit row), and CSV
 * in and out. Every way in is validated by the admin API's schema (GlossaryIn), so the rules
 * are the same everywhere.
 */
import { and, asc, count, eq } from "drizzle-orm";
import { GlossaryIn, type GlossaryTerm } from "../api/admin.schemas";
import { validationDetail } from "../api/issues";
import { ApiError } from "../errors";
import type { ControlDb } from "./db";
import { glossaryTerms } from "./schema";

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

/** The statements that replace the whole glossary (for one batch). */
export function replaceStatements(db: ControlDb, organizationId: number, terms: GlossaryTerm[]) {
  const rows = terms.map((t) => ({ organizationId, source: t.source, language: t.language, target: t.target, caseSensitive: t.case_sensitive ?? false }));
  // D1 allows 100 bound parameters per statement: 6 columns → 16 rows per insert.
  const inserts = [];
  for (let i = 0; i < rows.length; i += 16) inserts.push(db.insert(glossaryTerms).values(rows.slice(i, i + 16)));
  return [db.delete(glossaryTerms).where(eq(glossaryTerms.organizationId, organizationId)), ...inserts] as const;
}

export async function countTerms(db: ControlDb, organizationId: number) {
  const [{ n }] = await db.select({ n: count() }).from(glossaryTerms).where(eq(glossaryTerms.organizationId, organizationId));
  return n;
}

export function insertTermStatement(db: ControlDb, organizationId: number, term: GlossaryTerm) {
  return db.insert(glossaryTerms).values({ organizationId, source: term.source, language: term.language, target: term.target, caseSensitive: term.case_sensitive ?? false });
}

export async function findTerm(db: ControlDb, organizationId: number, termId: number) {
  return db
    .select()
    .from(glossaryTerms)
    .where(and(eq(glossaryTerms.id, termId), eq(glossaryTerms.organizationId, organizationId)))
    .get();
}

export function deleteTermStatement(db: ControlDb, termId: number) {
  return db.delete(glossaryTerms).where(eq(glossaryTerms.id, termId));
}

// ------------------------------------------------------------------ CSV (RFC 4180)

export const CSV_HEADER = ["source", "language", "target", "case_sensitive"];

const cell = (v: string) => (/[",\r\n]/.test(v) || /^[=+\-@\t]/.test(v) ? `"${(/^[=+\-@\t]/.test(v) ? "'" : "") + v.replace(/"/g, '""')}"` : v);

/** The glossary as CSV. Cells that a spreadsheet would run as a formula are prefixed with `'`. */
export function glossaryCsv(terms: { source: string; language: string; target: string; caseSensitive: boolean }[]) {
  const lines = [CSV_HEADER.join(",")];
  for (const t of terms) lines.push([cell(t.source), cell(t.language), cell(t.target), t.caseSensitive ? "true" : "false"].join(","));
  return `${lines.join("\r\n")}\r\n`;
}

function parseRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (quoted) throw new ApiError(422, "file: a quoted cell is not closed.");
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
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

// Mapping the site's language codes (BCP 47, any case, `_` tolerated) to an engine's own codes.

/** Lower case, `-` as separator, no surrounding space: `pt_BR` → `pt-br`. */
export function normalizeLanguage(code: string): string {
  return code.trim().replace(/_/g, "-").toLowerCase();
}

/**
 * An engine's language table: normalized site code → engine code. `null` marks a code the
 * engine must not fall back for (e.g. `zh-hant` where only Simplified Chinese exists).
 */
export type LanguageTable = ReadonlyMap<string, string | null>;

/**
 * Builds a table from the engine's canonical codes (each also reachable in lower case)
 * plus aliases.
 */
export function languageTable(codes: readonly string[], aliases: Readonly<Record<string, string | null>> = {}): LanguageTable {
  const table = new Map<string, string | null>();
  for (const code of codes) table.set(normalizeLanguage(code), code);
  for (const [alias, code] of Object.entries(aliases)) table.set(normalizeLanguage(alias), code);
  return table;
}

/**
 * The engine code for a site code: an exact entry, else the entry for the code with its last
 * subtag dropped, repeatedly (`de-at` → `de`, `zh-hant-tw` → `zh-hant`). Undefined when none.
 */
export function lookupLanguage(table: LanguageTable, code: string): string | undefined {
  let key = normalizeLanguage(code);
  for (;;) {
    if (table.has(key)) return table.get(key) ?? undefined;
    const cut = key.lastIndexOf("-");
    if (cut <= 0) return undefined;
    key = key.slice(0, cut);
  }
}

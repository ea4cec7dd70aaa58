import { createHash } from "node:crypto";

/**
 * The documented fingerprint (DESIGN.md): lowercase hex SHA-256 of the UTF-8 text after
 * Unicode NFC and `\r\n` → `\n`. Synchronous, so pushes can hash inside a transaction.
 */
export function fingerprint(text: string): string {
  return createHash("sha256").update(text.replace(/\r\n/g, "\n").normalize("NFC"), "utf8").digest("hex");
}

/** Characters as billed and limited: Unicode code points (one definition, in src/characters.ts). */
export { characters } from "../characters";

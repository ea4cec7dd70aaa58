import { fingerprintDigest } from "./sha256";

/** Text that NFC leaves as it is without looking: ASCII, and Latin-1 letters that are already composed. */
const NFC_STABLE = /^[\u0000-\u02ff]*$/;

/**
 * The documented fingerprint (README "Fingerprints"): lowercase hex SHA-256 of the UTF-8 text after
 * Unicode NFC and `\r\n` → `\n`. Synchronous, so pushes can hash inside a transaction.
 */
export function fingerprint(text: string): string {
  const lf = text.includes("\r") ? text.replace(/\r\n/g, "\n") : text;
  return fingerprintDigest(NFC_STABLE.test(lf) ? lf : lf.normalize("NFC"));
}

/** Characters as billed and limited: Unicode code points (one definition, in src/characters.ts). */
export { characters } from "../characters";

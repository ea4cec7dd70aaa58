/**
 * Lowercase hex SHA-256 of the UTF-8 text, through WebCrypto: tokens and keys stored as
 * hashes, cache keys. (Segment fingerprints use `fingerprintDigest`, src/site/sha256.ts: a
 * synchronous digest, faster for the thousands of short texts of a push.)
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

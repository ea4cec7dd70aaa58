/**
 * Dashboard passwords: PBKDF2-SHA256 through WebCrypto, 100,000 iterations (the most the
 * Workers runtime accepts) and a 16-byte random salt. Stored as
 * `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`; the password itself is never stored.
 * The iterations of new hashes come from the Worker's deps (src/deps.ts: production's are
 * PBKDF2_ITERATIONS; the tests' fewer); a stored hash is verified with its own count.
 */
export const PBKDF2_ITERATIONS = 100_000;

/** Hashes a new password (a `Deps` seam: `c.var.hashPassword` in the app). */
export type HashPassword = (password: string) => Promise<string>;
const SALT_BYTES = 16;
const HASH_BITS = 256;

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (s: string) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password.normalize("NFC")), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, iterations);
  return `pbkdf2-sha256$${iterations}$${b64(salt)}$${b64(hash)}`;
}

/** Constant-time over the derived hash; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iter, salt, hash] = stored.split("$");
  const iterations = Number(iter);
  if (scheme !== "pbkdf2-sha256" || !Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS || !salt || !hash) return false;
  const expected = unb64(hash);
  const actual = await derive(password, unb64(salt), iterations);
  if (actual.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < actual.length; i++) diff |= actual[i] ^ expected[i];
  return diff === 0;
}

/** A random token for a cookie or a link (32 bytes, base64url), and its stored SHA-256 hex. */
export function randomToken(): string {
  return b64(crypto.getRandomValues(new Uint8Array(32)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** TOTP against RFC 6238's test vectors and a code computed here (RFC 4226's truncation), recovery codes used once. */
import { env } from "cloudflare:workers";
import { Secret } from "otpauth";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { users } from "../../src/control/schema";
import { acceptCode, newRecoveryCodes, newTotpSecret, totpCode, totpUri } from "../../src/control/totp.control";
import { beginTwoFactor, checkSecondFactor, confirmTwoFactor } from "../../src/ops/two-factor.ops";

// RFC 6238 appendix B, SHA-1: the secret is the ASCII "12345678901234567890"; the 8-digit
// values' last 6 digits are the 6-digit codes (the truncation is mod 10^digits).
const RFC_SECRET = Secret.fromLatin1("12345678901234567890").base32;
const VECTORS: [number, string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

/** HOTP by hand (RFC 4226 §5.3) with WebCrypto: what an authenticator app computes. */
async function codeByHand(base32: string, atMs: number) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const ch of base32.replace(/=+$/, "")) bits += alphabet.indexOf(ch).toString(2).padStart(5, "0");
  const key = new Uint8Array(Math.floor(bits.length / 8)).map((_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2));
  const counter = new DataView(new ArrayBuffer(8));
  counter.setBigUint64(0, BigInt(Math.floor(atMs / 1000 / 30)));
  const hmacKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-1" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmacKey, counter.buffer));
  const offset = mac[19] & 0xf;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % 1_000_000).padStart(6, "0");
}

describe("TOTP codes", () => {
  it("match RFC 6238's SHA-1 test vectors (30 s steps, 6 digits)", () => {
    for (const [t, eight] of VECTORS) expect(totpCode(RFC_SECRET, t * 1000), `T=${t}`).toBe(eight.slice(2));
    for (const [t, eight] of VECTORS) expect(acceptCode(RFC_SECRET, eight.slice(2), null, t * 1000), `T=${t}`).toBe(Math.floor(t / 30));
  });

  it("accept a code computed here by hand for a new secret, in the step before, now and after, never twice, never older", async () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/); // 160 bits
    const now = Date.UTC(2026, 10, 25, 12, 0, 10);
    const code = await codeByHand(secret, now);
    expect(totpCode(secret, now)).toBe(code);
    const step = Math.floor(now / 30_000);
    expect(acceptCode(secret, code, null, now)).toBe(step);
    expect(acceptCode(secret, code.slice(0, 3) + " " + code.slice(3), null, now)).toBe(step); // spaces are fine
    expect(acceptCode(secret, code, null, now + 30_000)).toBe(step); // a step late
    expect(acceptCode(secret, code, null, now + 60_000)).toBeNull(); // two steps late
    expect(acceptCode(secret, code, step, now)).toBeNull(); // used already
    expect(acceptCode(secret, await codeByHand(secret, now + 30_000), step, now)).toBe(step + 1);
    expect(acceptCode(secret, String((Number(code) + 1) % 1_000_000).padStart(6, "0"), null, now)).toBeNull();
    expect(acceptCode(secret, "abcdef", null, now)).toBeNull();
    expect(totpUri(secret, "a@example.com")).toMatch(
      new RegExp(`^otpauth://totp/Transync:a%40example\\.com\\?issuer=Transync&secret=${secret}&algorithm=SHA1&digits=6&period=30$`),
    );
  });
});

describe("recovery codes", () => {
  it("are ten, shown once, stored hashed, and each works once", async () => {
    expect(new Set(newRecoveryCodes()).size).toBe(10);
    const db = controlDb(env.DB);
    const [user] = await db
      .insert(users)
      .values({ email: `rc-${Date.now()}@example.com`, passwordHash: "x", emailVerifiedAt: new Date().toISOString() })
      .returning();
    const { setup, secret } = await beginTwoFactor(env, user.id);
    const now = new Date();
    const codes = await confirmTwoFactor(
      env,
      { userId: user.id, email: user.email, tokenHash: "" },
      setup,
      totpCode(secret, now.getTime()),
      { password: "", currentCode: "", network: "192.0.2.1" },
      "https://dash.test",
      now,
    );
    expect(codes).toHaveLength(10);
    const stored = await env.DB.prepare("SELECT code_hash FROM recovery_codes WHERE user_id = ?").bind(user.id).all<{ code_hash: string }>();
    expect(stored.results.every((r) => /^[0-9a-f]{64}$/.test(r.code_hash))).toBe(true);
    expect(await checkSecondFactor(env, user.id, codes[0])).toBe("recovery");
    expect(await checkSecondFactor(env, user.id, codes[0])).toBeNull();
    expect(await checkSecondFactor(env, user.id, codes[1].replace("-", ""))).toBe("recovery");
    expect(await checkSecondFactor(env, user.id, "zzzzz-zzzzz")).toBeNull();
    // The set-up's code is not accepted again to sign in.
    expect(await checkSecondFactor(env, user.id, totpCode(secret, now.getTime()), now)).toBeNull();
    expect(await checkSecondFactor(env, user.id, totpCode(secret, now.getTime() + 30_000), now)).toBe("totp");
  });
});

/**
 * Two-factor sign-in codes: TOTP (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits) with the
 * `otpauth` package, and one-time recovery codes. A code is accepted in the step before,
 * the current or the next one (clocks drift), and never twice: the last accepted step is
 * kept, and a code of that step or an earlier one is refused.
 */
import { Secret, TOTP } from "otpauth";
import { renderSVG } from "uqr";
import { sha256Hex } from "../digest";

export const TOTP_PERIOD = 30;
export const TOTP_DIGITS = 6;
export const RECOVERY_CODES = 10;
const ISSUER = "Transync";

const totp = (secret: string, label = "") => new TOTP({ issuer: ISSUER, label, algorithm: "SHA1", digits: TOTP_DIGITS, period: TOTP_PERIOD, secret: Secret.fromBase32(secret) });

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), base32. */
export const newTotpSecret = () => new Secret({ size: 20 }).base32;

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export const totpUri = (secret: string, email: string) => totp(secret, email).toString();

/** The QR code of the URI as an SVG element, made here (no outside service sees the secret). */
export const totpQrSvg = (uri: string) => renderSVG(uri, { border: 2 });

/** The setup key grouped in fours, easier to type. */
export const groupedKey = (secret: string) => secret.replace(/(.{4})/g, "$1 ").trim();

/** The code for a moment (tests and the e2e suite compute codes with it, as an authenticator would). */
export const totpCode = (secret: string, at = Date.now()) => totp(secret).generate({ timestamp: at });

/** The step a code belongs to when it is valid at `at` (±1 step) and newer than `lastStep`, else null. */
export function acceptCode(secret: string, code: string, lastStep: number | null, at = Date.now()): number | null {
  const clean = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(clean)) return null;
  const delta = totp(secret).validate({ token: clean, timestamp: at, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(at / 1000 / TOTP_PERIOD) + delta;
  if (lastStep !== null && step <= lastStep) return null;
  return step;
}

const CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"; // no 0/o, 1/l/i

/** Ten recovery codes like `k7m2p-x9qrt`, shown once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const bytes = crypto.getRandomValues(new Uint8Array(10));
    const chars = [...bytes].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A recovery code's stored form: SHA-256 of it lowercased without spaces or dashes. */
export const recoveryHash = (code: string) => sha256Hex(code.toLowerCase().replace(/[\s-]+/g, ""));
export const looksLikeRecoveryCode = (code: string) => /^[a-z0-9]{5}-?[a-z0-9]{5}$/i.test(code.trim());

/**
 * Standard Webhooks signatures, made by the `standardwebhooks` package (no HMAC of our own).
 * Secrets are `whsec_` + base64 of 24 random bytes. After a rotation the previous secret
 * signs too until `previousUntil`: `webhook-signature` then holds both, space-separated, and a
 * receiver holding either secret verifies the delivery.
 */
import { Webhook } from "standardwebhooks";

export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

export interface SigningKeys {
  secret: string;
  previousSecret: string | null;
  previousUntil: string | null;
}

/** The secrets that sign at `at`: the current one, then the previous one during its overlap. */
export function signingSecrets(keys: SigningKeys, at: Date): string[] {
  const previous = keys.previousSecret && keys.previousUntil && Date.parse(keys.previousUntil) > at.getTime() ? [keys.previousSecret] : [];
  return [keys.secret, ...previous];
}

/** The three Standard Webhooks headers for one attempt. */
export function signatureHeaders(keys: SigningKeys, id: string, at: Date, body: string): Record<string, string> {
  const signatures = signingSecrets(keys, at).map((secret) => new Webhook(secret).sign(id, at, body));
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}

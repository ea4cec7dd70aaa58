/**
 * The Stripe side of billing (docs/billing.md; docs/decisions.md "Billing"): which provider this
 * deployment runs, the official SDK set up for Workers (fetch HTTP client, SubtleCrypto for
 * webhook signatures), the plans' Price ids and how Stripe's subscription statuses map to the
 * contract's. Nothing here writes D1: src/ops/billing.ops.ts does.
 */
import Stripe from "stripe";
import type { Plan } from "../limits";

export type Provider = "manual" | "stripe";

/** `stripe` when both secrets are set; otherwise `manual` (the embedded default, and `npm run dev`). */
export function billingProvider(env: Env): Provider {
  return env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET ? "stripe" : "manual";
}

/**
 * A client for one request or run. The fetch is looked up at call time (not captured when the
 * client is made), so a test's HTTP-level mock of fetch sees every request. `STRIPE_API_BASE`
 * (e.g. `http://127.0.0.1:12111`) points the SDK at a local fake.
 */
export function stripeClient(env: Env): Stripe {
  if (!env.STRIPE_SECRET_KEY) throw new Error("STRIPE_SECRET_KEY is not set");
  const base = env.STRIPE_API_BASE ? new URL(env.STRIPE_API_BASE) : undefined;
  return new Stripe(env.STRIPE_SECRET_KEY, {
    httpClient: Stripe.createFetchHttpClient((input, init) => fetch(input, init)),
    // Every write carries an idempotency key (the SDK adds one to each POST, kept across its retries).
    maxNetworkRetries: 2,
    telemetry: false,
    ...(base
      ? { protocol: base.protocol === "http:" ? ("http" as const) : ("https" as const), host: base.hostname, port: base.port || (base.protocol === "https:" ? 443 : 80) }
      : {}),
  });
}

export const cryptoProvider = Stripe.createSubtleCryptoProvider();

/** Verifies the signature on the raw body; throws on a bad, missing or stale (older than 5 minutes) one. */
export async function verifyEvent(env: Env, rawBody: string, signature: string | undefined): Promise<Stripe.Event> {
  if (!signature) throw new Error("No Stripe-Signature header");
  return stripeClient(env).webhooks.constructEventAsync(rawBody, signature, env.STRIPE_WEBHOOK_SECRET!, undefined, cryptoProvider);
}

const PRICE_VARS: Record<Plan, keyof Env> = {
  pro: "STRIPE_PRICE_PRO",
  agency: "STRIPE_PRICE_AGENCY",
  growth: "STRIPE_PRICE_GROWTH",
  scale: "STRIPE_PRICE_SCALE",
};

/** The Stripe Price id of a plan, or undefined when the deployment does not sell it. */
export function priceOf(env: Env, plan: Plan): string | undefined {
  const v = env[PRICE_VARS[plan]];
  return typeof v === "string" && v ? v : undefined;
}

/** The plan a Price id stands for, by the same vars. */
export function planOfPrice(env: Env, priceId: string | null | undefined): Plan | null {
  if (!priceId) return null;
  for (const plan of Object.keys(PRICE_VARS) as Plan[]) if (priceOf(env, plan) === priceId) return plan;
  return null;
}

export type ContractStatus = "active" | "paused" | "canceled";

/**
 * Stripe's status → the contract's. `past_due` stays active (the 7-day grace is counted from
 * `past_due_since` when entitlement is decided); `incomplete` (the first payment not made
 * yet) is not active: paused until Stripe says more.
 */
export function contractStatus(status: Stripe.Subscription.Status): ContractStatus {
  switch (status) {
    case "active":
    case "trialing":
    case "past_due":
      return "active";
    case "paused":
    case "incomplete":
      return "paused";
    default:
      // canceled, unpaid, incomplete_expired, and anything newer Stripe may add.
      return "canceled";
  }
}

export { Stripe };

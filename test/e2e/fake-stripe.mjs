/**
 * A tiny local stand-in for Stripe's API, for the browser test: the Worker's SDK reaches it
 * through STRIPE_API_BASE. It answers the few endpoints the Billing page and its actions use,
 * with objects shaped as Stripe's, keeps subscriptions in memory (the test sets them, as a
 * payment would), and serves the "Checkout page" the browser is redirected to.
 */
import { createServer } from "node:http";

const PERIOD_START = 1_793_491_200; // 2026-11-01
const PERIOD_END = 1_796_083_200; // 2026-12-01
const CENTS = { price_pro_e2e: 2900, price_agency_e2e: 19900, price_growth_e2e: 39900, price_scale_e2e: 99900 };

export const E2E_PRICES = {
  STRIPE_PRICE_PRO: "price_pro_e2e",
  STRIPE_PRICE_AGENCY: "price_agency_e2e",
  STRIPE_PRICE_GROWTH: "price_growth_e2e",
  STRIPE_PRICE_SCALE: "price_scale_e2e",
};

export const price = (id) => ({
  id,
  object: "price",
  active: true,
  currency: "usd",
  livemode: false,
  metadata: {},
  product: "prod_transync",
  recurring: { interval: "month", interval_count: 1, usage_type: "licensed" },
  type: "recurring",
  unit_amount: CENTS[id] ?? 1000,
});

export function subscription({ id, customer, organizationId, priceId, quantity = 1, status = "active" }) {
  return {
    id,
    object: "subscription",
    cancel_at_period_end: false,
    created: PERIOD_START,
    currency: "usd",
    customer,
    items: {
      object: "list",
      data: [
        { id: `si_${id}`, object: "subscription_item", current_period_start: PERIOD_START, current_period_end: PERIOD_END, price: price(priceId), quantity, subscription: id },
      ],
      has_more: false,
    },
    livemode: false,
    metadata: { organization_id: String(organizationId) },
    status,
  };
}

export async function startFakeStripe() {
  const state = { subscriptions: new Map(), sessions: [], requests: [] };
  let base = "";
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url, base);
    state.requests.push({ method: req.method, path: url.pathname, body });
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json", "request-id": `req_${state.requests.length}` });
      res.end(JSON.stringify(value));
    };
    const form = Object.fromEntries(new URLSearchParams(body));
    let m;
    if (req.method === "GET" && (m = /^\/v1\/prices\/([^/]+)$/.exec(url.pathname))) return json(200, price(m[1]));
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const id = `cs_test_e2e_${state.sessions.length + 1}`;
      const session = {
        id,
        object: "checkout.session",
        mode: "subscription",
        status: "open",
        client_reference_id: form.client_reference_id,
        metadata: {},
        subscription: null,
        url: `${base}/checkout/${id}`,
        form,
      };
      state.sessions.push(session);
      return json(200, session);
    }
    if (req.method === "GET" && (m = /^\/checkout\/([^/]+)$/.exec(url.pathname))) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(
        `<!DOCTYPE html><html lang="en"><head><title>Fake Stripe Checkout</title></head><body><main><h1>Fake Stripe Checkout</h1><p>Session ${m[1]}</p></main></body></html>`,
      );
    }
    if (req.method === "GET" && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname))) {
      const sub = state.subscriptions.get(m[1]);
      return sub ? json(200, sub) : json(404, { error: { type: "invalid_request_error", code: "resource_missing", message: "No such subscription" } });
    }
    if (req.method === "GET" && url.pathname === "/v1/invoices") return json(200, { object: "list", data: [], has_more: false, url: "/v1/invoices" });
    if (req.method === "POST" && url.pathname === "/v1/invoices/create_preview")
      return json(200, { id: null, object: "invoice", amount_due: 19900, total: 19900, currency: "usd", period_end: PERIOD_END, status: "draft" });
    if (req.method === "POST" && url.pathname === "/v1/billing_portal/sessions")
      return json(200, { id: "bps_e2e", object: "billing_portal.session", customer: form.customer, return_url: form.return_url, url: `${base}/portal/bps_e2e` });
    json(404, { error: { type: "invalid_request_error", message: `The fake does not know ${req.method} ${url.pathname}` } });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  return { base, state, stop: () => new Promise((resolve) => server.close(resolve)) };
}

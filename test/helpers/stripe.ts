/**
 * Stripe's HTTP API, mocked at the HTTP level (MSW handlers behind the fetch spy of
 * ./http.ts): the SDK sends its real form-encoded requests to https://api.stripe.com/v1/…,
 * and the answers are objects shaped as the SDK's types. State is kept in memory so a test can
 * change a subscription "in Stripe" and see what the service makes of it. Unmocked calls fail.
 *
 * Webhooks are signed with the SDK's own test-header helper and the pool's webhook secret.
 */
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import Stripe from "stripe";
import { mockFetch, type RecordedRequest } from "./http";

export const API = "https://api.stripe.com";
export const PRICES = { pro: "price_pro_test", agency: "price_agency_test", growth: "price_growth_test", scale: "price_scale_test" } as const;
const PRICE_CENTS: Record<string, number> = { price_pro_test: 2900, price_agency_test: 19900, price_growth_test: 39900, price_scale_test: 99900 };
const PERIOD_START = 1_793_491_200; // 2026-11-01
const PERIOD_END = 1_796_083_200; // 2026-12-01

let seq = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++seq).toString(36)}`;

export function price(id: string): Stripe.Price {
  return {
    id,
    object: "price",
    active: true,
    billing_scheme: "per_unit",
    created: PERIOD_START,
    currency: "usd",
    custom_unit_amount: null,
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: null,
    product: "prod_transync",
    recurring: { interval: "month", interval_count: 1, meter: null, trial_period_days: null, usage_type: "licensed" },
    tax_behavior: "unspecified",
    tiers_mode: null,
    transform_quantity: null,
    type: "recurring",
    unit_amount: PRICE_CENTS[id] ?? 1000,
    unit_amount_decimal: String(PRICE_CENTS[id] ?? 1000),
  } as unknown as Stripe.Price; // unit_amount_decimal: the SDK types it as its Decimal; on the wire it is a string
}

/** A subscription as GET /v1/subscriptions/{id} answers it (the fields the service reads, and the SDK type's shape). */
export function subscription(opts: {
  id?: string;
  customer?: string;
  status?: Stripe.Subscription.Status;
  price?: string;
  quantity?: number;
  organizationId?: number;
  cancelAtPeriodEnd?: boolean;
}): Stripe.Subscription {
  const id = opts.id ?? nextId("sub");
  return {
    id,
    object: "subscription",
    billing_cycle_anchor: PERIOD_START,
    cancel_at: null,
    cancel_at_period_end: opts.cancelAtPeriodEnd ?? false,
    canceled_at: null,
    collection_method: "charge_automatically",
    created: PERIOD_START,
    currency: "usd",
    customer: opts.customer ?? "cus_test",
    items: {
      object: "list",
      data: [
        {
          id: `si_${id}`,
          object: "subscription_item",
          created: PERIOD_START,
          current_period_start: PERIOD_START,
          current_period_end: PERIOD_END,
          metadata: {},
          price: price(opts.price ?? PRICES.agency),
          quantity: opts.quantity ?? 1,
          subscription: id,
        },
      ],
      has_more: false,
      url: `/v1/subscription_items?subscription=${id}`,
    },
    livemode: false,
    metadata: opts.organizationId ? { organization_id: String(opts.organizationId) } : {},
    start_date: PERIOD_START,
    status: opts.status ?? "active",
  } as unknown as Stripe.Subscription;
}

export interface FakeStripe {
  subscriptions: Map<string, Stripe.Subscription>;
  /** Invoices Stripe holds (each of one customer); GET /v1/invoices answers only the customer asked for. */
  invoices: Partial<Stripe.Invoice>[];
  /** Adds a paid invoice of a customer; `number` defaults to the next TS-000n. */
  invoice(customer: string, opts?: { number?: string; total?: number }): Partial<Stripe.Invoice>;
  /** Invoice items Stripe holds, by idempotency key (a repeat with the same key answers the first). */
  invoiceItems: Map<string, Stripe.InvoiceItem>;
  /** Requests to Stripe, in order. */
  requests: RecordedRequest[];
  /** While true, POST /v1/invoiceitems fails as an outage would (503). */
  outage: boolean;
  /** While true, POST /v1/invoiceitems creates the item but the answer is lost (a network error). */
  loseAnswer: boolean;
  calls(method: string, path: string | RegExp): RecordedRequest[];
}

/** Form fields of a recorded request (`line_items[0][price]` …). */
export const form = (r: RecordedRequest) => Object.fromEntries(new URLSearchParams(r.body));

/** Mocks Stripe for the rest of the test. */
export function fakeStripe(): FakeStripe {
  const fake: FakeStripe = {
    subscriptions: new Map(),
    invoices: [],
    invoice(customer, opts = {}) {
      const n = fake.invoices.length + 1;
      const id = `in_paid_${n}`;
      const invoice: Partial<Stripe.Invoice> = {
        id,
        object: "invoice",
        customer,
        number: opts.number ?? `TS-${String(n).padStart(4, "0")}`,
        status: "paid",
        total: opts.total ?? 19900,
        amount_due: opts.total ?? 19900,
        currency: "usd",
        created: PERIOD_START,
        hosted_invoice_url: `https://invoice.stripe.com/i/${id}`,
      };
      fake.invoices.push(invoice);
      return invoice;
    },
    invoiceItems: new Map(),
    requests: [],
    outage: false,
    loseAnswer: false,
    calls: (method, path) =>
      fake.requests.filter((r) => r.method === method && r.url.origin === API && (typeof path === "string" ? r.url.pathname === path : path.test(r.url.pathname))),
  };
  const notFound = (what: string) => HttpResponse.json({ error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}` } }, { status: 404 });
  const mock = mockFetch([
    http.post(`${API}/v1/checkout/sessions`, async ({ request }) => {
      const f = Object.fromEntries(new URLSearchParams(await request.text()));
      const id = nextId("cs_test");
      return HttpResponse.json({
        id,
        object: "checkout.session",
        mode: "subscription",
        status: "open",
        client_reference_id: f.client_reference_id ?? null,
        customer: f.customer ?? null,
        metadata: {},
        subscription: null,
        success_url: f.success_url,
        cancel_url: f.cancel_url,
        url: `https://checkout.stripe.com/c/pay/${id}`,
      } satisfies Partial<Stripe.Checkout.Session>);
    }),
    http.get(`${API}/v1/subscriptions/:id`, ({ params }) => {
      const sub = fake.subscriptions.get(String(params.id));
      return sub ? HttpResponse.json(sub) : notFound("subscription");
    }),
    http.post(`${API}/v1/subscriptions/:id`, async ({ params, request }) => {
      const sub = fake.subscriptions.get(String(params.id));
      if (!sub) return notFound("subscription");
      const f = Object.fromEntries(new URLSearchParams(await request.text()));
      const item = sub.items.data[0];
      const next = structuredClone(sub);
      if (f["items[0][price]"]) next.items.data[0].price = price(f["items[0][price]"]);
      if (f["items[0][quantity]"]) next.items.data[0].quantity = Number(f["items[0][quantity]"]);
      if (f["items[0][id]"] && f["items[0][id]"] !== item.id) return notFound("subscription item");
      if (f.cancel_at_period_end) next.cancel_at_period_end = f.cancel_at_period_end === "true";
      fake.subscriptions.set(sub.id, next);
      return HttpResponse.json(next);
    }),
    // Cancel now (stripe.subscriptions.cancel): the subscription, ended.
    http.delete(`${API}/v1/subscriptions/:id`, ({ params }) => {
      const sub = fake.subscriptions.get(String(params.id));
      if (!sub) return notFound("subscription");
      const next: Stripe.Subscription = { ...structuredClone(sub), status: "canceled", canceled_at: Math.floor(Date.now() / 1000), ended_at: Math.floor(Date.now() / 1000) };
      fake.subscriptions.set(sub.id, next);
      return HttpResponse.json(next);
    }),
    http.post(`${API}/v1/invoiceitems`, async ({ request }) => {
      if (fake.outage) return HttpResponse.json({ error: { type: "api_error", message: "Service unavailable" } }, { status: 503, headers: { "stripe-should-retry": "false" } });
      const key = request.headers.get("idempotency-key") ?? nextId("key");
      const f = Object.fromEntries(new URLSearchParams(await request.text()));
      const existing = fake.invoiceItems.get(key);
      if (existing) return fake.loseAnswer ? HttpResponse.error() : HttpResponse.json(existing, { headers: { "idempotent-replayed": "true" } });
      const item = {
        id: nextId("ii"),
        object: "invoiceitem",
        amount: Number(f.amount),
        currency: f.currency,
        customer: f.customer,
        date: PERIOD_START,
        description: f.description ?? null,
        discountable: true,
        invoice: null,
        livemode: false,
        metadata: { organization_id: f["metadata[organization_id]"], month: f["metadata[month]"] },
        quantity: 1,
      } as unknown as Stripe.InvoiceItem;
      fake.invoiceItems.set(key, item);
      return fake.loseAnswer ? HttpResponse.error() : HttpResponse.json(item);
    }),
    http.get(`${API}/v1/invoiceitems`, ({ request }) => {
      const customer = new URL(request.url).searchParams.get("customer");
      const data = [...fake.invoiceItems.values()].filter((i) => i.customer === customer).reverse();
      return HttpResponse.json({ object: "list", data, has_more: false, url: "/v1/invoiceitems" });
    }),
    http.post(`${API}/v1/billing_portal/sessions`, async ({ request }) => {
      const f = Object.fromEntries(new URLSearchParams(await request.text()));
      const id = nextId("bps");
      return HttpResponse.json({
        id,
        object: "billing_portal.session",
        customer: f.customer,
        return_url: f.return_url,
        url: `https://billing.stripe.com/p/session/${id}`,
      } satisfies Partial<Stripe.BillingPortal.Session>);
    }),
    // Only the four configured prices exist.
    http.get(`${API}/v1/prices/:id`, ({ params }) => (String(params.id) in PRICE_CENTS ? HttpResponse.json(price(String(params.id))) : notFound("price"))),
    // As Stripe: `customer` narrows the list; newest first; `limit` caps it.
    http.get(`${API}/v1/invoices`, ({ request }) => {
      const q = new URL(request.url).searchParams;
      const data = fake.invoices
        .filter((i) => !q.get("customer") || i.customer === q.get("customer"))
        .reverse()
        .slice(0, Number(q.get("limit") ?? 10));
      return HttpResponse.json({ object: "list", data, has_more: false, url: "/v1/invoices" });
    }),
    // The next invoice of one subscription of one customer: the subscription's price × quantity; another customer's subscription is missing.
    http.post(`${API}/v1/invoices/create_preview`, async ({ request }) => {
      const f = Object.fromEntries(new URLSearchParams(await request.text()));
      const sub = fake.subscriptions.get(f.subscription);
      if (!sub || sub.customer !== f.customer) return notFound("subscription");
      const item = sub.items.data[0];
      const amount = (item.price.unit_amount ?? 0) * (item.quantity ?? 1);
      return HttpResponse.json({
        id: null,
        object: "invoice",
        customer: f.customer,
        amount_due: amount,
        total: amount,
        currency: "usd",
        period_end: PERIOD_END,
        status: "draft",
      } as unknown as Stripe.Invoice);
    }),
  ]);
  fake.requests = mock.requests;
  return fake;
}

/** A Stripe event as Stripe sends it, with its `Stripe-Signature` header made by the SDK's own helper. */
export async function signedEvent<T extends Stripe.Event["type"]>(type: T, object: unknown, opts: { id?: string; secret?: string; timestamp?: number; created?: number } = {}) {
  const event = {
    id: opts.id ?? nextId("evt"),
    object: "event",
    api_version: "2026-10-28.endive",
    created: opts.created ?? Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
  const payload = JSON.stringify(event);
  const signature = await new Stripe("sk_test_signing").webhooks.generateTestHeaderStringAsync({
    payload,
    secret: opts.secret ?? env.STRIPE_WEBHOOK_SECRET!,
    ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {}),
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return { event, payload, signature };
}

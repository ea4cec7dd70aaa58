/** The Billing page (docs/billing.md): owners act, admins and editors read. */

import { PLANS } from "../../billing/plans";
import type { Plan } from "../../limits";
import { PLANS as PLAN_CODES } from "../../limits";
import type { BillingView } from "../../ops/billing.ops";
import { DataTable } from "../components/DataTable";
import { Stat } from "../components/Stat";
import { Badge, Empty, Layout, n, type OrgNav, Time, type Viewer } from "./layout";

const money = (cents: number | null | undefined, currency = "usd") =>
  cents === null || cents === undefined ? "—" : `$${(cents / 100).toFixed(2)}${currency.toLowerCase() === "usd" ? "" : ` ${currency.toUpperCase()}`}`;

const PLAN_WORDS: Record<Plan, string> = {
  pro: "Pro: each covered site licensed separately, 250,000 characters per site a month",
  agency: "Agency: up to 10 sites, 2,000,000 characters a month, pooled",
  growth: "Growth: up to 25 sites, 5,000,000 characters a month, pooled",
  scale: "Scale: unlimited sites and characters",
};

const STATUS_BADGE: Record<string, string> = { active: "ok", paused: "stale", canceled: "missing" };

function paymentWords(v: BillingView) {
  if (v.managedBy !== "stripe") return null;
  switch (v.stripeStatus) {
    case "past_due":
      return `Payment failed on ${v.pastDueSince?.slice(0, 10)}: update the payment method within 7 days of that date, or translation stops.`;
    case "unpaid":
      return "Unpaid: translation is stopped until the open invoice is paid.";
    case "incomplete":
      return "Waiting for the first payment.";
    case "trialing":
      return "Trial.";
    default:
      return "Paid by card through Stripe.";
  }
}

export interface SiteChoice {
  plan: Plan;
  limit: number;
  covered: number[];
}

export function BillingPage(p: { nav: OrgNav; viewer: Viewer; view: BillingView; notice?: string | null; error?: string | null; choose?: SiteChoice | null }) {
  const v = p.view;
  const base = `/dashboard/organizations/${p.nav.organizationId}/billing`;
  const owner = p.nav.role === "owner";
  const stripe = v.provider === "stripe";
  const live = v.managedBy === "stripe" && v.status !== null && v.status !== "canceled" && v.stripeStatus !== "incomplete_expired";
  const canSubscribe = stripe && owner && v.managedBy !== "manual" && !live;
  const offered = PLAN_CODES.filter((plan) => v.prices[plan]);
  const u = v.usage;
  const pro = v.plan === "pro";
  const planPrice = v.plan ? v.prices[v.plan] : undefined;
  const coveredCount = v.sites.filter((s) => s.covered).length;
  return (
    <Layout title={`Billing · ${p.nav.organization}`} viewer={p.viewer} org={p.nav} notice={p.notice} error={p.error ?? v.stripeError}>
      <h1>Billing</h1>
      {!owner ? <p class="muted">Only owners change billing; you can read it here.</p> : null}
      {v.managedBy === "manual" || (!stripe && v.managedBy === null) ? (
        <p class="notice" role="note">
          {v.managedBy === "manual"
            ? "The service's operator manages this subscription (plan, covered sites and invoices). Contact them to change it."
            : "Subscriptions on this service are set up by its operator. Contact them to subscribe."}
        </p>
      ) : null}

      <div class="stats">
        <Stat
          label="Plan"
          valueId="plan"
          value={v.plan ?? "None"}
          note={
            <>
              {v.status ? <Badge state={STATUS_BADGE[v.status] ?? v.status} label={v.status} /> : "no subscription"}
              {v.cancelAtPeriodEnd && v.currentPeriodEnd ? <> · ends on {v.currentPeriodEnd.slice(0, 10)}</> : null}
            </>
          }
        />
        <Stat
          label="Price"
          value={planPrice ? money(pro ? (planPrice.cents ?? 0) * Math.max(1, coveredCount) : planPrice.cents, planPrice.currency) : "—"}
          note={
            planPrice
              ? pro
                ? `a month for ${coveredCount} site${coveredCount === 1 ? "" : "s"} at ${money(planPrice.cents)} each`
                : "a month"
              : stripe
                ? ""
                : "as agreed with the operator"
          }
        />
        <Stat
          label="Next invoice"
          value={v.upcoming ? money(v.upcoming.amountDue, v.upcoming.currency) : "—"}
          note={v.upcoming?.periodEnd ? <>estimate, on {v.upcoming.periodEnd.slice(0, 10)}, plus this month's overage</> : "estimate"}
        />
      </div>
      {paymentWords(v) ? <p>{paymentWords(v)}</p> : null}

      <section class="card" aria-labelledby="this-month">
        <h2 id="this-month">This month ({u.month})</h2>
        <div class="stats">
          <Stat label="Used" value={n(u.used_characters)} note="characters" />
          <Stat label="Included" value={v.plan === null ? "—" : u.included_characters === null ? "Unmetered" : n(u.included_characters)} note="characters" />
          <Stat label="Overage so far" value={n(u.overage_characters)} note={<>{money(u.overage_cents, u.currency)}, billed after the month</>} />
        </div>
        <p class="small">
          <a href={`/dashboard/organizations/${p.nav.organizationId}/usage`}>Usage per day and per site</a>
        </p>
      </section>

      {canSubscribe ? (
        <section class="card" aria-labelledby="choose">
          <h2 id="choose">Choose a plan</h2>
          {offered.length ? (
            <form method="post" action={`${base}/checkout`}>
              <fieldset>
                <legend>Plan</legend>
                {offered.map((plan, i) => (
                  <label class="choice">
                    <input type="radio" name="plan" value={plan} checked={i === 0} /> {PLAN_WORDS[plan]} — {money(v.prices[plan]!.cents)} a month{plan === "pro" ? " per site" : ""}
                  </label>
                ))}
              </fieldset>
              <button type="submit">Choose a plan</button> <span class="muted small">You pay on Stripe's page and come back here.</span>
            </form>
          ) : (
            <Empty title="No plan is offered yet." />
          )}
        </section>
      ) : null}

      {p.choose ? (
        <section class="card" aria-labelledby="keep">
          <h2 id="keep">Which sites stay covered?</h2>
          <p>
            The {p.choose.plan} plan covers at most {p.choose.limit} sites; {p.choose.covered.length} are covered now. Choose up to {p.choose.limit}; the others answer "not
            covered" to their connectors.
          </p>
          <form method="post" action={`${base}/plan`}>
            <input type="hidden" name="plan" value={p.choose.plan} />
            <input type="hidden" name="choosing" value="1" />
            <fieldset>
              <legend>Sites to keep</legend>
              {v.sites
                .filter((s) => p.choose!.covered.includes(s.id))
                .map((s, i) => (
                  <label class="choice">
                    <input type="checkbox" name="keep" value={String(s.id)} checked={i < p.choose!.limit} /> {s.name}
                  </label>
                ))}
            </fieldset>
            <button type="submit">Change to {p.choose.plan}</button>
          </form>
        </section>
      ) : null}

      {live && owner && stripe ? (
        <section class="card" aria-labelledby="change">
          <h2 id="change">Change plan</h2>
          <form method="post" action={`${base}/plan`} class="inline">
            <div>
              <label for="new-plan">New plan</label>
              <select id="new-plan" name="plan">
                {offered.map((plan) => (
                  <option value={plan} selected={plan === v.plan}>
                    {plan} — {money(v.prices[plan]!.cents)}
                    {plan === "pro" ? " per site" : ""}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit">Change plan</button>
          </form>
          <p class="muted small">Upgrades and downgrades are prorated on the next invoice.</p>
        </section>
      ) : null}

      <section class="card" aria-labelledby="sites">
        <h2 id="sites">Covered sites</h2>
        <p class="muted small">
          {v.plan === null
            ? "No subscription covers the sites yet."
            : v.siteLimit === null
              ? "The plan covers every site."
              : pro
                ? `Each covered site is one licence (${v.siteLimit} now).`
                : `The plan covers up to ${v.siteLimit} sites.`}
          {v.plan ? ` ${PLANS[v.plan].perSite ? "Usage is counted per site." : "Usage is pooled across covered sites."}` : ""}
        </p>
        {v.sites.length ? (
          live && owner && stripe ? (
            <form method="post" action={`${base}/sites`}>
              <fieldset>
                <legend>Sites the subscription covers</legend>
                {v.sites.map((s) => (
                  <label class="choice">
                    <input type="checkbox" name="site" value={String(s.id)} checked={s.covered} /> {s.name}
                  </label>
                ))}
              </fieldset>
              <button type="submit" class="secondary">
                Save covered sites
              </button>
              {pro ? <span class="muted small"> Adding or removing a site changes the licences, prorated.</span> : null}
            </form>
          ) : (
            <DataTable
              columns={["Site", "Covered"]}
              rows={v.sites}
              row={(s) => (
                <tr>
                  <td>{s.name}</td>
                  <td>{s.covered ? <Badge state="ok" label="Covered" /> : <Badge state="missing" label="Not covered" />}</td>
                </tr>
              )}
            />
          )
        ) : (
          <Empty title="The organization has no sites yet." />
        )}
      </section>

      {stripe && v.managedBy !== "manual" ? (
        <section class="card" aria-labelledby="invoices">
          <h2 id="invoices">Invoices and payment</h2>
          <DataTable
            columns={["Invoice", "Date", "Status", { label: "Total", class: "num" }]}
            rows={v.invoices}
            empty={<p class="muted">No invoices yet.</p>}
            row={(inv) => (
              <tr>
                <td>{inv.url ? <a href={inv.url}>{inv.number ?? inv.id}</a> : (inv.number ?? inv.id)}</td>
                <td>
                  <Time at={inv.created} />
                </td>
                <td>{inv.status ?? "—"}</td>
                <td class="num">{money(inv.total, inv.currency)}</td>
              </tr>
            )}
          />
          {owner && (live || v.invoices.length) ? (
            <form method="post" action={`${base}/portal`} class="inline">
              <button type="submit" class="secondary">
                Payment method and invoices
              </button>
              <span class="muted small">Opens Stripe's customer portal.</span>
            </form>
          ) : null}
        </section>
      ) : null}

      {live && owner && stripe ? (
        <section class="card" aria-labelledby="cancel">
          <h2 id="cancel">{v.cancelAtPeriodEnd ? "Resume" : "Cancel"}</h2>
          {v.cancelAtPeriodEnd ? (
            <form method="post" action={`${base}/resume`}>
              <p>The subscription ends on {v.currentPeriodEnd?.slice(0, 10) ?? "the period's end"}. Resume it to keep translating after that.</p>
              <button type="submit">Resume the subscription</button>
            </form>
          ) : (
            <form method="post" action={`${base}/cancel`}>
              <p>Translation keeps working until {v.currentPeriodEnd?.slice(0, 10) ?? "the period's end"}; then the subscription ends. You can resume until then.</p>
              <button type="submit" class="danger">
                Cancel at the period's end
              </button>
            </form>
          )}
        </section>
      ) : null}
    </Layout>
  );
}

/// <reference types="vite/client" />
/**
 * Every audit action (src/control/audit.control.ts `AUDIT_ACTIONS`) is produced by a call here and read
 * back from the log with its actor and target; an action added to the list without a row here
 * fails the first test. The billing actions need the Stripe-configured pool: their rows name the
 * test file of the billing project that produces and asserts them (checked to mention them).
 *
 * Also here: the dashboard routes no other test called (glossary term removal, job cancel,
 * units/open, the new-site form).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { AUDIT_ACTIONS, type AuditAction } from "../../src/control/audit.control";
import { totpCode } from "../../src/control/totp.control";
import { fingerprint } from "../../src/site/fingerprint";
import { admin, client, createSite, type TestSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { job } from "../helpers/jobs";
import { mailsTo, tokenIn } from "../helpers/mail";

type Person = Awaited<ReturnType<typeof person>>;

let site: TestSite;
let owner: Person;
let ownerId: number;
const c = () => client(site.key);
const base = () => `/dashboard/sites/${site.siteId}`;
const orgBase = () => `/dashboard/organizations/${site.orgId}`;
const userId = async (email: string) => (await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first<{ id: number }>())!.id;

interface Logged {
  actor: string;
  target: string;
  organization_id: number | null;
  detail: string | null;
}
/** The log's entries for an action, newest first. */
const logged = async (action: AuditAction) =>
  (await env.DB.prepare("SELECT actor, target, organization_id, detail FROM audit_log WHERE action = ? ORDER BY id DESC").bind(action).all<Logged>()).results;

const ok = (res: { status: number }, ...statuses: number[]) => expect(statuses.length ? statuses : [200, 201, 204, 303]).toContain(res.status);

const tmx = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n<header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/>\n<body>\n${body}</body>\n</tmx>\n`;
const upload = (xml: string) => {
  const f = new FormData();
  f.append("file", new File([xml], "m.tmx"));
  return f;
};
const memoryKey = { source_fingerprint: fingerprint("Read more"), source_language: "en", target_language: "de" };

/** Held back by max_length (pseudo output grows past 12 characters): the review queue's item id. */
let held = 0;
async function heldItem() {
  const key = `post:held${++held}`;
  ok(await c().put("/v1/units", unit(key, [{ key: "title", text: `Hello held world ${held}`, max_length: 12 }])));
  await job(c(), site.siteId);
  return (await c().get("/v1/attention")).body.items.find((i: { unit: string }) => i.unit === key).id as string;
}

/** A named operator's token (ADMIN_TOKENS, as admin-tokens.test.ts sets it): the audit should name them `admin:alice`. */
const ALICE = "alice-token-0123456789abcdefghijklmnop";
async function asAlice(method: string, path: string, body?: unknown) {
  const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(ALICE)))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`https://api.test${path}`, {
      method,
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/json", "cf-connecting-ip": `198.51.100.${Math.floor(Math.random() * 250)}` },
      body: body ? JSON.stringify(body) : undefined,
    }),
    { ...env, ADMIN_TOKENS: JSON.stringify({ alice: digest }) } as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

interface Row {
  /** Produces the action once; answers the expected entry (actor and target at least). */
  produce: () => Promise<Partial<Logged>>;
}

const you = () => `user:${ownerId}`;
const onSite = () => ({ actor: you(), target: `site:${site.siteId}`, organization_id: site.orgId });
const onOrg = () => ({ actor: you(), target: `organization:${site.orgId}`, organization_id: site.orgId });

const ROWS: Partial<Record<AuditAction, Row>> = {
  "organization.create": {
    async produce() {
      const org = await admin("POST", "/admin/v1/organizations", { name: "Audited org" });
      return { actor: "admin", target: `organization:${org.body.id}` };
    },
  },
  "organization.erase": {
    async produce() {
      const other = await createSite();
      ok(await admin("DELETE", `/admin/v1/organizations/${other.orgId}`));
      return { actor: "admin", target: `organization:${other.orgId}` };
    },
  },
  // On an organization of their own: requiring two-factor sends its owner to set it up first.
  "organization.require_two_factor": {
    async produce() {
      const o = await ownOrganization();
      ok(await dash("POST", `/dashboard/organizations/${o.orgId}/two-factor`, { cookie: o.owner.cookie, form: { required: "1" } }));
      return { actor: `user:${o.ownerId}`, target: `organization:${o.orgId}` };
    },
  },
  "organization.allow_without_two_factor": {
    async produce() {
      const o = await ownOrganization();
      ok(await dash("POST", `/dashboard/organizations/${o.orgId}/two-factor`, { cookie: o.owner.cookie, form: { required: "0" } }));
      return { actor: `user:${o.ownerId}`, target: `organization:${o.orgId}` };
    },
  },
  "site.create": {
    async produce() {
      // The new-site form (the organization has a site already: a redirect to the new one).
      const res = await dash("POST", `${orgBase()}/sites`, { cookie: owner.cookie, form: { name: "Formed site", source_language: "en", t0_code: "fr", t0_engine: "pseudo" } });
      expect(res.status).toBe(303);
      const id = Number(/\/dashboard\/sites\/(\d+)\?done=site-created/.exec(res.location ?? "")?.[1]);
      expect(id).toBeGreaterThan(0);
      return { actor: you(), target: `site:${id}` };
    },
  },
  "site.update": {
    async produce() {
      ok(await admin("PATCH", `/admin/v1/sites/${site.siteId}`, { name: "Audited site" }));
      return { actor: "admin", target: `site:${site.siteId}` };
    },
  },
  "site.erase": {
    async produce() {
      const other = await createSite({ orgId: site.orgId, handshake: false });
      ok(await admin("DELETE", `/admin/v1/sites/${other.siteId}`));
      return { actor: "admin", target: `site:${other.siteId}` };
    },
  },
  "key.create": {
    async produce() {
      ok(await dash("POST", `${base()}/keys`, { cookie: owner.cookie, form: { name: "audited" } }));
      return onSite();
    },
  },
  "key.revoke": {
    async produce() {
      const key = await admin("POST", `/admin/v1/sites/${site.siteId}/keys`, { name: "to revoke" });
      ok(await dash("POST", `${base()}/keys/${key.body.id}/revoke`, { cookie: owner.cookie }));
      return { ...onSite(), detail: JSON.stringify({ key_id: key.body.id }) };
    },
  },
  "glossary.replace": {
    async produce() {
      ok(await admin("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [{ source: "Checkout", language: "de", target: "Kasse" }] }));
      return { actor: "admin", target: `organization:${site.orgId}` };
    },
  },
  "glossary.add": {
    async produce() {
      ok(await dash("POST", `${base()}/glossary`, { cookie: owner.cookie, form: { source: "Cart", language: "de", target: "Warenkorb" } }));
      return onOrg();
    },
  },
  "glossary.remove": {
    async produce() {
      // The dashboard's term removal: the term is gone from the page and from the glossary.
      ok(await dash("POST", `${base()}/glossary`, { cookie: owner.cookie, form: { source: "Wishlist", language: "de", target: "Wunschzettel" } }));
      const termId = (await env.DB.prepare("SELECT id FROM glossary_terms WHERE organization_id = ? AND source = 'Wishlist'").bind(site.orgId).first<{ id: number }>())!.id;
      const res = await dash("POST", `${base()}/glossary/${termId}/remove`, { cookie: owner.cookie });
      expect(res.location).toBe(`${base()}/glossary?done=term-removed`);
      expect((await dash("GET", `${base()}/glossary`, { cookie: owner.cookie })).html).not.toContain("Wunschzettel");
      expect(await env.DB.prepare("SELECT id FROM glossary_terms WHERE id = ?").bind(termId).first()).toBeNull();
      // Removing it again: there is no such term.
      expect((await dash("POST", `${base()}/glossary/${termId}/remove`, { cookie: owner.cookie })).status).toBe(404);
      return { ...onOrg(), detail: JSON.stringify({ source: "Wishlist", language: "de" }) };
    },
  },
  "invitation.create": {
    async produce() {
      ok(await dash("POST", `${orgBase()}/members/invite`, { cookie: owner.cookie, form: { email: "audited-invite@example.com", role: "editor" } }));
      return { actor: you(), organization_id: site.orgId };
    },
  },
  "invitation.resend": {
    async produce() {
      const inv = await admin("POST", `/admin/v1/organizations/${site.orgId}/invitations`, { email: "audited-resend@example.com", role: "editor" });
      ok(await dash("POST", `${orgBase()}/members/invitations/${inv.body.id}/resend`, { cookie: owner.cookie }));
      return { actor: you(), target: `invitation:${inv.body.id}` };
    },
  },
  "invitation.revoke": {
    async produce() {
      const inv = await admin("POST", `/admin/v1/organizations/${site.orgId}/invitations`, { email: "audited-revoke@example.com", role: "editor" });
      ok(await dash("POST", `${orgBase()}/members/invitations/${inv.body.id}/revoke`, { cookie: owner.cookie }));
      return { actor: you(), target: `invitation:${inv.body.id}` };
    },
  },
  "invitation.accept": {
    async produce() {
      const p = await person(site.orgId, "editor");
      return { actor: `user:${await userId(p.email)}`, organization_id: site.orgId };
    },
  },
  "member.remove": {
    async produce() {
      const p = await person(site.orgId, "editor");
      const id = await userId(p.email);
      ok(await dash("POST", `${orgBase()}/members/${id}/remove`, { cookie: owner.cookie }));
      return { actor: you(), target: `user:${id}` };
    },
  },
  "job.create": {
    async produce() {
      ok(await c().put("/v1/units", unit("post:job", [{ key: "title", text: "A job's text" }])));
      ok(await dash("POST", `${base()}/jobs`, { cookie: owner.cookie, form: { languages: "de" } }));
      return onSite();
    },
  },
  "job.cancel": {
    async produce() {
      // The dashboard's cancel (planted bug 5: not audited): the job is cancelled and the owner named.
      ok(await c().put("/v1/units", unit("post:cancel", [{ key: "title", text: "A job to cancel" }])));
      const queued = (await c().post("/v1/jobs", { confirm: true })).body;
      expect(queued.status).toBe("queued");
      const res = await dash("POST", `${base()}/jobs/${queued.id}/cancel`, { cookie: owner.cookie });
      expect(res.location).toBe(`${base()}?done=job-cancelled`);
      expect((await c().get(`/v1/jobs/${queued.id}`)).body.status).toBe("cancelled");
      expect((await dash("POST", `${base()}/jobs/999999/cancel`, { cookie: owner.cookie })).status).toBe(404);
      return { ...onSite(), detail: JSON.stringify({ job_id: queued.id }) };
    },
  },
  "attention.fix": {
    async produce() {
      const id = await heldItem();
      ok(await dash("POST", `${base()}/attention/${id}`, { cookie: owner.cookie, form: { action: "fix", text: "Kurz" } }));
      return { ...onSite(), detail: JSON.stringify({ result_id: id }) };
    },
  },
  "attention.discard": {
    async produce() {
      const id = await heldItem();
      ok(await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${id}`, { action: "discard" }));
      return { actor: "admin", target: `site:${site.siteId}`, detail: JSON.stringify({ result_id: id }) };
    },
  },
  "memory.import": {
    async produce() {
      const xml = tmx('<tu><tuv xml:lang="en"><seg>Read more</seg></tuv><tuv xml:lang="de"><seg>Weiterlesen</seg></tuv></tu>\n');
      ok(await dash("POST", `${base()}/memory/import`, { cookie: owner.cookie, form: upload(xml) }));
      return onSite();
    },
  },
  "memory.edit": {
    async produce() {
      ok(await dash("POST", `${base()}/memory/entry`, { cookie: owner.cookie, form: { ...memoryKey, text: "Mehr lesen" } }));
      return onSite();
    },
  },
  "memory.export": {
    async produce() {
      ok(await dash("GET", `${base()}/memory.tmx`, { cookie: owner.cookie }));
      return { ...onSite(), detail: JSON.stringify({ pairs: "all" }) };
    },
  },
  "memory.delete": {
    async produce() {
      ok(await dash("POST", `${base()}/memory/delete`, { cookie: owner.cookie, form: memoryKey }));
      return onSite();
    },
  },
  "webhook.put": {
    async produce() {
      ok(await dash("POST", `${base()}/webhooks`, { cookie: owner.cookie, form: { url: "https://hooks.example.test/audit", events: "job.finished" } }));
      return onSite();
    },
  },
  "webhook.rotate": {
    async produce() {
      ok(await dash("POST", `${base()}/webhooks/rotate`, { cookie: owner.cookie }));
      return onSite();
    },
  },
  "webhook.enable": {
    async produce() {
      ok(await dash("POST", `${base()}/webhooks/enable`, { cookie: owner.cookie }));
      return onSite();
    },
  },
  "webhook.redeliver": {
    async produce() {
      const id = "msg_0123456789abcdef0123456789abcdef";
      await env.DB.prepare("INSERT INTO webhook_deliveries (id, site_id, event, payload, created_at, attempts, status) VALUES (?, ?, 'ping', '{}', ?, 1, 'failed')")
        .bind(id, site.siteId, new Date().toISOString())
        .run();
      ok(await dash("POST", `${base()}/webhooks/deliveries/${id}/redeliver`, { cookie: owner.cookie }));
      return { ...onSite(), detail: JSON.stringify({ delivery: id }) };
    },
  },
  "webhook.delete": {
    async produce() {
      ok(await dash("POST", `${base()}/webhooks/delete`, { cookie: owner.cookie }));
      return onSite();
    },
  },
  "subscription.update": {
    async produce() {
      ok(await admin("PUT", `/admin/v1/organizations/${site.orgId}/subscription`, { plan: "scale", status: "active", site_ids: [site.siteId] }));
      return { actor: "admin", target: `organization:${site.orgId}` };
    },
  },
  "subscription.delete": {
    async produce() {
      const other = await createSite();
      ok(await admin("DELETE", `/admin/v1/organizations/${other.orgId}/subscription`));
      return { actor: "admin", target: `organization:${other.orgId}` };
    },
  },
  "user.sign_up": {
    async produce() {
      const email = `audited-signup-${Date.now()}@example.com`;
      ok(await dash("POST", "/dashboard/sign-up", { form: { name: "Audited", email } }));
      // The account is made after the answer; its verification mail is the signal that it exists.
      await mailsTo(email, 1, "verify");
      const id = await userId(email);
      return { actor: `user:${id}`, target: `user:${id}`, organization_id: null };
    },
  },
  "user.password_change": {
    async produce() {
      const p = await person(site.orgId, "editor");
      ok(await dash("POST", "/dashboard/account/password", { cookie: p.cookie, form: { current_password: p.password, new_password: "another long enough password" } }));
      const id = await userId(p.email);
      return { actor: `user:${id}`, target: `user:${id}`, organization_id: null };
    },
  },
  "user.password_reset": {
    async produce() {
      const p = await person(site.orgId, "editor");
      ok(await dash("POST", "/dashboard/forgot", { form: { email: p.email } }));
      const [mail] = await mailsTo(p.email, 1, "reset");
      ok(await dash("POST", "/dashboard/reset", { form: { token: tokenIn(mail.text, "reset"), new_password: "a brand new long password" } }));
      const id = await userId(p.email);
      return { actor: `user:${id}`, target: `user:${id}`, organization_id: null };
    },
  },
  "user.session_end": {
    async produce() {
      const p = await person(site.orgId, "editor");
      const id = await userId(p.email);
      const signedIn = await dash("POST", "/dashboard/sign-in", { form: { email: p.email, password: p.password } });
      expect(signedIn.cookie).toBeTruthy();
      const other = (await env.DB.prepare("SELECT token_hash FROM sessions WHERE user_id = ? ORDER BY created_at DESC, token_hash").bind(id).all<{ token_hash: string }>()).results;
      ok(await dash("POST", `/dashboard/account/sessions/${other[0].token_hash.slice(0, 16)}/end`, { cookie: p.cookie }));
      return { actor: `user:${id}`, target: `user:${id}`, organization_id: null };
    },
  },
  "user.sessions_end_others": {
    async produce() {
      const p = await person(site.orgId, "editor");
      ok(await dash("POST", "/dashboard/account/sessions/end-others", { cookie: p.cookie }));
      const id = await userId(p.email);
      return { actor: `user:${id}`, target: `user:${id}`, organization_id: null };
    },
  },
  "user.two_factor_on": {
    async produce() {
      const p = await twoFactorPerson();
      return { actor: `user:${p.id}`, target: `user:${p.id}`, organization_id: null };
    },
  },
  "user.recovery_code_used": {
    async produce() {
      const p = await twoFactorPerson();
      const { checkSecondFactor } = await import("../../src/ops/two-factor.ops");
      expect(await checkSecondFactor(env, p.id, p.codes[0])).toBe("recovery");
      return { actor: `user:${p.id}`, target: `user:${p.id}`, organization_id: null };
    },
  },
  "user.two_factor_off": {
    async produce() {
      const p = await twoFactorPerson();
      const { disableTwoFactor } = await import("../../src/ops/two-factor.ops");
      await disableTwoFactor(
        env,
        { userId: p.id, email: p.email, tokenHash: "" },
        { password: p.password, code: totpCode(p.secret, Date.now()), network: "192.0.2.1" },
        "https://dash.test",
      );
      return { actor: `user:${p.id}`, target: `user:${p.id}`, organization_id: null };
    },
  },
  "user.two_factor_reset": {
    async produce() {
      const p = await twoFactorPerson();
      const { beginTwoFactor, confirmTwoFactor } = await import("../../src/ops/two-factor.ops");
      const { setup, secret } = await beginTwoFactor(env, p.id);
      await confirmTwoFactor(
        env,
        { userId: p.id, email: p.email, tokenHash: "" },
        setup,
        totpCode(secret, Date.now()),
        { password: p.password, currentCode: p.codes[0], network: "192.0.2.1" },
        "https://dash.test",
      );
      return { actor: `user:${p.id}`, target: `user:${p.id}`, organization_id: null };
    },
  },
  "user.verify": {
    async produce() {
      const email = `audited-verify-${Date.now()}@example.com`;
      ok(await dash("POST", "/dashboard/sign-up", { form: { name: "Audited", email } }));
      const [mail] = await mailsTo(email, 1, "verify");
      ok(await dash("POST", "/dashboard/verify", { form: { token: tokenIn(mail.text, "verify"), name: "Audited", password: "a long enough password" } }));
      const id = await userId(email);
      return { actor: `user:${id}`, target: `user:${id}`, organization_id: null };
    },
  },
  "user.sign_in_paused": {
    async produce() {
      const p = await person(site.orgId, "editor");
      const id = await userId(p.email);
      const { notePasswordFailure } = await import("../../src/ops/lockout.ops");
      for (let i = 0; i < 10; i++) await notePasswordFailure(env, { id, email: p.email, emailVerifiedAt: "2026-01-01" }, "192.0.2.10", "https://dash.test", new Date());
      return { actor: `user:${id}`, target: `user:${id}`, organization_id: null, detail: JSON.stringify({ kind: "password" }) };
    },
  },
  "user.unlock": {
    async produce() {
      const p = await person(site.orgId, "editor");
      const id = await userId(p.email);
      const { notePasswordFailure } = await import("../../src/ops/lockout.ops");
      for (let i = 0; i < 10; i++) await notePasswordFailure(env, { id, email: p.email, emailVerifiedAt: "2026-01-01" }, "192.0.2.11", "https://dash.test", new Date());
      const [mail] = await mailsTo(p.email, 1, "lockout");
      // The link signs the owner in once, with the password.
      ok(await dash("POST", "/dashboard/unlock", { form: { token: tokenIn(mail.text, "unlock"), password: p.password } }));
      return { actor: `user:${id}`, target: `user:${id}`, organization_id: null };
    },
  },
  "person.erase": {
    async produce() {
      const p = await person(site.orgId, "editor");
      const id = await userId(p.email);
      ok(await admin("DELETE", `/admin/v1/users/${id}`));
      return { actor: "admin", target: `user:${id}`, organization_id: site.orgId };
    },
  },
  // The on-call actions, by a named operator (ADMIN_TOKENS): the row names them (planted bug: the constant `admin`).
  "key.lookup": {
    async produce() {
      ok(await asAlice("POST", "/admin/v1/keys/lookup", { key: site.key }));
      return { actor: "admin:alice", organization_id: site.orgId };
    },
  },
  "site.suspend": {
    async produce() {
      const other = await createSite();
      ok(await asAlice("POST", `/admin/v1/sites/${other.siteId}/suspend`, { reason: "audited" }));
      return { actor: "admin:alice", target: `site:${other.siteId}` };
    },
  },
  "site.resume": {
    async produce() {
      const other = await createSite();
      ok(await admin("POST", `/admin/v1/sites/${other.siteId}/suspend`, { reason: "audited" }));
      ok(await asAlice("DELETE", `/admin/v1/sites/${other.siteId}/suspend`));
      return { actor: "admin:alice", target: `site:${other.siteId}` };
    },
  },
  // The month closed by hand (planted bug: no row at all).
  "billing.close": {
    async produce() {
      ok(await asAlice("POST", "/admin/v1/billing/close?month=2020-01"));
      return { actor: "admin:alice", target: "month:2020-01", organization_id: null };
    },
  },
  // The operator reading a customer's texts (planted bug: no row); the row holds a count, never a text.
  "attention.read": {
    async produce() {
      await heldItem();
      const page = await asAlice("GET", `/admin/v1/sites/${site.siteId}/attention`);
      ok(page);
      const items = (page.body as { items: unknown[] }).items.length;
      expect(items).toBeGreaterThan(0);
      return { actor: "admin:alice", target: `site:${site.siteId}`, organization_id: site.orgId, detail: JSON.stringify({ items }) };
    },
  },
};

/** Actions produced and asserted (actor, target) by a test file of their own, which needs a seam this file does not set up. */
const ELSEWHERE_ROWS: Partial<Record<AuditAction, string>> = {
  "site.restore": "lifecycle/restore.test.ts",
};
const elsewhereSources = import.meta.glob("../lifecycle/restore.test.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** Actions the Stripe-configured pool (vitest project `billing`) produces and asserts, and where. */
const BILLING_ROWS: Partial<Record<AuditAction, string>> = {
  "billing.checkout": "page.test.ts",
  "billing.plan_change": "page.test.ts",
  "billing.sites": "page.test.ts",
  "billing.portal": "page.test.ts",
  "billing.cancel": "page.test.ts",
  "billing.resume": "page.test.ts",
  "subscription.sync": "webhooks.test.ts",
  "organization.credit": "credits.test.ts",
};
const billingSources = import.meta.glob("../billing/*.test.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

async function ownOrganization() {
  const { orgId } = await createSite();
  const o = await person(orgId, "owner");
  return { orgId, owner: o, ownerId: await userId(o.email) };
}

/** A person with two-factor on (through the operations the account page calls): id, secret and recovery codes. */
async function twoFactorPerson() {
  const { beginTwoFactor, confirmTwoFactor } = await import("../../src/ops/two-factor.ops");
  const p = await person(site.orgId, "editor");
  const id = await userId(p.email);
  const { setup, secret } = await beginTwoFactor(env, id);
  // A code of the previous 30-second window, so that the code of the current one is still unused (two_factor_off needs one).
  const before = new Date(Date.now() - 30_000);
  const codes = await confirmTwoFactor(
    env,
    { userId: id, email: p.email, tokenHash: "" },
    setup,
    totpCode(secret, before.getTime()),
    { password: p.password, currentCode: "", network: "192.0.2.1" },
    "https://dash.test",
    before,
  );
  return { id, email: p.email, password: p.password, secret, codes };
}

beforeAll(async () => {
  site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
  owner = await person(site.orgId, "owner");
  ownerId = await userId(owner.email);
});

describe("every audit action", () => {
  it("has a row here or in the billing project", () => {
    const rows = [...Object.keys(ROWS), ...Object.keys(BILLING_ROWS), ...Object.keys(ELSEWHERE_ROWS)].sort();
    expect(rows).toEqual([...AUDIT_ACTIONS].sort());
  });

  it.each(Object.entries(ELSEWHERE_ROWS))("%s is produced and asserted in test/%s", (action, file) => {
    const source = Object.entries(elsewhereSources).find(([path]) => path.endsWith(file.split("/").pop()!))?.[1];
    expect(source).toContain(`"${action}"`);
  });

  it.each(Object.entries(BILLING_ROWS))("%s is produced and asserted in test/billing/%s", (action, file) => {
    expect(billingSources[`../billing/${file}`]).toContain(`"${action}"`);
  });

  // In the table's order: the webhook is put before it is rotated, the memory imported before it is edited.
  it.each((Object.keys(ROWS) as AuditAction[]).map((a) => [a] as const))("%s is recorded with its actor and target", async (action) => {
    const before = (await logged(action)).length;
    const expected = await ROWS[action]!.produce();
    const after = await logged(action);
    expect(after.length, action).toBe(before + 1);
    expect(after[0]).toMatchObject(expected);
  });
});

describe("a named operator", () => {
  it("is named on the row of every admin action, the on-call ones included (job cancel, key look-up, suspend, resume)", async () => {
    ok(await c().put("/v1/units", unit("post:alice-cancel", [{ key: "title", text: "A job an operator cancels" }])));
    const queued = (await c().post("/v1/jobs", { confirm: true })).body;
    const other = await createSite({ orgId: site.orgId, handshake: false });
    const calls: [AuditAction, () => Promise<{ status: number }>][] = [
      ["job.cancel", () => asAlice("POST", `/admin/v1/sites/${site.siteId}/jobs/${queued.id}/cancel`, { reason: "Cancelled by Alice" })],
      ["key.lookup", () => asAlice("POST", "/admin/v1/keys/lookup", { key: site.key })],
      ["site.suspend", () => asAlice("POST", `/admin/v1/sites/${other.siteId}/suspend`, { reason: "named" })],
      ["site.resume", () => asAlice("DELETE", `/admin/v1/sites/${other.siteId}/suspend`)],
      ["site.update", () => asAlice("PATCH", `/admin/v1/sites/${other.siteId}`, { name: "Renamed by Alice" })],
      ["key.create", () => asAlice("POST", `/admin/v1/sites/${other.siteId}/keys`, { name: "by alice" })],
      ["glossary.replace", () => asAlice("PUT", `/admin/v1/organizations/${site.orgId}/glossary`, { terms: [] })],
      ["billing.close", () => asAlice("POST", "/admin/v1/billing/close?month=2020-02")],
      ["attention.read", () => asAlice("GET", `/admin/v1/sites/${other.siteId}/attention`)],
    ];
    for (const [action, call] of calls) {
      ok(await call());
      expect((await logged(action))[0]?.actor, action).toBe("admin:alice");
    }
  });
});

describe("the dashboard routes no other test called", () => {
  it("units/open leads to the unit's page (the key trimmed and escaped), for editors", async () => {
    ok(await c().put("/v1/units", unit("post:open-me", [{ key: "title", text: "Open me" }])));
    const editor = await person(site.orgId, "editor");
    const res = await dash("GET", `${base()}/units/open?key=${encodeURIComponent("  post:open-me ")}`, { cookie: editor.cookie });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${base()}/units/post%3Aopen-me`);
    const page = await dash("GET", res.location!, { cookie: editor.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain("Open me");
    const outsider = await person((await createSite()).orgId, "owner");
    expect((await dash("GET", `${base()}/units/open?key=x`, { cookie: outsider.cookie })).status).toBe(404);
  });

  it("the new-site form: shown to owners, refused input re-shown with the field named, editors refused", async () => {
    const form = await dash("GET", `${orgBase()}/sites/new`, { cookie: owner.cookie });
    expect(form.status).toBe(200);
    expect(form.html).toContain('name="source_language"');
    const refused = await dash("POST", `${orgBase()}/sites`, { cookie: owner.cookie, form: { name: "Refused site", source_language: "", t0_code: "fr" } });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain("source_language");
    expect(refused.html).toContain('value="Refused site"');
    const editor = await person(site.orgId, "editor");
    expect((await dash("GET", `${orgBase()}/sites/new`, { cookie: editor.cookie })).status).toBe(403);
    expect((await dash("POST", `${orgBase()}/sites`, { cookie: editor.cookie, form: { name: "x", source_language: "en", t0_code: "fr" } })).status).toBe(403);
  });
});

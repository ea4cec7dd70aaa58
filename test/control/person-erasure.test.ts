/**
 * Erasing one person (docs/decisions.md "Retention and erasure"): through the admin API and "Delete my
 * account"; their sessions, tokens, memberships, mails and address go, and the only owner of an
 * organization is refused. The daily clean-up removes what expired.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { meteredD1, QueryBudget } from "../../src/control/budget.control";
import { controlDb } from "../../src/control/db";
import { CLEANUP_PAGE, cleanUp } from "../../src/ops/cleanup.ops";
import { admin, createSite } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { mailsTo } from "../helpers/mail";

const idOf = async (email: string) => (await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first<{ id: number }>())?.id;
const count = async (query: string, ...binds: unknown[]) =>
  (await env.DB.prepare(query)
    .bind(...binds)
    .first<{ n: number }>())!.n;

describe("erasing a person", () => {
  it("DELETE /admin/v1/users/{id}: sessions, memberships, mails and their address in the audit log go; the only owner is refused", async () => {
    const site = await createSite();
    const owner = await person(site.orgId, "owner");
    const editor = await person(site.orgId, "editor");
    expect((await mailsTo(editor.email, 1)).length).toBeGreaterThan(0); // the invitation mail
    expect(await count("SELECT count(*) AS n FROM audit_log WHERE instr(detail, ?) > 0", editor.email)).toBeGreaterThan(0);
    expect((await dash("GET", "/dashboard/account", { cookie: editor.cookie })).status).toBe(200);
    const id = (await idOf(editor.email))!;
    // A wrong password counted for their account (sign_in_failures references the person).
    expect((await dash("POST", "/dashboard/sign-in", { form: { email: editor.email, password: "not the password" } })).status).toBe(401);
    for (let i = 0; i < 100 && (await count("SELECT count(*) AS n FROM sign_in_failures WHERE user_id = ?", id)) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await count("SELECT count(*) AS n FROM sign_in_failures WHERE user_id = ?", id)).toBe(1);

    expect((await admin("DELETE", `/admin/v1/users/${id}`)).status).toBe(204);
    expect(await count("SELECT count(*) AS n FROM sign_in_failures WHERE user_id = ?", id)).toBe(0);
    expect(await idOf(editor.email)).toBeUndefined();
    expect(await count("SELECT count(*) AS n FROM sessions WHERE user_id = ?", id)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM memberships WHERE user_id = ?", id)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM mail_outbox WHERE "to" = ?', editor.email)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM audit_log WHERE instr(detail, ?) > 0 OR instr(actor, ?) > 0", editor.email, editor.email)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM audit_log WHERE action = 'person.erase' AND target = ? AND organization_id = ?", `user:${id}`, site.orgId)).toBe(1);
    // Their session no longer opens the dashboard: it is sent to sign in.
    const gone = await dash("GET", "/dashboard/account", { cookie: editor.cookie });
    expect(gone.status).toBe(303);
    expect(gone.location).toBe(`/dashboard?next=${encodeURIComponent("/dashboard/account")}`);
    expect((await admin("DELETE", `/admin/v1/users/${id}`)).status).toBe(404);

    // The organization's only owner stays until another member is owner.
    const refused = await admin("DELETE", `/admin/v1/users/${await idOf(owner.email)}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/without an owner/);
    expect(await idOf(owner.email)).toBeDefined();
  });

  it("Delete my account on /dashboard/account: the typed address confirms; the person is signed out and gone", async () => {
    const site = await createSite();
    await person(site.orgId, "owner");
    const admin_ = await person(site.orgId, "admin");
    const wrong = await dash("POST", "/dashboard/account/delete", { cookie: admin_.cookie, form: { confirm_email: "someone@else.example" } });
    expect(wrong.status).toBe(422);
    expect(wrong.html).toContain("confirm_email");
    expect(await idOf(admin_.email)).toBeDefined();

    const done = await dash("POST", "/dashboard/account/delete", { cookie: admin_.cookie, form: { confirm_email: admin_.email.toUpperCase() } });
    expect(done.status).toBe(303);
    expect(done.location).toBe("/dashboard?done=account-deleted");
    expect(await idOf(admin_.email)).toBeUndefined();
    const signedOut = await dash("GET", "/dashboard/account", { cookie: admin_.cookie });
    expect(signedOut.status).toBe(303);
    expect(signedOut.location).toBe(`/dashboard?next=${encodeURIComponent("/dashboard/account")}`);

    // The only owner is told what to do instead.
    const solo = await createSite();
    const only = await person(solo.orgId, "owner");
    const refused = await dash("POST", "/dashboard/account/delete", { cookie: only.cookie, form: { confirm_email: only.email } });
    expect(refused.status).toBe(409);
    expect(refused.html).toMatch(/without an owner/);
  });
});

describe("the daily clean-up", () => {
  it("removes expired sessions, tokens and invitations, sign-in failure counts and mails older than 30 days and Stripe events older than 90 days; keeps the rest", async () => {
    const db = controlDb(env.DB);
    const now = new Date("2032-06-01T03:40:00Z");
    const site = await createSite();
    const p = await person(site.orgId, "editor");
    const uid = (await idOf(p.email))!;
    await env.DB.batch([
      env.DB.prepare("INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ('old-session', ?, '2032-05-01T00:00:00Z', '2032-05-15T00:00:00Z')").bind(uid),
      env.DB.prepare("INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ('live-session', ?, '2032-05-30T00:00:00Z', '2032-06-13T00:00:00Z')").bind(uid),
      env.DB.prepare(
        "INSERT INTO account_tokens (token_hash, purpose, user_id, created_at, expires_at) VALUES ('old-token', 'reset', ?, '2032-05-01T00:00:00Z', '2032-05-01T01:00:00Z')",
      ).bind(uid),
      env.DB.prepare(
        "INSERT INTO invitations (organization_id, email, role, token_hash, created_at, expires_at) VALUES (?, 'late@example.com', 'editor', 'old-invitation', '2032-05-01T00:00:00Z', '2032-05-08T00:00:00Z')",
      ).bind(site.orgId),
      env.DB.prepare(
        "INSERT INTO mail_outbox (kind, \"to\", subject, text, html, status, created_at) VALUES ('reset', 'old@example.com', 's', 't', 'h', 'outbox', '2032-04-01T00:00:00Z'), ('reset', 'new@example.com', 's', 't', 'h', 'outbox', '2032-05-20T00:00:00Z')",
      ),
      env.DB.prepare("INSERT INTO stripe_events (id, type, received_at) VALUES ('evt_old', 'x', '2032-01-01T00:00:00Z'), ('evt_new', 'x', '2032-05-01T00:00:00Z')"),
      env.DB.prepare(
        "INSERT INTO sign_in_failures (user_id, client, failures, last_at) VALUES (?, 'old-client', 3, '2032-04-30T00:00:00Z'), (?, 'new-client', 3, '2032-05-20T00:00:00Z')",
      ).bind(uid, uid),
    ]);
    const run = await cleanUp(db, now, new QueryBudget(800));
    expect(run.unfinished).toBe(false);
    expect(await count("SELECT count(*) AS n FROM sessions WHERE token_hash IN ('old-session', 'live-session')")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM sessions WHERE token_hash = 'live-session'")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM account_tokens WHERE token_hash = 'old-token'")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM invitations WHERE token_hash = 'old-invitation'")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM mail_outbox WHERE \"to\" IN ('old@example.com', 'new@example.com')")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM stripe_events WHERE id IN ('evt_old', 'evt_new')")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM stripe_events WHERE id = 'evt_new'")).toBe(1);
    // A network's wrong passwords are forgotten 30 days after the last one.
    expect(await count("SELECT count(*) AS n FROM sign_in_failures WHERE client IN ('old-client', 'new-client')")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM sign_in_failures WHERE client = 'new-client'")).toBe(1);

    // Bounded: with a budget of 3 queries the run stops and says so; the next one finishes.
    const small = new QueryBudget(3);
    expect((await cleanUp(controlDb(meteredD1(env.DB, small)), now, small)).unfinished).toBe(true);
    expect(small.used).toBeLessThanOrEqual(3);
  });

  it(`removes more than a page (CLEANUP_PAGE = ${CLEANUP_PAGE}) of each kind in one run: a full page is followed by the next`, async () => {
    const now = new Date("2033-06-01T03:40:00Z");
    const site = await createSite();
    const p = await person(site.orgId, "editor");
    const uid = (await idOf(p.email))!;
    const rows = 2 * CLEANUP_PAGE + 1;
    // `rows` expired rows of each kind, made in SQL (n = 1 … rows), tagged so the counts below are this test's own.
    const series = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})`;
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO sessions (token_hash, user_id, created_at, expires_at) ${series} SELECT 'page-session-' || i, ?, '2033-05-01T00:00:00Z', '2033-05-15T00:00:00Z' FROM n`,
      ).bind(uid),
      env.DB.prepare(
        `INSERT INTO account_tokens (token_hash, purpose, user_id, created_at, expires_at) ${series} SELECT 'page-token-' || i, 'reset', ?, '2033-05-01T00:00:00Z', '2033-05-01T01:00:00Z' FROM n`,
      ).bind(uid),
      env.DB.prepare(
        `INSERT INTO invitations (organization_id, email, role, token_hash, created_at, expires_at) ${series} SELECT ?, 'page' || i || '@example.com', 'editor', 'page-invitation-' || i, '2033-05-01T00:00:00Z', '2033-05-08T00:00:00Z' FROM n`,
      ).bind(site.orgId),
      env.DB.prepare(
        `INSERT INTO mail_outbox (kind, "to", subject, text, html, status, created_at) ${series} SELECT 'reset', 'page-mail@example.com', 's', 't', 'h', 'sent', '2033-04-01T00:00:00Z' FROM n`,
      ),
      env.DB.prepare(`INSERT INTO stripe_events (id, type, received_at) ${series} SELECT 'evt_page_' || i, 'x', '2033-01-01T00:00:00Z' FROM n`),
    ]);
    const left = async () => ({
      sessions: await count("SELECT count(*) AS n FROM sessions WHERE token_hash LIKE 'page-session-%'"),
      account_tokens: await count("SELECT count(*) AS n FROM account_tokens WHERE token_hash LIKE 'page-token-%'"),
      invitations: await count("SELECT count(*) AS n FROM invitations WHERE token_hash LIKE 'page-invitation-%'"),
      mails: await count("SELECT count(*) AS n FROM mail_outbox WHERE \"to\" = 'page-mail@example.com'"),
      stripe_events: await count("SELECT count(*) AS n FROM stripe_events WHERE id LIKE 'evt_page_%'"),
    });
    expect(await left()).toEqual({ sessions: rows, account_tokens: rows, invitations: rows, mails: rows, stripe_events: rows });

    const run = await cleanUp(controlDb(env.DB), now, new QueryBudget(800));
    expect(run.unfinished).toBe(false);
    expect(await left()).toEqual({ sessions: 0, account_tokens: 0, invitations: 0, mails: 0, stripe_events: 0 });
    for (const kind of ["sessions", "account_tokens", "invitations", "mails", "stripe_events"]) expect(run.removed[kind]).toBeGreaterThanOrEqual(rows);
  });
});

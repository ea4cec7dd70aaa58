/**
 * Named admin tokens (docs/decisions.md "Requests: keys, limits, hostile input, errors"): ADMIN_TOKENS (JSON {name: sha256 hex}) beside the
 * single ADMIN_TOKEN; the audit log names who acted, `admin:<name>`. Rotation is adding the new
 * token's digest under a new name, then removing the old name (docs/ops/deploy.md).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";

const sha256 = async (text: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))].map((b) => b.toString(16).padStart(2, "0")).join("");
const ALICE = "alice-token-0123456789abcdefghijklmnop";
const BOB = "bob-token-0123456789abcdefghijklmnopqr";

async function call(vars: Partial<Env>, token: string, method: string, path: string, body?: unknown) {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`https://api.test${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "cf-connecting-ip": `198.51.100.${Math.floor(Math.random() * 250)}` },
      body: body ? JSON.stringify(body) : undefined,
    }),
    { ...env, ...vars } as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as any };
}

describe("named admin tokens", () => {
  it("each operator's token acts under their name in the audit log; the single ADMIN_TOKEN still acts as admin; a removed name no longer works", async () => {
    const tokens = JSON.stringify({ alice: await sha256(ALICE), bob: await sha256(BOB) });
    const vars = { ADMIN_TOKENS: tokens };
    const byAlice = await call(vars, ALICE, "POST", "/admin/v1/organizations", { name: "By Alice" });
    expect(byAlice.status).toBe(201);
    const byShared = await call(vars, env.ADMIN_TOKEN, "POST", "/admin/v1/organizations", { name: "By the shared token" });
    expect(byShared.status).toBe(201);
    const audit = async (orgId: number) => (await call(vars, BOB, "GET", `/admin/v1/audit?organization_id=${orgId}`)).body.items;
    expect((await audit(byAlice.body.id))[0]).toMatchObject({ actor: "admin:alice", action: "organization.create" });
    expect((await audit(byShared.body.id))[0]).toMatchObject({ actor: "admin" });

    expect((await call(vars, "not-a-token-0123456789abcdefghijklmnop", "GET", "/admin/v1/audit")).status).toBe(401);
    // Rotation: alice's old token is removed from ADMIN_TOKENS and answers 401 from then on.
    const rotated = { ADMIN_TOKENS: JSON.stringify({ bob: await sha256(BOB) }) };
    expect((await call(rotated, ALICE, "GET", "/admin/v1/audit")).status).toBe(401);
    expect((await call(rotated, BOB, "GET", "/admin/v1/audit")).status).toBe(200);
  });

  it("named tokens alone enable the admin API; malformed entries are ignored and logged", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const vars = { ADMIN_TOKEN: "", ADMIN_TOKENS: JSON.stringify({ alice: await sha256(ALICE), "bad name!": "xyz" }) };
    expect((await call(vars, ALICE, "GET", "/admin/v1/audit")).status).toBe(200);
    expect((await call(vars, "", "GET", "/admin/v1/audit")).status).toBe(401);
    expect(errors.mock.calls.some(([line]) => String(line).includes("config.admin_tokens_invalid"))).toBe(true);
    errors.mockRestore();
  });
});

/**
 * The cost of hashing a password is a seam (src/deps.ts `passwordIterations`): the test Worker
 * hashes at TEST_PASSWORD_ITERATIONS so the suite's sign-ups and sign-ins cost little, and
 * production's deps keep the full PBKDF2_ITERATIONS. A password hashed at either cost verifies.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { createApp } from "../../src/app";
import { PBKDF2_ITERATIONS, verifyPassword } from "../../src/control/passwords.control";
import { PRODUCTION_DEPS } from "../../src/deps";
import { createWorker } from "../../src/index";
import { admin, createSite } from "../helpers/api";
import { ORIGIN, person } from "../helpers/dashboard";
import { TEST_PASSWORD_ITERATIONS } from "../helpers/seams";

const storedHash = async (email: string) => (await env.DB.prepare("SELECT password_hash AS hash FROM users WHERE email = ?").bind(email).first<{ hash: string }>())!.hash;

/** Accepts an invitation through `fetch` (the Worker's handler) with a new account's password. */
async function acceptThrough(fetch: ReturnType<typeof createApp>["fetch"], orgId: number, email: string) {
  const inv = await admin("POST", `/admin/v1/organizations/${orgId}/invitations`, { email, role: "editor" });
  expect(inv.status).toBe(201);
  // The link carries its token in the fragment; the page posts it with the password.
  const token = new URL(inv.body.url).hash.slice(1);
  const ctx = createExecutionContext();
  const res = await fetch(
    new Request(`${ORIGIN}/dashboard/invitations`, {
      method: "POST",
      // An address of its own: the pool's sign-in limiter (10 a minute per address) is shared by the files of the project.
      headers: {
        origin: ORIGIN,
        "cf-connecting-ip": `2001:db8:c057::${crypto.getRandomValues(new Uint16Array(1))[0].toString(16)}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ token, password: "a long enough password" }),
      redirect: "manual",
    }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(303);
}

describe("the password hashing cost", () => {
  it("production's deps hash at the full 100,000 PBKDF2 iterations", async () => {
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    expect(PRODUCTION_DEPS.passwordIterations).toBe(PBKDF2_ITERATIONS);
    // The production Worker (the module's default, built with PRODUCTION_DEPS) stores a new password at that cost.
    const site = await createSite();
    const email = `production-cost-${Date.now()}@example.com`;
    await acceptThrough(createWorker().fetch, site.orgId, email);
    const hash = await storedHash(email);
    expect(hash).toMatch(/^pbkdf2-sha256\$100000\$/);
    expect(await verifyPassword("a long enough password", hash)).toBe(true);
  });

  it("the test Worker hashes at the tests' small cost, and such a hash verifies", async () => {
    expect(TEST_PASSWORD_ITERATIONS).toBeLessThan(PBKDF2_ITERATIONS);
    const site = await createSite();
    const { email, password } = await person(site.orgId, "editor");
    const hash = await storedHash(email);
    expect(hash.split("$")[1]).toBe(String(TEST_PASSWORD_ITERATIONS));
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(await verifyPassword(`${password}!`, hash)).toBe(false);
  });
});

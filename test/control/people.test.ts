// People at the domain depth: roles, invitations (one use, expiry, the higher role kept) and
// the last owner, through the control plane's functions and D1 alone.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { controlDb } from "../../src/control/db";
import { insertOrganizationStatement } from "../../src/control/organizations.control";
import { acceptInvitation, atLeast, canInvite, createInvitation, listMembers, membershipIn, openInvitation, passwordProblem, removeMember } from "../../src/control/people.control";

const db = controlDb(env.DB);
let n = 0;
const email = () => `control-${++n}-${Date.now()}@example.com`;

async function organization() {
  const [org] = await insertOrganizationStatement(db, `Org ${++n}`);
  return org.id;
}

async function member(orgId: number, role: "owner" | "admin" | "editor", address = email()) {
  const inv = await createInvitation(db, { organizationId: orgId, email: address, role, invitedBy: null, actor: "admin" });
  return acceptInvitation(db, inv.token, { signedIn: null, password: "a long enough password" });
}

describe("roles", () => {
  it("owner ⊃ admin ⊃ editor; owners invite anyone, admins editors and admins, editors no one", () => {
    expect(atLeast("owner", "admin")).toBe(true);
    expect(atLeast("admin", "owner")).toBe(false);
    expect(atLeast("editor", "editor")).toBe(true);
    expect(canInvite("owner", "owner")).toBe(true);
    expect(canInvite("admin", "admin")).toBe(true);
    expect(canInvite("admin", "owner")).toBe(false);
    expect(canInvite("editor", "editor")).toBe(false);
  });

  it("passwords of 10 to 200 characters, counted in code points", () => {
    expect(passwordProblem("short")).toMatch(/^password: use at least 10/);
    expect(passwordProblem("😀".repeat(10))).toBeNull();
    expect(passwordProblem("x".repeat(201), "new_password")).toMatch(/^new_password: use at most 200/);
  });
});

describe("invitations", () => {
  it("work once, for 7 days, with the email stored lowercased", async () => {
    const orgId = await organization();
    const now = new Date("2026-11-01T00:00:00Z");
    const inv = await createInvitation(db, { organizationId: orgId, email: "  Anna@Example.COM ", role: "editor", invitedBy: null, actor: "admin" }, now);
    expect(inv.email).toBe("anna@example.com");
    expect(inv.expires_at).toBe("2026-11-08T00:00:00.000Z");
    expect(await openInvitation(db, inv.token, new Date("2026-11-08T00:00:01Z"))).toBeUndefined();
    expect((await openInvitation(db, inv.token, now))?.hasAccount).toBe(false);
    const accepted = await acceptInvitation(db, inv.token, { signedIn: null, password: "a long enough password" }, now);
    expect(accepted.newAccount).toBe(true);
    await expect(acceptInvitation(db, inv.token, { signedIn: null, password: "a long enough password" }, now)).rejects.toMatchObject({ status: 404 });
    expect((await membershipIn(db, accepted.userId, orgId))?.role).toBe("editor");
  });

  it("an existing account accepts only signed in as itself, and keeps the higher of the role held and the role invited", async () => {
    const orgId = await organization();
    const address = email();
    const { userId } = await member(orgId, "admin", address);
    const again = await createInvitation(db, { organizationId: orgId, email: address, role: "editor", invitedBy: null, actor: "admin" });
    await expect(acceptInvitation(db, again.token, { signedIn: null, password: "another long password" })).rejects.toMatchObject({ status: 401 });
    await expect(acceptInvitation(db, again.token, { signedIn: { userId: userId + 1000, email: "someone@else.example" } })).rejects.toMatchObject({ status: 403 });
    await acceptInvitation(db, again.token, { signedIn: { userId, email: address } });
    expect((await membershipIn(db, userId, orgId))?.role).toBe("admin");
  });
});

describe("members", () => {
  it("the last owner cannot be removed; another member can", async () => {
    const orgId = await organization();
    const owner = await member(orgId, "owner");
    const editor = await member(orgId, "editor");
    await expect(removeMember(db, orgId, owner.userId, "admin")).rejects.toMatchObject({ status: 409 });
    await removeMember(db, orgId, editor.userId, "admin");
    expect((await listMembers(db, orgId)).map((m) => m.userId)).toEqual([owner.userId]);
    await expect(removeMember(db, orgId, editor.userId, "admin")).rejects.toMatchObject({ status: 404 });
  });
});

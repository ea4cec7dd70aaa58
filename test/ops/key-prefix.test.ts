/**
 * A leaked key seen by its prefix (docs/runbook.md "Leaked key"): the look-up takes `{prefix}` as
 * well as `{key}`, a revoked key's refused requests keep its prefix in their `http.request` line
 * (so "is it still being tried?" has an answer), and admin request lines name the operator and the
 * site. Answers are checked against the OpenAPI document.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, createSite, request } from "../helpers/api";
import { operator } from "../helpers/operator";

afterEach(() => void vi.restoreAllMocks());

type Line = Record<string, unknown> & { event: string };

function captureLines() {
  const lines: Line[] = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      try {
        lines.push(JSON.parse(String(args[0])));
      } catch {
        // not a line of the logger
      }
    });
  return lines;
}

const requestLines = (lines: Line[], id: string | null) => lines.filter((l) => l.event === "http.request" && l.request_id === id);

describe("a key's prefix", () => {
  it("a revoked key's refused requests keep its prefix in the request line; a malformed one logs none", async () => {
    const site = await createSite();
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}/keys/${site.keyId}`)).status).toBe(204);
    const lines = captureLines();
    const refused = await request("GET", "/v1/status", { key: site.key });
    expect(refused.status).toBe(401);
    expect(requestLines(lines, refused.headers.get("x-request-id"))).toEqual([expect.objectContaining({ status: 401, key_prefix: site.key.slice(0, 10) })]);
    // Only a prefix: no line holds more of the key.
    expect(lines.some((l) => JSON.stringify(l).includes(site.key.slice(0, 11)))).toBe(false);

    // A string that is not a key (its checksum fails) leaves nothing of itself in the line.
    const garbled = `${site.key.slice(0, 20)}${site.key[20] === "a" ? "b" : "a"}${site.key.slice(21)}`;
    const bad = await request("GET", "/v1/status", { key: garbled });
    expect(bad.status).toBe(401);
    const [line] = requestLines(lines, bad.headers.get("x-request-id"));
    expect(line).toMatchObject({ status: 401 });
    expect(line.key_prefix).toBeUndefined();
  });

  it("looks a key up by its prefix (revoked too), audited with the operator's name; the request line names the operator and the site", async () => {
    const site = await createSite();
    expect((await admin("DELETE", `/admin/v1/sites/${site.siteId}/keys/${site.keyId}`)).status).toBe(204);
    const lines = captureLines();
    const alice = operator("alice");
    const found = await alice("POST", "/admin/v1/keys/lookup", { prefix: site.key.slice(0, 10) });
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      key_id: site.keyId,
      name: "test",
      prefix: site.key.slice(0, 10),
      site_id: site.siteId,
      organization_id: site.orgId,
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      revoked_at: expect.any(String),
    });
    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit[0]).toMatchObject({ actor: "admin:alice", action: "key.lookup", target: `site:${site.siteId}`, detail: { key_id: site.keyId, by: "prefix" } });
    // The look-up's line: the operator, and the site it found.
    expect(requestLines(lines, found.headers.get("x-request-id"))).toEqual([
      expect.objectContaining({ route: "/admin/v1/keys/lookup", status: 200, actor: "admin:alice", site_id: site.siteId, org_id: site.orgId }),
    ]);
    // A path that names the site: the line carries it.
    const diag = await alice("GET", `/admin/v1/sites/${site.siteId}/diagnostics`);
    expect(diag.status).toBe(200);
    expect(requestLines(lines, diag.headers.get("x-request-id"))).toEqual([expect.objectContaining({ status: 200, actor: "admin:alice", site_id: site.siteId })]);
    // The single ADMIN_TOKEN acts as `admin`; a customer's request line names no operator.
    const shared = await admin("GET", `/admin/v1/organizations/${site.orgId}/usage?month=2031-01`);
    expect(requestLines(lines, shared.headers.get("x-request-id"))).toEqual([expect.objectContaining({ actor: "admin", org_id: site.orgId })]);
  });

  it("422 without either field, with both, or with a prefix of another shape; 404 for an unknown one; 409 when two keys share it", async () => {
    const site = await createSite();
    const lookup = (body: unknown) => admin("POST", "/admin/v1/keys/lookup", body);
    for (const body of [{}, { key: site.key, prefix: site.key.slice(0, 10) }]) {
      const res = await lookup(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail).toBe("body must have either key (the whole key) or prefix (its first 10 characters), not both");
    }
    for (const prefix of ["tsk_12", site.key.slice(0, 11), "sk_live_ab", "tsk_ab-cde"]) {
      const res = await lookup({ prefix });
      expect(res.status, prefix).toBe(422);
      expect(res.body.detail).toMatch(/^prefix must be tsk_ and the 6 characters after it/);
    }
    expect((await lookup({ prefix: "tsk_000000" })).status).toBe(404);

    // Another key with the same first 10 characters (1 in 56 billion a pair; made by hand here).
    const other = await createSite();
    await env.DB.prepare("INSERT INTO api_keys (site_id, name, prefix, hash, created_at) VALUES (?, 'twin', ?, ?, ?)")
      .bind(other.siteId, site.key.slice(0, 10), "0".repeat(64), new Date().toISOString())
      .run();
    const twins = await lookup({ prefix: site.key.slice(0, 10) });
    expect(twins.status).toBe(409);
    expect(twins.body.detail).toContain(`2 keys begin with ${site.key.slice(0, 10)}: key ${site.keyId} of site ${site.siteId}, key `);
    expect(twins.body.detail).toContain(`of site ${other.siteId}. Send the whole key`);
    // The whole key still finds its own.
    expect((await lookup({ key: site.key })).body).toMatchObject({ key_id: site.keyId, site_id: site.siteId });
  });
});

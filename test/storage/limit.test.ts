// The site storage guard (docs/decisions.md "Storage and hot paths"), with the small limit this project
// sets through the environment (vitest.config.ts: SITE_STORAGE_LIMIT_BYTES = 4 MiB): a push that
// would take the site past it is refused before anything is written, with 409 `site_storage_full`
// (a retry cannot succeed); deletes still work; the operator's diagnostics show the figures.
import { describe, expect, it } from "vitest";
import { admin, createSite, request, unit } from "../helpers/api";

const LIMIT = 4 * 1024 * 1024;

/** 50 units of about 20 KB each, every text distinct. */
const batch = (n: number) => ({
  units: Array.from({ length: 50 }, (_, i) => unit(`b${n}-u${i}`, [{ key: "body", text: `${n}-${i} ${"lorem ipsum dolor sit amet ".repeat(740)}` }])),
});

describe("a site at its storage limit", () => {
  it("refuses the push that would pass the limit with 409 site_storage_full, writing nothing; deletes still work", async () => {
    const site = await createSite();
    let refused: Awaited<ReturnType<typeof request>> | undefined;
    let accepted = 0;
    for (let n = 0; n < 12 && !refused; n++) {
      const res = await request("PUT", "/v1/units/batch", { key: site.key, body: batch(n) });
      if (res.status === 200) accepted++;
      else refused = res;
    }
    expect(accepted).toBeGreaterThan(0);
    expect(refused?.status).toBe(409);
    expect(refused?.body).toEqual({
      code: "site_storage_full",
      detail: expect.stringMatching(/^The site's storage is full: it holds \d+ bytes and this push would take it past its limit of 4194304 bytes\./),
    });

    const before = (await request("GET", "/v1/status", { key: site.key })).body.units_total;
    expect(before).toBe(accepted * 50);
    // A single unit is refused the same way, and nothing of the refused pushes was stored.
    // (larger than the batch that was refused, so it cannot fit either)
    const big = unit(
      "big",
      Array.from({ length: 12 }, (_, i) => ({ key: `p${i}`, text: `${i} ${"x".repeat(95_000)}` })),
    );
    const one = await request("PUT", "/v1/units", { key: site.key, body: big });
    expect(one).toMatchObject({ status: 409, body: { code: "site_storage_full" } });
    expect((await request("GET", "/v1/status", { key: site.key })).body.units_total).toBe(before);
    expect((await request("DELETE", "/v1/units/b0-u0", { key: site.key })).status).toBe(204);

    const diag = (await admin("GET", `/admin/v1/sites/${site.siteId}/diagnostics`)).body;
    expect(diag.storage_limit_bytes).toBe(LIMIT);
    expect(diag.storage_bytes).toBeGreaterThan(LIMIT / 2);
    expect(diag.storage_bytes).toBeLessThanOrEqual(LIMIT);
  });
});

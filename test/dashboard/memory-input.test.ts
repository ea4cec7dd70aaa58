/**
 * The memory page's input (issue 37, small ones): a TMX file the XML parser refuses answers 422
 * with the problem named (not 500), and a search answers 200 with the right entries whatever
 * its length (Cloudflare's SQLite refuses LIKE patterns over 50 bytes), while a NUL is refused
 * with 422.
 */
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, type TestSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { stubOf } from "../helpers/site";

let site: TestSite;
let cookie: string | null;
let base: string;

const LONG_SOURCE = "Our customer service team answers every question within one business day, including weekends and public holidays";
const LONG_TARGET = "Unser Kundenservice beantwortet jede Frage innerhalb eines Werktags, auch an Wochenenden und Feiertagen";
const JAPANESE = "私たちのカスタマーサービスチームは、週末や祝日を含め、すべての質問に1営業日以内に回答します";

const memoryRows = () => runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => o.store.one<{ n: number }>("SELECT count(*) AS n FROM memory")!.n);

beforeAll(async () => {
  site = await createSite({ target_languages: [{ code: "de" }, { code: "ja" }] });
  cookie = (await person(site.orgId, "admin")).cookie;
  base = `/dashboard/sites/${site.siteId}/memory`;
  const pushed = await client(site.key).put(
    "/v1/units",
    unit("page:help", [
      { key: "a", text: LONG_SOURCE, translations: { de: LONG_TARGET, ja: JAPANESE } },
      { key: "b", text: "Contact our support team", translations: { de: "Kontaktieren Sie unser Support-Team" } },
    ]),
  );
  expect(pushed.status).toBe(200);
});

const search = (q: string) => dash("GET", `${base}?q=${encodeURIComponent(q)}`, { cookie });

describe("memory search", () => {
  it.each([
    ["49 characters of a source", LONG_SOURCE.slice(0, 49), 2],
    ["a whole long source, upper case", LONG_SOURCE.toUpperCase(), 2],
    ["60 characters in the middle of a translation", LONG_TARGET.slice(10, 70), 1],
    ["a long query in Japanese (3 bytes a character)", JAPANESE.slice(5, 30), 1],
  ])("%s answers 200 with its entries", async (_what, q, n) => {
    const res = await search(q);
    expect(res.status).toBe(200);
    expect(res.html).toContain(`Entries (${n})`);
    expect(res.html).not.toContain("Kontaktieren Sie unser Support-Team");
  });

  it("a long query that matches nothing answers 200 with no entry", async () => {
    const res = await search(`${LONG_SOURCE.slice(0, 60)} and more`);
    expect(res.status).toBe(200);
    expect(res.html).toContain("No entry matches these filters.");
  });

  it("a NUL in the query is refused with 422 naming q", async () => {
    const res = await search("support\u0000team");
    expect(res.status).toBe(422);
    expect(res.html).toContain("q: must not contain U+0000");
  });
});

describe("a TMX file the XML parser refuses", () => {
  const tu = '<tu><tuv xml:lang="en"><seg>&a;</seg></tuv><tuv xml:lang="de"><seg>x</seg></tuv></tu>';
  const file = (doctype: string) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tmx [${doctype}]>\n<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/><body>${tu}</body></tmx>\n`;
  it.each([
    ["an external entity", '<!ENTITY a SYSTEM "file:///etc/passwd">', "External entities are not supported"],
    ["a parameter entity", '<!ENTITY % p "x"><!ENTITY a "y">', "Invalid entity name"],
    ["an oversized entity", `<!ENTITY a "${"x".repeat(20_000)}">`, "exceeds maximum allowed size"],
  ])("%s answers 422 naming the problem, and nothing is stored", async (_what, doctype, problem) => {
    const before = await memoryRows();
    const form = new FormData();
    form.append("file", new File([file(doctype)], "memory.tmx", { type: "application/x-tmx+xml" }));
    const res = await dash("POST", `${base}/import`, { cookie, form });
    expect(res.status).toBe(422);
    expect(res.html).toContain("The file was not imported (nothing was stored)");
    expect(res.html).toContain("The file was not imported (nothing was stored): the XML could not be read");
    expect(res.html).toContain(problem);
    expect(await memoryRows()).toBe(before);
  });
});

/**
 * The memory page (/dashboard/sites/{id}/memory): admins and owners only; search and filters;
 * an edited entry becomes human and is what later jobs deliver; a deleted one is no longer a
 * hit; a TMX file with any problem is refused with the problem named and nothing stored; every
 * change is audited without its texts.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { orgMemoryName } from "../../src/memory/stub";
import { fingerprint } from "../../src/site/fingerprint";
import { fuzzyMatches } from "../../src/site/memory/fuzzy";
import { TMX_LIMITS } from "../../src/site/memory/tmx";
import type { SiteObject } from "../../src/site/object";
import { admin, client, createSite, type TestSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { allResults, job } from "../helpers/jobs";
import { share, stubOf } from "../helpers/site";

let site: TestSite;
let c: ReturnType<typeof client>;
let owner: Awaited<ReturnType<typeof person>>;
let adminPerson: Awaited<ReturnType<typeof person>>;
let editor: Awaited<ReturnType<typeof person>>;
let base: string;

/** The memory's rows and the fuzzy index's, straight from the site object's storage. */
const stored = () =>
  runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => ({
    memory: o.store.all<{ source_text: string; target_language: string; text: string; origin: string }>(
      "SELECT source_text, target_language, text, origin FROM memory ORDER BY source_text, target_language",
    ),
    indexed: o.store.one<{ n: number }>("SELECT count(*) AS n FROM memory_fts")!.n,
  }));

const audit = async () =>
  ((await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items as { actor: string; action: string; target: string; detail: Record<string, unknown> }[]).filter(
    (i) => i.action.startsWith("memory."),
  );

const key = (source: string, target: string) => ({ source_fingerprint: fingerprint(source), source_language: "en", target_language: target });

function upload(xml: string, name = "memory.tmx") {
  const form = new FormData();
  form.append("file", new File([xml], name, { type: "application/x-tmx+xml" }));
  return form;
}

const tmx = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n<header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/>\n<body>\n${body}</body>\n</tmx>\n`;

beforeAll(async () => {
  site = await createSite({ target_languages: [{ code: "de" }, { code: "fr" }] });
  c = client(site.key);
  owner = await person(site.orgId, "owner");
  adminPerson = await person(site.orgId, "admin");
  editor = await person(site.orgId, "editor");
  base = `/dashboard/sites/${site.siteId}/memory`;
  // The memory: translations imported with a push (origin imported).
  const pushed = await c.put(
    "/v1/units",
    unit("page:home", [
      { key: "a", text: "Free shipping on every order", translations: { de: "Kostenloser Versand für jede Bestellung", fr: "Livraison gratuite" } },
      { key: "b", text: "Contact our support team", translations: { de: "Kontaktieren Sie unser Support-Team" } },
    ]),
  );
  expect(pushed.status).toBe(200);
});

describe("who may open the memory page", () => {
  it("admins and owners; an editor gets 403 for every page and action; a person of another organization 404", async () => {
    for (const p of [owner, adminPerson]) {
      const page = await dash("GET", base, { cookie: p.cookie });
      expect(page.status).toBe(200);
      expect(page.html).toContain("<h1>Translation memory</h1>");
      expect(page.html).toContain(`href="${base}" aria-current="page"`);
    }
    const k = key("Contact our support team", "de");
    const entryQuery = new URLSearchParams(k).toString();
    for (const [method, path, form] of [
      ["GET", base, undefined],
      ["GET", `${base}.tmx`, undefined],
      ["GET", `${base}/entry?${entryQuery}`, undefined],
      ["POST", `${base}/entry`, { ...k, text: "Hacked" }],
      ["POST", `${base}/delete`, k],
      ["POST", `${base}/import`, upload(tmx('<tu><tuv xml:lang="en"><seg>X</seg></tuv><tuv xml:lang="de"><seg>Y</seg></tuv></tu>'))],
    ] as const) {
      const res = await dash(method, path, { cookie: editor.cookie, form: form as Record<string, string> | FormData | undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    // The navigation shows the page to admins only.
    expect((await dash("GET", `/dashboard/sites/${site.siteId}`, { cookie: editor.cookie })).html).not.toContain(`href="${base}"`);
    const other = await createSite();
    const stranger = await person(other.orgId, "owner");
    expect((await dash("GET", base, { cookie: stranger.cookie })).status).toBe(404);
    expect((await stored()).memory.map((m) => m.text)).toContain("Kontaktieren Sie unser Support-Team");
    expect(await audit()).toEqual([]);
  });
});

describe("the list", () => {
  it("shows every entry with its origin; search finds words in the source (fuzzy index) or translation; pair and origin filter", async () => {
    const all = await dash("GET", base, { cookie: adminPerson.cookie });
    expect(all.html).toContain("Entries (3)");
    expect(all.html).toContain("Livraison gratuite");
    expect(all.html).toContain("<td>import</td>");
    expect(all.html).toContain('<option value="en:fr">en → fr (1)</option>');

    const search = (query: string) => dash("GET", `${base}?${query}`, { cookie: adminPerson.cookie });
    const bySource = await search("q=SUPPORT+team");
    expect(bySource.html).toContain("Entries (1)");
    expect(bySource.html).toContain("Kontaktieren Sie unser Support-Team");
    const byTranslation = await search("q=Livraison");
    expect(byTranslation.html).toContain("Entries (1)");
    const byPair = await search("pair=en%3Ade");
    expect(byPair.html).toContain("Entries (2)");
    expect(byPair.html).not.toContain("Livraison gratuite");
    expect((await search("origin=human")).html).toContain("No entry matches these filters.");
    // A typo: no entry holds the words as typed, but the close match is shown with its similarity (fuzzy, the engines' scoring).
    const typo = await search("q=Contact+our+suport+team");
    expect(typo.html).toContain("No entry matches these filters.");
    expect(typo.html).toContain("Close matches");
    expect(typo.html).toMatch(/<td>Contact our support team<\/td><td>Kontaktieren Sie unser Support-Team<\/td><td>en → de<\/td><td class="num">96 %<\/td>/);
    expect((await search("q=Contact+our+suport+team&pair=en%3Afr")).html).not.toContain("Close matches");
  });
});

describe("editing and deleting an entry", () => {
  it("an edit changes the text and makes the entry human: the next job delivers it as a memory hit; audited without texts", async () => {
    const k = key("Free shipping on every order", "de");
    const entry = await dash("GET", `${base}/entry?${new URLSearchParams(k)}`, { cookie: adminPerson.cookie });
    expect(entry.status).toBe(200);
    expect(entry.html).toContain("Kostenloser Versand für jede Bestellung</textarea>");

    const empty = await dash("POST", `${base}/entry`, { cookie: adminPerson.cookie, form: { ...k, text: "   " } });
    expect(empty.status).toBe(422);
    expect(empty.html).toContain("text must not be empty");

    const saved = await dash("POST", `${base}/entry`, { cookie: adminPerson.cookie, form: { ...k, text: "Versandkostenfrei bei jeder Bestellung" } });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${base}?done=memory-edited`);
    const { memory, indexed } = await stored();
    expect(memory.find((m) => m.source_text === "Free shipping on every order" && m.target_language === "de")).toMatchObject({
      text: "Versandkostenfrei bei jeder Bestellung",
      origin: "human",
    });
    expect(indexed).toBe(3);
    expect((await dash("GET", `${base}?origin=human`, { cookie: adminPerson.cookie })).html).toContain("Versandkostenfrei bei jeder Bestellung");

    // Another unit with the same source text: an exact hit with the corrected text.
    await c.put("/v1/units", unit("page:shop", [{ key: "s", text: "Free shipping on every order" }]));
    await job(c, site.siteId, { prefix: "page:shop" });
    const hits = (await allResults(c, "&unit=page:shop")).filter((r) => r.origin === "tm_exact");
    expect(hits.map((r) => [r.language, r.text]).sort()).toEqual([
      ["de", "Versandkostenfrei bei jeder Bestellung"],
      ["fr", "Livraison gratuite"],
    ]);

    const edits = (await audit()).filter((a) => a.action === "memory.edit");
    expect(edits.map((e) => [e.actor, e.target, e.detail])).toEqual([[expect.stringMatching(/^user:\d+$/), `site:${site.siteId}`, k]]);
    expect(JSON.stringify(edits)).not.toContain("Versandkostenfrei");
  });

  it("a delete removes the entry and its index row: the text is no longer a memory hit; audited", async () => {
    const k = key("Contact our support team", "de");
    const deleted = await dash("POST", `${base}/delete`, { cookie: owner.cookie, form: k });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe(`${base}?done=memory-deleted`);
    const { memory, indexed } = await stored();
    expect(memory.map((m) => m.source_text)).not.toContain("Contact our support team");
    expect(indexed).toBe(2);
    expect((await dash("GET", `${base}/entry?${new URLSearchParams(k)}`, { cookie: owner.cookie })).status).toBe(404);
    expect((await dash("POST", `${base}/delete`, { cookie: owner.cookie, form: k })).status).toBe(404);

    await c.put("/v1/units", unit("page:help", [{ key: "h", text: "Contact our support team" }]));
    const est = await c.post("/v1/jobs", { estimate_only: true, prefix: "page:help" });
    expect(est.body).toMatchObject({ estimated_segments: 2, estimated_tm_segments: 0 });
    expect((await audit()).filter((a) => a.action === "memory.delete").map((a) => a.detail)).toEqual([k]);
  });
});

describe("a TMX import", () => {
  const good = '<tu><tuv xml:lang="en"><seg>Read more</seg></tuv><tuv xml:lang="de"><seg>Weiterlesen</seg></tuv></tu>\n';

  it.each([
    ["malformed XML", tmx(`${good}<tu><tuv xml:lang="en"><seg>Open</tuv></tu>`), 422, "not well-formed XML at line 6"],
    ["another root element", tmx(good).replace('<tmx version="1.4">', "<xliff>").replace("</tmx>", "</xliff>"), 422, "the root element is &lt;xliff&gt;, not &lt;tmx&gt;"],
    [
      "a tu without a source tuv",
      tmx(`${good}<tu><tuv xml:lang="es"><seg>Leer</seg></tuv><tuv xml:lang="de"><seg>Lesen</seg></tuv></tu>\n`),
      422,
      "&lt;tu&gt; number 2 at line 6 has no &lt;tuv&gt; in the site&#39;s source language (en)",
    ],
    ["an oversized file", tmx(`${good}<!-- ${"x".repeat(TMX_LIMITS.bytes)} -->`), 413, "the limit is 5,242,880 (5 MB)"],
  ])("%s is refused with the problem named, and nothing is stored", async (_what, xml, status, problem) => {
    const before = await stored();
    const res = await dash("POST", `${base}/import`, { cookie: adminPerson.cookie, form: upload(xml) });
    expect(res.status).toBe(status);
    expect(res.html).toContain("The file was not imported (nothing was stored)");
    expect(res.html).toContain(problem);
    expect(await stored()).toEqual(before);
    expect((await audit()).filter((a) => a.action === "memory.import")).toEqual([]);
  });

  it("stores the translations as origin import (an entry corrected here is kept), says what it did, and is audited", async () => {
    const xml = tmx(
      good +
        '<tu><tuv xml:lang="en"><seg>Free shipping on every order</seg></tuv><tuv xml:lang="de"><seg>Gratisversand</seg></tuv><tuv xml:lang="it"><seg>Spedizione gratuita</seg></tuv></tu>\n',
    );
    const res = await dash("POST", `${base}/import`, { cookie: owner.cookie, form: upload(xml) });
    expect(res.status).toBe(200);
    expect(res.html).toContain(
      "Imported 2 translation units: 1 translation stored. 1 kept as corrected here (origin human). 1 in languages this site does not translate into were left out.",
    );
    const { memory } = await stored();
    expect(memory.find((m) => m.source_text === "Read more")).toMatchObject({ target_language: "de", text: "Weiterlesen", origin: "imported" });
    expect(memory.find((m) => m.source_text === "Free shipping on every order" && m.target_language === "de")).toMatchObject({
      text: "Versandkostenfrei bei jeder Bestellung",
      origin: "human",
    });
    expect((await audit()).filter((a) => a.action === "memory.import").map((a) => a.detail)).toEqual([{ units: 2, stored: 1, kept: 1, other_languages: 1 }]);
    // Imported entries are fuzzy matches too (the index follows the memory).
    const fuzzy = await runInDurableObject(stubOf(site.siteId), async (o: SiteObject) => fuzzyMatches(o.store, "en", "de", ["Read more!"]));
    expect(fuzzy).toEqual([[{ source: "Read more", target: "Weiterlesen", similarity: 0.9 }]]);
  });

  it("an export is audited with the pair it asked for", async () => {
    const res = await dash("GET", `${base}.tmx?pair=en%3Afr`, { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-tmx+xml; charset=utf-8");
    expect(res.html).toContain('<tuv xml:lang="fr"><seg>Livraison gratuite</seg></tuv>');
    expect(res.html).not.toContain('xml:lang="de"');
    expect((await audit()).filter((a) => a.action === "memory.export").map((a) => a.detail)).toEqual([{ source_language: "en", target_language: "fr" }]);
  });
});

describe("the organization's memory follows the page", () => {
  const shared = (s: TestSite) => env.ORG_MEMORY.getByName(orgMemoryName(s.orgId)).entriesBySite();

  it("a TMX import is copied to the organization's memory, a deletion withdraws the entry (a sharing site)", async () => {
    const s = await createSite({ target_languages: [{ code: "de" }] });
    const o = await person(s.orgId, "owner");
    const path = `/dashboard/sites/${s.siteId}/memory`;
    const xml = tmx(
      '<tu><tuv xml:lang="en"><seg>Read more</seg></tuv><tuv xml:lang="de"><seg>Weiterlesen</seg></tuv></tu>\n<tu><tuv xml:lang="en"><seg>Back</seg></tuv><tuv xml:lang="de"><seg>Zurück</seg></tuv></tu>\n',
    );
    expect((await dash("POST", `${path}/import`, { cookie: o.cookie, form: upload(xml) })).status).toBe(200);
    await share(s.siteId);
    expect(await shared(s)).toEqual({ [s.siteId]: 2 });
    const deleted = await dash("POST", `${path}/delete`, { cookie: o.cookie, form: { source_fingerprint: fingerprint("Back"), source_language: "en", target_language: "de" } });
    expect(deleted.status).toBe(303);
    await share(s.siteId);
    expect(await shared(s)).toEqual({ [s.siteId]: 1 });
  });
});

/**
 * TMX 1.4b (src/site/memory/tmx.ts): reading a file (languages, inline markup, every refusal named),
 * writing one that an independent parser (@xmldom/xmldom, not the library that reads it) finds
 * valid, and the round trip across organizations: a memory exported from one site and imported
 * into a site of another organization gives exact memory hits (`tm_exact`) there, in the
 * estimate and in the results.
 */

import { runInDurableObject } from "cloudflare:test";
import { DOMParser } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import type { SiteSettings } from "../../src/control/sites.control";
import { ApiError } from "../../src/errors";
import { fingerprint } from "../../src/site/fingerprint";
import { IMPORT_CHUNK, importMemory } from "../../src/site/memory/admin";
import { rememberTranslation } from "../../src/site/memory/entries";
import { readTmx, TMX_END, TMX_LIMITS, tmxStart, tmxUnit } from "../../src/site/memory/tmx";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { allResults, job } from "../helpers/jobs";
import { stubOf } from "../helpers/site";

const SITE = { sourceLanguage: "en", targetLanguages: ["de", "fr", "pt-BR"] };

const tmx = (body: string, root = '<tmx version="1.4">') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tmx SYSTEM "tmx14.dtd">\n${root}\n<header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/>\n<body>\n${body}</body>\n</tmx>\n`;

const tu = (source: string, targets: Record<string, string>, extra = "") =>
  `<tu${extra}><tuv xml:lang="en-US"><seg>${source}</seg></tuv>${Object.entries(targets)
    .map(([l, t]) => `<tuv xml:lang="${l}"><seg>${t}</seg></tuv>`)
    .join("")}</tu>\n`;

function refusal(xml: string): ApiError {
  try {
    readTmx(xml, SITE);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("the file was read");
}

describe("reading a TMX file", () => {
  it("takes the source tuv and each target tuv the site translates into, by language (a region of a bare code matches it)", () => {
    const read = readTmx(
      tmx(tu("Hello &amp; welcome", { "de-DE": "Hallo &amp; willkommen", FR: "Bonjour", "pt-br": "Olá", ja: "こんにちは" }) + tu("Cart", { de: "Warenkorb" })),
      SITE,
    );
    expect(read).toEqual({
      units: 2,
      otherLanguages: 1,
      translations: [
        { source: "Hello & welcome", targetLanguage: "de", text: "Hallo & willkommen" },
        { source: "Hello & welcome", targetLanguage: "fr", text: "Bonjour" },
        { source: "Hello & welcome", targetLanguage: "pt-BR", text: "Olá" },
        { source: "Cart", targetLanguage: "de", text: "Warenkorb" },
      ],
    });
  });

  it("rebuilds the native text of inline markup: the codes of bpt, ept, ph and it where they stand, the text of hi; whitespace and character references kept", () => {
    const read = readTmx(
      tmx(
        tu('Click <bpt i="1">&lt;a href="/x"&gt;</bpt>here<ept i="1">&lt;/a&gt;</ept>, <ph>{name}</ph> <hi type="b">now</hi>&#x21;', {
          de: 'Klicken Sie <bpt i="1">&lt;a href="/x"&gt;</bpt>hier<ept i="1">&lt;/a&gt;</ept>, <ph>{name}</ph>  <it pos="begin">&lt;i&gt;</it>jetzt&#33;',
        }),
      ),
      SITE,
    );
    expect(read.translations).toEqual([{ source: 'Click <a href="/x">here</a>, {name} now!', targetLanguage: "de", text: 'Klicken Sie <a href="/x">hier</a>, {name}  <i>jetzt!' }]);
  });

  it("never stores what no text may hold: character references to NUL or a lone surrogate leave nothing behind", () => {
    const read = readTmx(tmx(tu("A &#xD800; B", { de: "B&#0;" })), SITE);
    expect(read.translations).toEqual([{ source: "A  B", targetLanguage: "de", text: "B" }]);
  });

  it.each([
    ["not well-formed XML", tmx(tu("A", { de: "B" }).replace("</seg></tuv></tu>", "</tuv></tu>")), 422, /^file: not well-formed XML at line 6, column \d+: .*seg/],
    ["another root element", tmx(tu("A", { de: "B" }), "<xliff>").replace("</tmx>", "</xliff>"), 422, /^file: the root element is <xliff>, not <tmx>/],
    ["another TMX version", tmx(tu("A", { de: "B" }), '<tmx version="1.1">'), 422, /^file: <tmx version="1.1"> is not supported/],
    [
      "a tu without a source tuv",
      tmx(tu("A", { de: "B" }) + tu("C", { de: "D" }).replace("en-US", "es"), '<tmx version="1.4">'),
      422,
      /^file: <tu> number 2 at line 7 has no <tuv> in the site's source language \(en\)/,
    ],
    ["a tu without a translation", tmx(tu("A", {}, ' tuid="t-1"')), 422, /^file: <tu> number 1 \(tuid "t-1"\) at line 6 has no translation/],
    [
      "a tuv without a seg",
      tmx('<tu><tuv xml:lang="en"><seg>A</seg></tuv><tuv xml:lang="de"></tuv></tu>'),
      422,
      /^file: the <tuv xml:lang="de"> of <tu> number 1 at line 6 has no <seg>/,
    ],
    ["a file over the size bound", tmx(tu("A".repeat(TMX_LIMITS.bytes), { de: "B" })), 413, /^file: the TMX file has 5,24\d,\d{3} bytes; the limit is 5,242,880 \(5 MB\)/],
    ["more tu than the bound", tmx(tu("A", { de: "B" }).repeat(TMX_LIMITS.units + 1)), 413, /^file: the TMX file has 50,001 <tu> elements; the limit is 50,000/],
  ])("refuses %s with a message naming it", (_what, xml, status, detail) => {
    const err = refusal(xml);
    expect(err.status).toBe(status);
    expect(err.detail).toMatch(detail);
  });
});

describe("writing a TMX file", () => {
  it("is a TMX 1.4b document another parser reads: the header's attributes, one tu per entry with its source and target tuv, texts as they are", () => {
    const entries = [
      {
        source_language: "en",
        target_language: "de",
        source_text: 'Save <b>"all"</b> & go',
        text: "Alles <b>speichern</b> & los",
        origin: "human",
        updated_at: "2026-11-25T05:30:00.000Z",
      },
      { source_language: "en", target_language: "fr", source_text: "Cart", text: "Panier", origin: "approved", updated_at: "2026-11-24T01:02:03.000Z" },
    ];
    const xml = tmxStart({ sourceLanguage: "en", createdAt: "2026-11-25T06:00:00.000Z", toolVersion: "1" }) + entries.map(tmxUnit).join("") + TMX_END;
    const errors: string[] = [];
    const doc = new DOMParser({ onError: (level, msg) => errors.push(`${level}: ${msg}`) }).parseFromString(xml, "text/xml");
    expect(errors).toEqual([]);
    const root = doc.documentElement!;
    expect([root.nodeName, root.getAttribute("version")]).toEqual(["tmx", "1.4"]);
    const header = root.getElementsByTagName("header")[0];
    for (const [name, value] of Object.entries({
      srclang: "en",
      creationtool: "Transync",
      segtype: "block",
      "o-tmf": "Transync",
      adminlang: "en",
      datatype: "plaintext",
      creationdate: "20261125T060000Z",
    }))
      expect(header.getAttribute(name), name).toBe(value);
    const tus = Array.from(root.getElementsByTagName("tu"));
    expect(
      tus.map((t) => [
        t.getAttribute("changedate"),
        t.getElementsByTagName("prop")[0].textContent,
        ...Array.from(t.getElementsByTagName("tuv")).map((v) => `${v.getAttribute("xml:lang")}=${v.getElementsByTagName("seg")[0].textContent}`),
      ]),
    ).toEqual([
      ["20261125T053000Z", "human", 'en=Save <b>"all"</b> & go', "de=Alles <b>speichern</b> & los"],
      ["20261124T010203Z", "approved", "en=Cart", "fr=Panier"],
    ]);
    // And back through the reader: the same translations.
    expect(readTmx(xml, SITE).translations).toEqual([
      { source: 'Save <b>"all"</b> & go', targetLanguage: "de", text: "Alles <b>speichern</b> & los" },
      { source: "Cart", targetLanguage: "fr", text: "Panier" },
    ]);
  });
});

describe("a TMX round trip across organizations", () => {
  it("exported from one site, imported into a site of another organization: its texts are exact memory hits there (estimated, not billed, delivered as tm_exact)", async () => {
    // Site A's memory: translations imported with a push (origin imported), plus one the site's editors approved.
    const a = await createSite({ target_languages: [{ code: "de" }] });
    const ca = client(a.key);
    const texts = { title: "Free shipping on <b>all</b> orders", body: "Returns & refunds within 30 days" };
    const pushed = await ca.put(
      "/v1/units",
      unit("page:a", [
        { key: "title", text: texts.title, format: "html", translations: { de: "Kostenloser Versand für <b>alle</b> Bestellungen" } },
        { key: "body", text: texts.body, translations: { de: "Rückgabe & Erstattung innerhalb von 30 Tagen" } },
      ]),
    );
    expect(pushed.status).toBe(200);
    const ownerA = await person(a.orgId, "owner");
    const exported = await dash("GET", `/dashboard/sites/${a.siteId}/memory.tmx?pair=en:de`, { cookie: ownerA.cookie });
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-disposition")).toBe(`attachment; filename="memory-site-${a.siteId}-en-de.tmx"`);
    expect(new DOMParser().parseFromString(exported.html, "text/xml").getElementsByTagName("tu").length).toBe(2);

    // Site B, another organization, knows nothing of it: the same texts would be billed.
    const b = await createSite({ target_languages: [{ code: "de" }] });
    expect(b.orgId).not.toBe(a.orgId);
    const cb = client(b.key);
    const page = unit("page:b", [
      { key: "t", text: texts.title, format: "html" },
      { key: "b", text: texts.body },
      { key: "n", text: "Something new" },
    ]);
    expect((await cb.put("/v1/units", page)).status).toBe(200);
    expect((await cb.post("/v1/jobs", { estimate_only: true })).body).toMatchObject({ estimated_segments: 3, estimated_tm_segments: 0 });

    const ownerB = await person(b.orgId, "owner");
    const form = new FormData();
    form.append("file", new File([exported.html], "memory.tmx", { type: "application/x-tmx+xml" }));
    const imported = await dash("POST", `/dashboard/sites/${b.siteId}/memory/import`, { cookie: ownerB.cookie, form });
    expect(imported.status).toBe(200);
    expect(imported.html).toContain("Imported 2 translation units: 2 translations stored.");

    const est = await cb.post("/v1/jobs", { estimate_only: true });
    expect(est.body).toMatchObject({ estimated_segments: 3, estimated_tm_segments: 2, estimated_characters: "Something new".length });
    const done = await job(cb, b.siteId);
    expect(done).toMatchObject({ done_segments: 3, tm_segments: 2, characters: "Something new".length });
    const hits = (await allResults(cb, "&unit=page:b")).filter((r) => r.origin === "tm_exact");
    expect(hits.map((r) => [r.key, r.text]).sort()).toEqual([
      ["b", "Rückgabe & Erstattung innerhalb von 30 Tagen"],
      ["t", "Kostenloser Versand für <b>alle</b> Bestellungen"],
    ]);
  });
});

describe("storing an import in the site object", () => {
  it("goes in transactions of IMPORT_CHUNK entries with a turn between two: a request sent after the import is answered before it ends", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const stub = stubOf(site.siteId);
    const settings = await runInDurableObject(stub, (o: SiteObject) => o.store.getMeta<SiteSettings>("settings")!);
    const translations = Array.from({ length: 2 * IMPORT_CHUNK + 10 }, (_, i) => ({ source: `Entry number ${i}`, targetLanguage: "de", text: `Eintrag ${i}` }));
    const order: string[] = [];
    const importing = stub.memoryImport(settings, translations).then((r) => {
      order.push("import");
      return r;
    });
    const listed = stub.memoryPairs(settings).then(() => order.push("pairs"));
    await Promise.all([importing, listed]);
    expect(order).toEqual(["pairs", "import"]);
    expect(await importing).toEqual({ stored: 2 * IMPORT_CHUNK + 10, kept: 0 });
    const count = await runInDurableObject(stub, (o: SiteObject) => o.store.one<{ n: number }>("SELECT count(*) AS n FROM memory")!.n);
    expect(count).toBe(2 * IMPORT_CHUNK + 10);
  });

  it("takes a file's later translation of the same source and language, and keeps an entry an editor corrected", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const stub = stubOf(site.siteId);
    const memory = () => runInDurableObject(stub, (o: SiteObject) => o.store.all("SELECT source_text, text, origin FROM memory ORDER BY source_text"));
    const result = await runInDurableObject(stub, (o: SiteObject) => {
      rememberTranslation(o.store, fingerprint("Edited"), "Edited", "en", "de", "Bearbeitet", "human");
      return importMemory(o.store, "en", [
        { source: "Twice", targetLanguage: "de", text: "Erst" },
        { source: "Edited", targetLanguage: "de", text: "Aus der Datei" },
        { source: "Twice", targetLanguage: "DE", text: "Zweimal" },
      ]);
    });
    expect(result).toEqual({ stored: 2, kept: 1 });
    expect(await memory()).toEqual([
      { source_text: "Edited", text: "Bearbeitet", origin: "human" },
      { source_text: "Twice", text: "Zweimal", origin: "imported" },
    ]);
  });
});

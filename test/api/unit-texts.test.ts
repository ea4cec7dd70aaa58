/**
 * Keys that follow edits, through the Worker (issue 40): `POST /v1/units/texts` (an extension of
 * version 1) and a whole-file connector built from the package (`previousSegments`,
 * `splitMarkdown(doc, { previous })`, `pushUnits`, `runJob`, `translatedDocument`). One inserted
 * and one edited paragraph make exactly one segment missing and one stale per language; the
 * stale one keeps its earlier translation; the next job bills just those two.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTransyncClient, previousSegments, pushUnits, type Review, review, runJob, type Schemas, splitMarkdown, translatedDocument } from "../../client/src/index.js";
import type { SiteObject } from "../../src/site/object";
import { sourceTexts } from "../../src/site/sync/source-texts";
import { client, createSite, unit } from "../helpers/api";
import { stubOf } from "../helpers/site";

const BASE = "https://api.test";

/** A typed client through the Worker that counts its calls by "METHOD path". */
function connector(key: string) {
  const calls: string[] = [];
  const api = createTransyncClient({
    baseUrl: BASE,
    key,
    fetch: (req: Request) => {
      calls.push(`${req.method} ${new URL(req.url).pathname}`);
      return exports.default.fetch(req);
    },
  });
  return { api, calls };
}

afterEach(() => vi.restoreAllMocks());

describe("POST /v1/units/texts", () => {
  it("answers each known unit's segments by position, in the order asked, and lists unknown and deleted keys", async () => {
    const site = await createSite();
    const c = client(site.key);
    await c.put(
      "/v1/units",
      unit("post:1", [
        { key: "b", text: "Second", position: 1 },
        { key: "a", text: "First", position: 0 },
      ]),
    );
    await c.put("/v1/units", unit("post:2", [{ key: "t", text: "Title two" }]));
    await c.put("/v1/units", unit("post:3", [{ key: "t", text: "Gone" }]));
    await c.del("/v1/units/post:3");
    const res = await c.post("/v1/units/texts", { keys: ["post:2", "post:9", "post:1", "post:3", "post:2"] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      units: [
        { external_key: "post:2", segments: [{ key: "t", text: "Title two" }] },
        {
          external_key: "post:1",
          segments: [
            { key: "a", text: "First" },
            { key: "b", text: "Second" },
          ],
        },
      ],
      unknown: ["post:9", "post:3"],
      more: [],
    });
  });

  it("refuses no keys, more than 100 and a key outside the pattern with a 422 naming the field", async () => {
    const c = client((await createSite()).key);
    const none = await c.post("/v1/units/texts", { keys: [] });
    expect(none.status).toBe(422);
    expect(none.body.detail).toMatch(/keys/);
    const many = await c.post("/v1/units/texts", { keys: Array.from({ length: 101 }, (_, i) => `post:${i}`) });
    expect(many.status).toBe(422);
    expect(many.body.detail).toMatch(/keys.*100/);
    const bad = await c.post("/v1/units/texts", { keys: ["post 1"] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/keys\[0\]/);
  });

  it("stops an answer at its character budget (the first unit always whole) and lists the rest in `more`; the helper asks again", async () => {
    const site = await createSite();
    const c = client(site.key);
    for (const k of [1, 2, 3]) await c.put("/v1/units", unit(`post:${k}`, [{ key: "t", text: "x".repeat(10) }]));
    const answer = await runInDurableObject(stubOf(site.siteId), (o: SiteObject) => sourceTexts(o.store, ["post:1", "post:9", "post:2", "post:3"], 15));
    expect(answer.units.map((u) => u.external_key)).toEqual(["post:1"]);
    expect(answer.unknown).toEqual(["post:9"]);
    expect(answer.more).toEqual(["post:2", "post:3"]);

    // previousSegments: one call per 100 keys.
    const { api, calls } = connector(site.key);
    const keys = Array.from({ length: 150 }, (_, i) => `post:${i + 1}`);
    const found = await previousSegments(api, keys);
    expect([...found.keys()]).toEqual(["post:1", "post:2", "post:3"]);
    expect(found.get("post:2")).toEqual([{ key: "t", text: "x".repeat(10) }]);
    expect(calls).toEqual(["POST /v1/units/texts", "POST /v1/units/texts"]);
  });
});

// Five Markdown files, as a static site holds them.
const DOCS: Record<string, string> = {
  "docs:index.md": "---\ntitle: Home\n---\n\n# Welcome\n\nThis is the home page of the documentation.\n\nRead the guide first.\n",
  "docs:install.md": "# Install\n\nRun the installer on the machine that serves the site.\n\nThen start it.\n",
  "docs:config.md": "# Configure\n\nWrite a config file next to the content folder.\n\nKeep the key secret.\n",
  "docs:about.md":
    "---\ntitle: About us\n---\n\nWe translate websites for small teams and keep every language in step with the source, paragraph by paragraph, without copying files around by hand.\n\nWe started in 2020.\n",
  "docs:blog.md": "# First post\n\nHello, world.\n\nMore to come.\n",
};

describe("a whole-file connector built from the package", () => {
  it("after one insert and one edit: exactly one segment missing and one stale per language, the stale one's translation still listed, and the job bills just those two", async () => {
    const site = await createSite({ plan: "pro", handshake: { languages: ["de", "fr"], capabilities: ["whole_unit"] } });
    const { api, calls } = connector(site.key);
    const stub = stubOf(site.siteId);
    const keys = Object.keys(DOCS);
    const docs = { ...DOCS };
    const jobOptions = { sleep: async () => void (await runDurableObjectAlarm(stub)), confirm: (e: Schemas["EstimateOut"]) => e.overage_cents === 0 && !!e.included_characters };

    /** The connector's push: the units' previous segments in one call, each file split with them. */
    async function push() {
      const previous = await previousSegments(api, keys);
      const units: Schemas["UnitSnapshotIn"][] = keys.map((k) => ({
        external_key: k,
        adapter: "wordpress",
        segments: splitMarkdown(docs[k], { previous: previous.get(k) }).segments,
      }));
      return pushUnits(api, units);
    }

    await push();
    const first = await runJob(api, { type: "translate", units: keys }, jobOptions);
    expect(first.status).toBe("succeeded");
    // The editor approves the German drafts; French stays in review.
    const before = await previousSegments(api, keys);
    const approvals: Review[] = [];
    for (const k of keys) {
      const status = (await api.GET("/v1/units/{external_key}/status", { params: { path: { external_key: k }, query: { include: "results" } } })).data!;
      for (const s of status.segments) approvals.push({ id: s.results!.de.id!, outcome: "approved" });
    }
    expect((await review(api, approvals)).updated).toBe(approvals.length);

    // One paragraph inserted in one file, one word edited in another.
    const inserted = "A brand new paragraph about the second release.";
    docs["docs:install.md"] = docs["docs:install.md"].replace("# Install\n\n", `# Install\n\n${inserted}\n\n`);
    const editedFrom = "We translate websites for small teams and keep every language in step with the source, paragraph by paragraph, without copying files around by hand.";
    const editedTo = editedFrom.replace("small teams", "small and large teams");
    docs["docs:about.md"] = docs["docs:about.md"].replace(editedFrom, editedTo);

    calls.length = 0;
    const pushed = await push();
    // ⌈5 / 100⌉ = 1 read of the previous segments, 1 batch push.
    expect(calls).toEqual(["POST /v1/units/texts", "PUT /v1/units/batch"]);
    const totals = pushed.synced.reduce((t, { result }) => ({ added: t.added + result.added, changed: t.changed + result.changed, removed: t.removed + result.removed }), {
      added: 0,
      changed: 0,
      removed: 0,
    });
    expect(totals).toEqual({ added: 1, changed: 1, removed: 0 });

    const status = (await api.GET("/v1/status")).data!;
    for (const l of status.languages) expect([l.code, l.missing, l.stale]).toEqual([l.code, 1, 1]);

    // The edited paragraph kept its key: its earlier (approved) translation is still listed beside the change.
    const aboutKey = before.get("docs:about.md")!.find((s) => s.text === editedFrom)!.key;
    const about = (await api.GET("/v1/units/{external_key}/status", { params: { path: { external_key: "docs:about.md" }, query: { include: "text,results" } } })).data!;
    const stale = about.segments.find((s) => s.key === aboutKey)!;
    expect(stale.text).toBe(editedTo);
    expect(stale.states).toEqual({ de: "stale", fr: "stale" });
    expect(stale.results!.de).toMatchObject({ status: "approved", origin: "mt" });
    expect(stale.results!.de.text.length).toBeGreaterThan(0);

    const used = (await api.GET("/v1/usage")).data!.used_characters;
    const second = await runJob(api, { type: "translate", units: keys }, jobOptions);
    const points = (t: string) => [...t].length;
    expect(second.estimated_segments).toBe(4);
    expect(second.done_segments).toBe(4);
    expect(second.characters).toBe(2 * (points(inserted) + points(editedTo)));
    expect((await api.GET("/v1/usage")).data!.used_characters - used).toBe(second.characters);

    // The translated files rebuilt whole from every block's current translation.
    const rebuilt = await translatedDocument(api, "docs:about.md", "de", docs["docs:about.md"], { draft: true });
    expect(rebuilt.complete).toBe(true);
    expect(rebuilt.document).toMatch(/^---\ntitle: .+\ndraft: true\n---\n/);
    expect(rebuilt.document).not.toContain(editedTo);
    expect(rebuilt.unacknowledged).toHaveLength(1);
  });

  it("translatedDocument leaves stale, missing and unpushed blocks in the source language and says so", async () => {
    const site = await createSite({ plan: "scale" });
    const { api } = connector(site.key);
    const stub = stubOf(site.siteId);
    const doc = "# Title here\n\nFirst paragraph of the page.\n\nSecond paragraph of the page.\n";
    await pushUnits(api, [{ external_key: "page:1", adapter: "wordpress", segments: splitMarkdown(doc).segments }]);
    await runJob(api, { type: "translate", units: ["page:1"] }, { sleep: async () => void (await runDurableObjectAlarm(stub)) });
    const full = await translatedDocument(api, "page:1", "de", doc);
    expect(full).toMatchObject({ complete: true, missing: [] });
    expect(full.unacknowledged).toHaveLength(3);

    // The source changed since (one block edited and pushed, one added and not pushed yet).
    const previous = (await previousSegments(api, ["page:1"])).get("page:1");
    const edited = doc.replace("First paragraph", "First changed paragraph");
    const segments = splitMarkdown(edited, { previous }).segments;
    await pushUnits(api, [{ external_key: "page:1", adapter: "wordpress", segments }]);
    const later = await translatedDocument(api, "page:1", "de", `${edited}\nNot pushed yet.\n`);
    expect(later.complete).toBe(false);
    expect(later.missing).toHaveLength(2);
    expect(later.document).toContain("First changed paragraph of the page.");
    expect(later.document).toContain("Not pushed yet.");
    expect(later.document).not.toContain("Second paragraph of the page.");
  });
});

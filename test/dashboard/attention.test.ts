/**
 * The review queue's decisions (issue 23): `back` is checked before the decision is applied,
 * and a fix runs the same QA as engine output, saved with QA errors only once confirmed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin, client, createSite, type TestSite, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { job } from "../helpers/jobs";

let site: TestSite;
let editor: Awaited<ReturnType<typeof person>>;
let c: ReturnType<typeof client>;

let units = 0;
/** Held back by max_length (pseudo output grows past 12 characters), one text and one HTML segment per unit; new texts each time (no memory hits). */
async function heldItems(key: string) {
  const word = ["red", "green", "blue", "gold", "grey"][units++];
  const pushed = await c.put(
    "/v1/units",
    unit(key, [
      { key: "title", text: `Hello ${word} world`, max_length: 12 },
      { key: "body", text: `<p>Hello ${word} world</p>`, format: "html", max_length: 12 },
    ]),
  );
  expect(pushed.status).toBe(200);
  await job(c, site.siteId);
  const items = (await c.get("/v1/attention")).body.items.filter((i: { unit: string }) => i.unit === key) as { id: string; key: string }[];
  expect(items.map((i) => i.key).sort()).toEqual(["body", "title"]);
  return Object.fromEntries(items.map((i) => [i.key, i.id])) as { title: string; body: string };
}

const auditActions = async () =>
  (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items.map((i: { action: string; detail: unknown }) => `${i.action} ${JSON.stringify(i.detail)}`);
const waiting = async (key: string) => ((await c.get("/v1/attention")).body.items as { id: string; unit: string }[]).filter((i) => i.unit === key).map((i) => i.id);

beforeAll(async () => {
  site = await createSite({ qa_mode: "separate", target_languages: [{ code: "de" }] });
  c = client(site.key);
  editor = await person(site.orgId, "editor");
});

describe("back in the review queue's form", () => {
  it("with CR/LF or another control character is a 400 and the decision is not applied nor audited", async () => {
    const held = await heldItems("post:back");
    const queue = `/dashboard/sites/${site.siteId}/attention`;
    for (const back of [`${queue}\r\nSet-Cookie: x=y`, `${queue}?unit=a\nb`, `${queue}\u0000`, `${queue}\u007f`]) {
      for (const form of [
        { action: "discard", back },
        { action: "fix", text: "Hallo Welt", back },
      ] as Record<string, string>[]) {
        const res = await dash("POST", `${queue}/${held.title}`, { cookie: editor.cookie, form });
        expect(res.status, JSON.stringify(back)).toBe(400);
        expect(res.html).toContain("control characters");
      }
    }
    expect(await waiting("post:back")).toEqual(expect.arrayContaining([held.title, held.body]));
    expect((await auditActions()).filter((a: string) => a.startsWith("attention."))).toEqual([]);

    // Another site, or a path out of the dashboard, returns to the queue instead.
    const outside = await dash("POST", `${queue}/${held.title}`, { cookie: editor.cookie, form: { action: "discard", back: "https://evil.example/x" } });
    expect(outside.status).toBe(303);
    expect(outside.location).toBe(`${queue}?done=discarded`);
    const up = await dash("POST", `${queue}/${held.body}`, { cookie: editor.cookie, form: { action: "discard", back: "/dashboard/../v1/docs" } });
    expect(up.location).toBe(`${queue}?done=discarded`);
  });
});

describe("a fix with QA errors", () => {
  it("is not saved until the editor confirms it, having seen the findings; saved, its findings stay visible", async () => {
    const held = await heldItems("post:qa");
    const path = `/dashboard/sites/${site.siteId}/attention/${held.body}`;
    const back = `/dashboard/sites/${site.siteId}/attention?unit=post%3Aqa`;
    const text = "<p>Hallo</p><script>alert(1)</script>";

    const asked = await dash("POST", path, { cookie: editor.cookie, form: { action: "fix", text, back } });
    expect(asked.status).toBe(409);
    expect(asked.html).toContain("Save this fix despite QA errors?");
    expect(asked.html).toContain("The HTML tags differ from the source: unexpected &lt;script&gt;, &lt;/script&gt;.");
    expect(asked.html).toContain("&lt;p&gt;Hello green world&lt;/p&gt;"); // the source, escaped
    expect(asked.html).toContain("&lt;p&gt;Hallo&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;</textarea>"); // the editor's text, kept
    expect(asked.html).toContain('name="confirm" value="1"');
    expect(asked.html).toContain(`name="back" value="${back}"`);
    expect(asked.html).not.toContain("<script>");
    expect(await waiting("post:qa")).toContain(held.body);
    expect((await auditActions()).filter((a: string) => a.includes(held.body))).toEqual([]);
    expect((await c.get("/v1/results?unit=post%3Aqa")).body.results.map((r: { text: string }) => r.text)).not.toContain(text);

    const saved = await dash("POST", path, { cookie: editor.cookie, form: { action: "fix", text, back, confirm: "1" } });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${back}&done=fixed`);
    expect(await waiting("post:qa")).not.toContain(held.body);
    const status = (await c.get("/v1/units/post%3Aqa/status")).body;
    const body = status.segments.find((s: { key: string }) => s.key === "body");
    expect(body.states).toEqual({ de: "ok" });
    expect(body.qa.de.map((i: { code: string }) => i.code)).toContain("html_tags");
    expect(await auditActions()).toContain(`attention.fix ${JSON.stringify({ result_id: held.body })}`);

    // Without QA errors a fix is saved at once, as before.
    const plain = await dash("POST", `/dashboard/sites/${site.siteId}/attention/${held.title}`, { cookie: editor.cookie, form: { action: "fix", text: "Hallo Welt", back } });
    expect(plain.status).toBe(303);
    expect(await waiting("post:qa")).toEqual([]);
  });

  it("through the admin API: 409 with the findings and nothing saved, unless confirm: true", async () => {
    const held = await heldItems("post:admin");
    const path = `/admin/v1/sites/${site.siteId}/attention/${held.body}`;
    const text = "<p>Hallo</p><script>alert(1)</script>";
    const refused = await admin("POST", path, { action: "fix", text });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      detail: expect.stringContaining("confirm: true"),
      qa: [expect.objectContaining({ code: "html_tags", severity: "error" })],
      source_text: "<p>Hello blue world</p>",
    });
    expect(await waiting("post:admin")).toContain(held.body);
    expect((await admin("POST", path, { action: "fix", text, confirm: false })).status).toBe(409);
    const saved = await admin("POST", path, { action: "fix", text, confirm: true });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ id: held.body, state: "ok" });
    // No QA error: no confirmation needed.
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/attention/${held.title}`, { action: "fix", text: "Hallo Welt" })).status).toBe(200);
  });
});

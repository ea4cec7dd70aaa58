/** The share_memory setting on the site's Settings page: shown, changeable by admins (not editors), audited, effective at once. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, createSite } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";

/** The settings form as the page sends it for a site with German and French (pseudo). */
const form = (extra: Record<string, string | string[]> = {}) => ({
  name: "Sharing site",
  languages: "2",
  l0_code: "de",
  l0_engine: "pseudo",
  l0_formality: "default",
  l0_writable: "1",
  l1_code: "fr",
  l1_engine: "pseudo",
  l1_formality: "default",
  l1_writable: "1",
  qa_mode: "editors",
  review_mode: "draft",
  adapters: ["wordpress"],
  engines: ["pseudo"],
  ...extra,
});

const shareChecked = /<input type="checkbox" name="share_memory" value="1" checked/;

describe("share_memory on the Settings page", () => {
  it("a new site shares; an admin turns it off and on, each change audited; an editor cannot", async () => {
    const site = await createSite({ name: "Sharing site" });
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}`)).body).toMatchObject({ share_memory: true });
    const [adminP, editor] = await Promise.all([person(site.orgId, "admin"), person(site.orgId, "editor")]);

    const page = await dash("GET", `/dashboard/sites/${site.siteId}/settings`, { cookie: adminP.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toMatch(shareChecked);

    // An unchecked box: sharing off.
    expect((await dash("POST", `/dashboard/sites/${site.siteId}/settings`, { cookie: adminP.cookie, form: form() })).status).toBe(303);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}`)).body).toMatchObject({ share_memory: false });
    expect((await dash("GET", `/dashboard/sites/${site.siteId}/settings`, { cookie: adminP.cookie })).html).not.toMatch(shareChecked);

    // An editor's post changes nothing.
    const refused = await dash("POST", `/dashboard/sites/${site.siteId}/settings`, { cookie: editor.cookie, form: form({ share_memory: "1" }) });
    expect(refused.status).toBe(403);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}`)).body).toMatchObject({ share_memory: false });

    expect((await dash("POST", `/dashboard/sites/${site.siteId}/settings`, { cookie: adminP.cookie, form: form({ share_memory: "1" }) })).status).toBe(303);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}`)).body).toMatchObject({ share_memory: true });

    const audit = await env.DB.prepare("SELECT actor, detail FROM audit_log WHERE action = 'site.update' AND target = ? ORDER BY id")
      .bind(`site:${site.siteId}`)
      .all<{ actor: string; detail: string }>();
    const sharing = audit.results.filter((r) => (JSON.parse(r.detail).fields as string[]).includes("share_memory"));
    expect(sharing).toHaveLength(2);
  });

  it("sites that existed before the setting (rows without the column's value) do not share; new ones do", async () => {
    const site = await createSite();
    // A row as it stood before migration 0005: the column takes its default.
    const before = await env.DB.prepare(
      "INSERT INTO sites (organization_id, name, source_language, target_languages, enabled_adapters, enabled_engines) VALUES (?, 'Old site', 'en', '[]', '[]', '[]') RETURNING share_memory",
    )
      .bind(site.orgId)
      .first<{ share_memory: number }>();
    expect(before?.share_memory).toBe(0);
    expect((await admin("GET", `/admin/v1/sites/${site.siteId}`)).body).toMatchObject({ share_memory: true });
  });
});

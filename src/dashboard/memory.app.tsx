/**
 * A site's translation memory (admins and owners): search and filter, correct an entry (it
 * becomes human), delete one, TMX export (all pairs or one) and import. Everything goes through
 * ops/memory.ops.ts; changes are audited there.
 */
import { Hono } from "hono";
import { MemoryEditIn, MemoryKeyIn } from "../api/admin.schemas";
import { ApiError } from "../errors";
import { deleteMemory, editMemory, exportTmx, importTmx, listMemory, memoryEntry } from "../ops/memory.ops";
import { siteAccess } from "./access";
import type { DashApp, DashContext } from "./auth";
import { form, id, str } from "./form";
import { MemoryEntryPage, type MemoryFilters, MemoryPage } from "./pages/memory.page";
import { parsed } from "./parse";
import { notice, type PageStatus, render, type SiteAccess, siteFrame } from "./respond";

export const memory = new Hono<DashApp>();

/** Entries per page. */
const PAGE = 50;
/** The most characters of a search (longer ones are cut: the index looks for a substring). */
const QUERY_MAX = 200;

const ORIGINS = new Set(["approved", "human", "imported"]);

/** `source:target` from a form or query, or null (anything else is no pair: every pair). */
function pairOf(value: string): { sourceLanguage: string; targetLanguage: string } | null {
  const m = /^([A-Za-z0-9_-]{2,15}):([A-Za-z0-9_-]{2,15})$/.exec(value);
  return m ? { sourceLanguage: m[1].toLowerCase(), targetLanguage: m[2].toLowerCase() } : null;
}

function filtersOf(c: DashContext): MemoryFilters {
  const pair = pairOf(c.req.query("pair") ?? "");
  const origin = c.req.query("origin") ?? "";
  const offset = Number(c.req.query("offset") ?? 0);
  const q = c.req.query("q") ?? "";
  // No text of the memory holds U+0000 (the API refuses it), and SQLite would cut the query there.
  if (q.includes("\u0000")) throw new ApiError(422, "q: must not contain U+0000 (NUL)");
  return {
    q: q.slice(0, QUERY_MAX),
    pair: pair ? `${pair.sourceLanguage}:${pair.targetLanguage}` : "",
    origin: ORIGINS.has(origin) ? origin : "",
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
  };
}

async function memoryPage(c: DashContext, a: SiteAccess, extra: { notice?: string | null; error?: string | null } = {}, filters = filtersOf(c), status: PageStatus = 200) {
  const pair = pairOf(filters.pair);
  const data = await listMemory(c.env, a.site, {
    query: filters.q,
    sourceLanguage: pair?.sourceLanguage,
    targetLanguage: pair?.targetLanguage,
    origin: filters.origin || undefined,
    limit: PAGE,
    offset: filters.offset,
  });
  return render(c, <MemoryPage {...siteFrame(c, a, "memory")} data={data} filters={filters} limit={PAGE} {...extra} />, status);
}

const keyOf = (values: (name: string) => string) =>
  parsed(MemoryKeyIn, { source_fingerprint: values("source_fingerprint"), source_language: values("source_language"), target_language: values("target_language") });

memory.get("/sites/:site_id/memory", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  return memoryPage(c, a, { notice: notice(c) });
});

memory.get("/sites/:site_id/memory.tmx", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const pair = pairOf(c.req.query("pair") ?? "");
  const stream = await exportTmx(c.env, a.actor, a.site, pair);
  const name = `memory-site-${a.site.id}${pair ? `-${pair.sourceLanguage}-${pair.targetLanguage}` : ""}.tmx`;
  c.header("Content-Type", "application/x-tmx+xml; charset=utf-8");
  c.header("Content-Disposition", `attachment; filename="${name}"`);
  return c.body(stream);
});

memory.get("/sites/:site_id/memory/entry", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const entry = await memoryEntry(
    c.env,
    a.site,
    keyOf((k) => c.req.query(k) ?? ""),
  );
  return render(c, <MemoryEntryPage {...siteFrame(c, a, "memory")} entry={entry} />);
});

memory.post("/sites/:site_id/memory/entry", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const f = await form(c);
  const key = keyOf((k) => str(f, k));
  try {
    await editMemory(c.env, a.actor, a.site, parsed(MemoryEditIn, { ...key, text: str(f, "text") }));
  } catch (err) {
    // A refused text is shown with the form, the editor's text kept.
    if (!(err instanceof ApiError && err.status === 422)) throw err;
    const entry = await memoryEntry(c.env, a.site, key);
    return render(c, <MemoryEntryPage {...siteFrame(c, a, "memory")} entry={entry} text={str(f, "text")} error={err.detail} />, 422);
  }
  return c.redirect(`/dashboard/sites/${a.site.id}/memory?done=memory-edited`, 303);
});

memory.post("/sites/:site_id/memory/delete", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const f = await form(c);
  await deleteMemory(
    c.env,
    a.actor,
    a.site,
    keyOf((k) => str(f, k)),
  );
  return c.redirect(`/dashboard/sites/${a.site.id}/memory?done=memory-deleted`, 303);
});

/** The import's answer is the page with its result (counts), or with the problem that refused the file (nothing stored). */
memory.post("/sites/:site_id/memory/import", async (c) => {
  const a = await siteAccess(c, id(c.req.param("site_id")), "admin");
  const file = (await form(c, { upload: true })).file;
  const upload = Array.isArray(file) ? file[0] : file;
  const blank: MemoryFilters = { q: "", pair: "", origin: "", offset: 0 };
  try {
    if (!(upload instanceof File) || upload.size === 0) throw new ApiError(422, "file: choose a TMX file to import.");
    const r = await importTmx(c.env, a.actor, a.site, await upload.text());
    const parts = [
      `Imported ${r.units.toLocaleString("en")} translation unit${r.units === 1 ? "" : "s"}: ${r.stored.toLocaleString("en")} translation${r.stored === 1 ? "" : "s"} stored.`,
      r.kept ? `${r.kept.toLocaleString("en")} kept as corrected here (origin human).` : "",
      r.other_languages ? `${r.other_languages.toLocaleString("en")} in languages this site does not translate into were left out.` : "",
    ];
    return memoryPage(c, a, { notice: parts.filter(Boolean).join(" ") }, blank);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 422 || err.status === 413))
      return memoryPage(c, a, { error: `The file was not imported (nothing was stored): ${err.detail.replace(/^file: /, "")}` }, blank, err.status);
    throw err;
  }
});

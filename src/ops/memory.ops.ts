/**
 * A site's translation memory, as the memory page handles it: list and search, edit an entry
 * (it becomes `human`), delete one, TMX 1.4b import and export. The memory is the site object's
 * (src/site/memory/admin.ts); each change is audited right after the object answers (the
 * entry's key, never its texts: audit details hold no translations).
 */
import type { MemoryEdit, MemoryKeyInput } from "../api/admin.schemas";
import { type AuditAction, auditStatement } from "../control/audit.control";
import { controlDb } from "../control/db";
import type { SiteSettings } from "../control/sites.control";
import type { MemorySearch } from "../site/memory/search";
import { readTmx, TMX_END, tmxStart, tmxUnit, writable } from "../site/memory/tmx";
import { siteStub } from "../site/stub";
import type { Actor } from "./actor";

/** The version written as the TMX header's `creationtoolversion`: the API's. */
const TOOL_VERSION = "1";

async function audit(env: Env, actor: Actor, site: SiteSettings, action: AuditAction, detail: Record<string, unknown>) {
  await auditStatement(controlDb(env.DB), { organizationId: site.organizationId, actor, action, target: `site:${site.id}`, detail }).run();
}

const keyDetail = (k: MemoryKeyInput) => ({ source_fingerprint: k.source_fingerprint, source_language: k.source_language, target_language: k.target_language });

export async function listMemory(env: Env, site: SiteSettings, search: MemorySearch) {
  return siteStub(env, site.id).memoryList(site, search);
}

export async function memoryEntry(env: Env, site: SiteSettings, key: MemoryKeyInput) {
  return siteStub(env, site.id).memoryEntry(site, key);
}

/** An editor's correction: the entry's text changes, its origin becomes `human`. */
export async function editMemory(env: Env, actor: Actor, site: SiteSettings, edit: MemoryEdit) {
  const entry = await siteStub(env, site.id).memoryEdit(site, edit, edit.text);
  await audit(env, actor, site, "memory.edit", keyDetail(edit));
  return entry;
}

export async function deleteMemory(env: Env, actor: Actor, site: SiteSettings, key: MemoryKeyInput) {
  const entry = await siteStub(env, site.id).memoryDelete(site, key);
  await audit(env, actor, site, "memory.delete", keyDetail(key));
  return entry;
}

/**
 * Imports a TMX file: read and checked here, in the Worker (a refused file never reaches the
 * site object, so nothing is stored), then stored by the object in one transaction.
 */
export async function importTmx(env: Env, actor: Actor, site: SiteSettings, xml: string) {
  const read = readTmx(xml, { sourceLanguage: site.sourceLanguage, targetLanguages: site.targetLanguages.map((t) => t.code) });
  const { stored, kept } = await siteStub(env, site.id).memoryImport(site, read.translations);
  const result = { units: read.units, stored, kept, other_languages: read.otherLanguages };
  await audit(env, actor, site, "memory.import", result);
  return result;
}

/** Which entries an export writes: every pair, or one. */
export interface ExportPair {
  sourceLanguage: string;
  targetLanguage: string;
}

/**
 * The memory (or one language pair of it) as a TMX 1.4b document, streamed: the object is read
 * page by page (site/memory/admin.ts EXPORT_PAGE entries per call), so a large memory never has to
 * fit one answer. Texts XML cannot carry (C0 control characters) are left out. Audited when
 * asked for (an export hands the memory out).
 */
export async function exportTmx(env: Env, actor: Actor, site: SiteSettings, pair: ExportPair | null, now = new Date()): Promise<ReadableStream<Uint8Array>> {
  const stub = siteStub(env, site.id);
  let sourceLanguage = pair?.sourceLanguage.toLowerCase();
  if (!sourceLanguage) {
    const sources = [...new Set((await stub.memoryPairs(site)).map((p) => p.source_language))];
    // TMX's word for a file whose units do not share one source language.
    sourceLanguage = sources.length === 1 ? sources[0] : sources.length === 0 ? site.sourceLanguage.toLowerCase() : "*all*";
  }
  await audit(env, actor, site, "memory.export", pair ? { source_language: pair.sourceLanguage, target_language: pair.targetLanguage } : { pairs: "all" });
  const encoder = new TextEncoder();
  let after: number | null = 0;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(tmxStart({ sourceLanguage: sourceLanguage!, createdAt: now.toISOString(), toolVersion: TOOL_VERSION })));
        return;
      }
      // Pages whose entries are all left out enqueue nothing: read on until one does, or the end.
      while (after !== null) {
        const page = await stub.memoryExport(site, { sourceLanguage: pair?.sourceLanguage, targetLanguage: pair?.targetLanguage, after });
        const units = page.entries.filter((e) => writable(e.source_text) && writable(e.text)).map(tmxUnit);
        after = page.next;
        if (units.length) {
          controller.enqueue(encoder.encode(units.join("")));
          return;
        }
      }
      controller.enqueue(encoder.encode(TMX_END));
      controller.close();
    },
  });
}

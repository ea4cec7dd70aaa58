// The CLI's settings: flags, then transync.config.json in the working directory, then the
// environment (TRANSYNC_URL, TRANSYNC_KEY). The key is read from the environment only, never
// from the config file, so the file can be committed.
import { existsSync, readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { ADAPTERS, type Adapter, isAdapter } from "../adapters.js";

export interface Config {
  url: string;
  key: string;
  /** Folder of source files, relative to the working directory. */
  dir: string;
  /** Glob of source files under `dir` (`*`, `**`, `?`; comma-separated for several). */
  include: string;
  /** Where translations go: `{lang}` and `{path}` (the file's path under `dir`) are filled in. */
  out: string;
  /** Front matter fields sent as segments. */
  fields: string[];
  /** Adapter of the pushed units; default the first of the site's enabled adapters. */
  adapter: Adapter | null;
  /** Languages the site has (the handshake's `languages`); default every target language of the site. */
  languages: string[] | null;
  cwd: string;
}

export class UsageError extends Error {}

type Flags = Partial<Record<"url" | "dir" | "include" | "out" | "fields" | "adapter" | "languages", string>>;

const list = (v: unknown) =>
  Array.isArray(v)
    ? v.map(String)
    : String(v)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);

export function loadConfig(flags: Flags, env: Record<string, string | undefined>, cwd: string): Config {
  const path = join(cwd, "transync.config.json");
  let file: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      file = JSON.parse(readFileSync(path, "utf8"));
    } catch (e) {
      throw new UsageError(`transync.config.json is not valid JSON: ${(e as Error).message}`);
    }
    if ("key" in file) throw new UsageError("transync.config.json must not hold the key: set TRANSYNC_KEY in the environment");
  }
  const pick = (name: keyof Flags) => flags[name] ?? (file[name] as string | string[] | undefined);
  const url = (flags.url ?? (file.url as string | undefined) ?? env.TRANSYNC_URL ?? "").trim();
  const key = (env.TRANSYNC_KEY ?? "").trim();
  if (!url) throw new UsageError("no service address: pass --url, set `url` in transync.config.json or TRANSYNC_URL");
  if (!key) throw new UsageError("no API key: set TRANSYNC_KEY");
  const fields = pick("fields");
  const languages = pick("languages");
  const adapter = (pick("adapter") as string | undefined) ?? null;
  if (adapter !== null && !isAdapter(adapter)) throw new UsageError(`adapter must be one of ${ADAPTERS.join(", ")} (got ${JSON.stringify(adapter)})`);
  return {
    url,
    key,
    // `./content/` and `content` are one folder (unit keys and the status prefix come from it).
    dir: normalize(String(pick("dir") ?? "content")).replace(/\/+$/, "") || ".",
    include: String(pick("include") ?? "**/*.md"),
    out: String(pick("out") ?? "content/{lang}/{path}"),
    fields: fields === undefined ? ["title", "description"] : list(fields),
    adapter,
    languages: languages === undefined ? null : list(languages),
    cwd,
  };
}

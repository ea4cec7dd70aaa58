// Which files are pushed, the unit key of each, and how each kind of file is split and joined.
import { readdirSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import type { PreviousSegment } from "../split/align.js";
import { joinHtml, splitHtml } from "../split/html.js";
import { flattenJson, joinJson } from "../split/json.js";
import { encodeKeyPart, type SplitProblem, type SplitSegment, type Translations } from "../split/keys.js";
import { joinMarkdown, markDraft, splitMarkdown } from "../split/markdown.js";

/** A glob (`*` within a folder, `**` across folders, `?` one character) as a regular expression. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      re += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** Files under `dir` (paths relative to it, with `/`) that match `include`, less the excluded folders. */
export function listFiles(root: string, include: string, excluded: string[]): string[] {
  const patterns = include.split(",").map((g) => globToRegExp(g.trim()));
  const out: string[] = [];
  const walk = (abs: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(abs, e.name);
      const rel = relative(root, path).split(sep).join("/");
      if (excluded.some((x) => rel === x || rel.startsWith(`${x}/`))) continue;
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && patterns.some((p) => p.test(rel))) out.push(rel);
    }
  };
  walk(root);
  return out.sort();
}

/**
 * The unit key of a file: its path from the working directory, `/` written as `:`, letters,
 * digits, `.` and `-` as they are and any other character as `_` and its UTF-8 bytes in hex
 * (`content/guide/getting started.md` → `content:guide:getting_20started.md`). Deterministic
 * and reversible, so the same file always finds its unit and two files never share one.
 */
export function unitKey(pathFromCwd: string): string {
  const key = encodeKeyPart(pathFromCwd.split(sep).join("/"), { keepDot: true, slash: ":" });
  if (key.length > 255) throw new Error(`${pathFromCwd}: the unit key would be ${key.length} characters, over 255`);
  return key;
}

export interface SplitFile {
  segments: SplitSegment[];
  /** What keeps the file from being pushed (a NUL in a block, invalid front matter), each naming its line. */
  problems?: SplitProblem[];
  /** The translated file (drafts: front matter `draft: true` for Markdown). */
  join(translations: Translations): string;
}

/**
 * Splits a file by its extension. `previous` (the unit's segments in the service) lines the
 * blocks' keys up with them, so an edited Markdown or HTML block keeps its key (JSON keys are
 * paths, stable without it).
 */
export function splitFile(path: string, text: string, fields: string[], previous?: readonly PreviousSegment[]): SplitFile {
  const ext = extname(path).toLowerCase();
  if (ext === ".json") return { segments: flattenJson(JSON.parse(text)), join: (t) => joinJson(text, t) };
  if (ext === ".html" || ext === ".htm") {
    const split = splitHtml(text, { previous });
    return { segments: split.segments, problems: split.problems, join: (t) => joinHtml(split, t) };
  }
  const split = splitMarkdown(text, { fields, previous });
  return { segments: split.segments, problems: split.problems, join: (t) => markDraft(joinMarkdown(split, t)) };
}

// Which files are pushed, the unit key of each, and the splitter of each (split/splitters.ts SPLITTERS).
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { PreviousSegment } from "../split/align.js";
import { encodeKeyPart, type SplitProblem, type SplitSegment, type Translations } from "../split/keys.js";
import { type Splitter, splitterFor } from "../split/splitters.js";
import { UsageError } from "./config.js";

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
  /** What keeps the file from being pushed (a NUL in a block, invalid front matter or JSON), each naming its line. */
  problems?: SplitProblem[];
  /** The translated file (a draft where its kind can say so: front matter `draft: true` for Markdown). */
  join(translations: Translations): string;
}

/** The splitter of a file by its extension (SPLITTERS); another kind is a usage error naming the kinds there are (then `hint`). */
export function fileSplitter(path: string, hint?: string): Splitter {
  try {
    return splitterFor(path);
  } catch (e) {
    throw new UsageError(hint ? `${(e as Error).message}; ${hint}` : (e as Error).message);
  }
}

/**
 * Splits a file with the splitter of its extension (SPLITTERS); a file of another kind is a usage
 * error naming the kinds there are. `previous` (the unit's segments in the service) lines the
 * blocks' keys up with them, so an edited Markdown or HTML block keeps its key (JSON keys are
 * paths, stable without it).
 */
export function splitFile(path: string, text: string, fields: string[], previous?: readonly PreviousSegment[]): SplitFile {
  const splitter = fileSplitter(path);
  const split = splitter.split(text, { fields, previous });
  const draft = splitter.draft ?? ((doc: string) => doc);
  return { segments: split.segments, problems: split.problems, join: (t) => draft(splitter.join(split, t)) };
}

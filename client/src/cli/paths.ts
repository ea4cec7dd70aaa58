// Where the CLI may write. A translation's path is made from the `out` template, a language the
// service names and a local file's path: the language must be one of the site's and match the
// contract's pattern, the path must stay under the template's root once resolved, and no folder
// on the way from the root (nor the file itself) may be a symbolic link, so a value from the
// service or a link planted in the project never sends a write elsewhere.
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** The interface's language code: 2 to 15 characters of letters, digits, `_` and `-`. */
export const LANGUAGE = /^[A-Za-z0-9_-]{2,15}$/;

export class UnsafePath extends Error {}

/** Why `language` may not name a folder here, or null: it must match the pattern and be one of the site's. */
export function languageProblem(language: string, siteLanguages: readonly string[]): string | null {
  if (!LANGUAGE.test(language)) return "is not a language code (2 to 15 letters, digits, _ or -)";
  if (!siteLanguages.includes(language)) return "is not one of the site's languages";
  return null;
}

/** The folder every output path must stay under: the template's fixed part before the first placeholder's folder. */
export function outputRoot(cwd: string, template: string): string {
  const fixed = template.slice(0, template.search(/\{(lang|path)\}/) === -1 ? template.length : template.search(/\{(lang|path)\}/));
  const folder = fixed.includes("/") ? fixed.slice(0, fixed.lastIndexOf("/") + 1) : "";
  return resolve(cwd, folder || ".");
}

/** `target` resolved, when it lies strictly under `root`; else an UnsafePath. */
export function under(root: string, target: string): string {
  const abs = resolve(root, target);
  const rel = relative(root, abs);
  if (!rel || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new UnsafePath(`${target} is outside ${root}`);
  return abs;
}

/**
 * Writes `data` to `abs` (under `root`), making the folders on the way one at a time; refuses
 * when any existing folder between `root` and the file, or the file itself, is a symbolic link.
 */
export function writeUnder(root: string, abs: string, data: string): void {
  const rel = relative(root, under(root, abs));
  mkdirSync(root, { recursive: true });
  const parts = rel.split(sep);
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = resolve(at, part);
    const last = i === parts.length - 1;
    let stat: ReturnType<typeof lstatSync> | undefined;
    try {
      stat = lstatSync(at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (stat?.isSymbolicLink()) throw new UnsafePath(`${relative(root, at) || at} is a symbolic link: not written through it`);
    if (!last && !stat) mkdirSync(at);
    else if (!last && !stat?.isDirectory()) throw new UnsafePath(`${relative(root, at)} is not a folder`);
  }
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, data);
}

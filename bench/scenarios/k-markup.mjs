/**
 * k. Long segments through markup protection, restoration and QA (the figure that was a
 *    wall-clock assertion in test/markup/scale.test.ts; that test keeps the correctness checks).
 *    Each text is 100,000 characters of stray syntax repeated, run in every format and both
 *    protection modes, then QA'd once per format. Run in Node on an esbuild bundle of src/markup
 *    and src/qa (inside workerd the clock stands still during synchronous work). Goal: each text
 *    under 10,000 ms (a quadratic pass takes minutes).
 */

import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Report, sample } from "../measure.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const GOAL_MS = 10_000;
const LENGTH = 100_000;
const repeat = (unit) => unit.repeat(Math.ceil(LENGTH / unit.length)).slice(0, LENGTH);
export const LONG_TEXTS = [
  ...["[a](", "[", "<a ", "<b>", "</b>", "<code>", " `` ", "*a ", "_", "%", ":a", "- a\n", "https://x.org/{a} ", "1,000 ", "&"].map((unit) => [JSON.stringify(unit), repeat(unit)]),
  ["a long run of spaces", `a${" ".repeat(LENGTH - 3)}.b`],
  ["a URL of dots", `https://x.org/${".".repeat(LENGTH - 20)}a`],
];

async function load() {
  const { build } = await import(path.join(root, "node_modules/esbuild/lib/main.js"));
  const entry = `export { FORMATS } from "${path.join(root, "src/limits")}"; export { protect } from "${path.join(root, "src/markup/protect")}"; export { runQA } from "${path.join(root, "src/qa")}";`;
  const out = await build({ stdin: { contents: entry, resolveDir: root, loader: "ts" }, bundle: true, write: false, format: "esm", platform: "node", logLevel: "warning" });
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), "bench-k-")), "markup.mjs");
  await writeFile(file, out.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

export async function markupScenario({ runs = 3 } = {}) {
  const { FORMATS, protect, runQA } = await load();
  const report = new Report(
    "k. Long segments: protect, restore and QA of 100,000 characters of stray syntax",
    `all ${FORMATS.length} formats × text and html modes, then QA per format; goal: under ${GOAL_MS} ms each`,
  );
  let worst = 0;
  for (const [name, text] of LONG_TEXTS) {
    const samples = await sample(
      () => {
        for (const format of FORMATS) {
          for (const mode of ["text", "html"]) {
            const p = protect(text, format, mode);
            if (p.restore(p.text) !== text) throw new Error(`${name} in ${format}/${mode}: restore changed the text`);
          }
          runQA({ source: text, target: text, format, maxLength: null, sourceLanguage: "en", targetLanguage: "de", glossary: [] });
        }
      },
      { runs },
    );
    worst = Math.max(worst, report.timing(name, samples));
  }
  report.ratio("the slowest text against the goal", worst, GOAL_MS, 1);
  return [report];
}

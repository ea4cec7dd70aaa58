// What the checks derive from a source is remembered once per source, format and source language
// (src/qa/remember.ts, SourceFacts): runQA looks the record up once for all checks, each check
// fills its own field the first time, and a job's other target languages read it from there.
import { describe, expect, it } from "vitest";
import { runQA } from "../../src/qa";
import { SOURCES_REMEMBERED, sourceFacts } from "../../src/qa/remember";
import { qaInput } from "../helpers/qa";

const SOURCE = "Pay 1,200 EUR for {count} seats  at https://shop.example/pay by Friday.";

describe("a source's facts", () => {
  it("are derived once and serve every check of every target language", () => {
    const de = runQA(qaInput({ source: SOURCE, target: "Zahlen Sie 1.200 EUR für {count} Plätze  unter https://shop.example/pay bis Freitag.", targetLanguage: "de" }));
    expect(de).toEqual([]);
    const facts = sourceFacts(SOURCE, "plain", "en");
    expect(facts).toEqual({
      numbers: { keys: ["1200"], written: ["1,200"] },
      placeholders: ["{count}"],
      ending: { kind: "full stop", mark: "." },
      urls: ["https://shop.example/pay"],
      doubleSpaces: 1,
    });
    // The French check reads the same record (the same object, not a copy), and finds what is missing against it.
    const fr = runQA(qaInput({ source: SOURCE, target: "Payez 1 300 EUR pour {n} places sur https://shop.example/payer avant vendredi", targetLanguage: "fr" }));
    expect(sourceFacts(SOURCE, "plain", "en")).toBe(facts);
    expect(fr.map((i) => i.code).sort()).toEqual(["numbers", "placeholders", "punctuation", "urls"]);
  });

  it("are kept apart by format and source language, whose rules differ", () => {
    const plain = sourceFacts("Ends with a question;", "plain", "en");
    const greek = sourceFacts("Ends with a question;", "plain", "el");
    const html = sourceFacts("Ends with a question;", "html", "en");
    expect(greek).not.toBe(plain);
    expect(html).not.toBe(plain);
    runQA(qaInput({ source: "Ends with a question;", target: "Endet mit einer Frage;", sourceLanguage: "el" }));
    runQA(qaInput({ source: "Ends with a question;", target: "Endet mit einer Frage;" }));
    expect(greek.ending).toEqual({ kind: "question mark", mark: ";" });
    expect(plain.ending).toEqual({ kind: "semicolon", mark: ";" });
  });

  it("are bounded: a source not seen for two generations is derived again", () => {
    const first = sourceFacts("The first of many sources.", "markdown", "en");
    expect(sourceFacts("The first of many sources.", "markdown", "en")).toBe(first);
    for (let i = 0; i < 2 * SOURCES_REMEMBERED; i++) sourceFacts(`Source number ${i}.`, "markdown", "en");
    expect(sourceFacts("The first of many sources.", "markdown", "en")).not.toBe(first);
  });
});

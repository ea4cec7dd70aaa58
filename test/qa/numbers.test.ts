import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { checkNumbers } from "../../src/qa/numbers.check";
import { qaInput } from "../helpers/qa";

describe("numbers", () => {
  it.each<[string, string, Format]>([
    ["Buy 3 apples", "Kaufe 3 Äpfel", "plain"],
    ["Costs 1,000.50 dollars", "Kostet 1.000,50 Dollar", "plain"],
    ["Costs 1,000.5", "Kostet 1 000,5", "plain"],
    ["Costs 1,000.5", "Coûte 1\u202f000,5", "plain"],
    ["10,000 users", "10'000 Benutzer", "plain"],
    ["Pi is 3.14", "Pi ist 3,14", "plain"],
    ["On 2024-01-05", "Am 05.01.2024", "plain"],
    ["Page 3 of 10", "Seite 3 von 10", "plain"],
    ["Item 42", "البند ٤٢", "plain"],
    ["Score 7", "スコア７", "plain"],
    ["Hello %1$s", "Hallo %1$s", "plain"],
    ["Go to https://x.org/2024", "Gehe zu https://x.org/2024", "plain"],
    ["<h2>Title</h2>", "<h2>Titel</h2>", "html"],
    ["&#8364; sign", "Euro-Zeichen &euro;", "html"],
    ["1. First step", "Erster Schritt", "markdown"],
    ["No numbers", "Keine Zahlen", "plain"],
  ])("passes %j → %j (%s)", (source, target, format) => {
    expect(checkNumbers(qaInput({ source, target, format }))).toBeNull();
  });

  it.each<[string, string, string]>([
    ["Buy 3 apples", "Kaufe drei Äpfel", "3"],
    ["Costs 1,000.50", "Kostet 100,50", "1,000"],
    ["Pi is 3.14", "Pi ist 3,15", "14"],
    ["Between 1.5 and 15", "Zwischen 15 und 15", "1, 5"],
    ["In 2020 100 people came", "2020100 Leute kamen", "2020, 100"],
    ["5 and 5", "5 und fünf", "5"],
  ])("fails %j → %j", (source, target, missing) => {
    expect(checkNumbers(qaInput({ source, target }))).toEqual({
      code: "numbers",
      severity: "warning",
      message: `Numbers from the source are missing in the translation: ${missing}.`,
    });
  });
});

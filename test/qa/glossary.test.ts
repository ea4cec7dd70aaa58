import { describe, expect, it } from "vitest";
import type { GlossaryTerm } from "../../src/engines/types";
import type { Format } from "../../src/limits";
import { checkGlossary } from "../../src/qa/glossary.check";
import { qaInput } from "../helpers/qa";

const term = (source: string, target: string, caseSensitive = false): GlossaryTerm => ({
  source,
  target,
  caseSensitive,
  language: "de",
});

describe("glossary", () => {
  it.each<[string, string, GlossaryTerm[], Format]>([
    ["Open your account", "Öffne dein Konto", [term("account", "Konto")], "plain"],
    ["Open your Account", "Öffne dein konto", [term("account", "Konto")], "plain"],
    ["Your user account", "Dein Benutzerkonto", [term("account", "Konto")], "plain"],
    ["Accounting rules", "Buchhaltungsregeln", [term("account", "Konto")], "plain"],
    ["Open the cart", "Öffne den Korb", [term("Cart", "Warenkorb", true)], "plain"],
    ["Open the cart", "Öffne den Einkaufswagen", [term("cart", "Warenkorb"), term("cart", "Einkaufswagen")], "plain"],
    ['<a href="/account">Home</a>', '<a href="/account">Start</a>', [term("account", "Konto")], "html"],
    ["Visit https://x.org/account", "Besuche https://x.org/account", [term("account", "Konto")], "plain"],
    ["设置账户", "Konto einrichten", [term("账户", "Konto")], "plain"],
    ["No terms here", "Keine Begriffe", [], "plain"],
  ])("passes %j → %j", (source, target, glossary, format) => {
    expect(checkGlossary(qaInput({ source, target, glossary, format }))).toBeNull();
  });

  it.each<[string, string, GlossaryTerm[], string]>([
    ["Open your account", "Öffne dein Profil", [term("account", "Konto")], '"account" → "Konto"'],
    ["Open your account", "Öffne dein konto", [term("account", "Konto", true)], '"account" → "Konto"'],
    ["Open the cart", "Öffne den Korb", [term("cart", "Warenkorb"), term("cart", "Einkaufswagen")], '"cart" → "Warenkorb" or "Einkaufswagen"'],
    ["Account and cart", "Profil und Korb", [term("account", "Konto"), term("cart", "Warenkorb")], '"account" → "Konto", "cart" → "Warenkorb"'],
    ["设置账户", "Profil einrichten", [term("账户", "Konto")], '"账户" → "Konto"'],
  ])("fails %j → %j", (source, target, glossary, terms) => {
    expect(checkGlossary(qaInput({ source, target, glossary }))).toEqual({
      code: "glossary",
      severity: "warning",
      message: `The translation does not use the glossary's terms: ${terms}.`,
    });
  });
});

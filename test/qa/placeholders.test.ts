import { describe, expect, it } from "vitest";
import { checkPlaceholders } from "../../src/qa/placeholders.check";
import { qaInput } from "../helpers/qa";

describe("placeholders", () => {
  it.each([
    ["Hello {name}", "Hallo {name}"],
    ["{count} of {total}", "{total} insgesamt, davon {count}"],
    ["%s has %d", "%d hat %s"],
    ["%1$s and %2$s", "%2$s und %1$s"],
    ["Hi %(name)s", "Hallo %(name)s"],
    ["Hi {{ user }}", "Hallo {{ user }}"],
    ["Welcome :name", "Willkommen :name"],
    ["At 10:30", "Um 10.30 Uhr"],
    ["100% sure", "100 % sicher"],
    ["No placeholders", "Keine Platzhalter"],
  ])("passes %j → %j", (source, target) => {
    expect(checkPlaceholders(qaInput({ source, target }))).toBeNull();
  });

  it.each([
    ["Hello {name}", "Hallo", "missing {name}"],
    ["Hello {name}", "Hallo {nom}", "missing {name}; unexpected {nom}"],
    ["%s and %s", "%s und", "missing %s"],
    ["%1$s", "%1$d", "missing %1$s; unexpected %1$d"],
    ["Hi %(name)s", "Hallo %(Name)s", "missing %(name)s; unexpected %(Name)s"],
    ["Hi {{user}}", "Hallo {user}", "missing {{user}}; unexpected {user}"],
    ["Welcome :name", "Willkommen :nom", "missing :name; unexpected :nom"],
    ["Hello", "Hallo {name}", "unexpected {name}"],
    ["{a} {a}", "{a}", "missing {a}"],
    ["Go to https://x.org/u/{id}", "Gehe zu https://x.org/u/", "missing {id}"],
  ])("fails %j → %j", (source, target, differences) => {
    expect(checkPlaceholders(qaInput({ source, target }))).toEqual({
      code: "placeholders",
      severity: "error",
      message: `The placeholders differ from the source: ${differences}.`,
    });
  });
});

import { describe, expect, it } from "vitest";
import type { Format } from "../../src/limits";
import { checkUrls } from "../../src/qa/urls.check";
import { qaInput } from "../helpers/qa";

describe("urls", () => {
  it.each<[string, string, Format]>([
    ["See https://x.org.", "Siehe https://x.org.", "plain"],
    ["A https://a.org B https://b.org", "B https://b.org A https://a.org", "plain"],
    ['<a href="https://x.org/a?b=1&amp;c=2">x</a>', '<a href="https://x.org/a?b=1&amp;c=2">y</a>', "html"],
    ["[x](https://x.org)", "[y](https://x.org)", "markdown"],
    ["Write mailto:a@x.org", "Schreib an mailto:a@x.org", "plain"],
    ["No links", "Keine Links", "plain"],
  ])("passes %j → %j (%s)", (source, target, format) => {
    expect(checkUrls(qaInput({ source, target, format }))).toBeNull();
  });

  it.each<[string, string, Format, string]>([
    ["See https://x.org/en", "Siehe https://x.org/de", "plain", "missing https://x.org/en; unexpected https://x.org/de"],
    ["See https://x.org", "Siehe x.org", "plain", "missing https://x.org"],
    ['<a href="https://x.org">x</a>', '<a href="http://x.org">x</a>', "html", "missing https://x.org; unexpected http://x.org"],
    ["[x](https://x.org)", "[x](https://x.org) https://y.org", "markdown", "unexpected https://y.org"],
    ["https://x.org twice https://x.org", "https://x.org once", "plain", "missing https://x.org"],
  ])("fails %j → %j (%s)", (source, target, format, differences) => {
    expect(checkUrls(qaInput({ source, target, format }))).toEqual({
      code: "urls",
      severity: "warning",
      message: `The URLs differ from the source: ${differences}.`,
    });
  });
});

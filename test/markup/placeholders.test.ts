import { describe, expect, it } from "vitest";
import { findPlaceholders } from "../../src/markup/placeholders";

const found = (text: string) => findPlaceholders(text).map((s) => text.slice(s.start, s.end));

describe("findPlaceholders", () => {
  it.each([
    ["Hello {name}!", ["{name}"]],
    ["{0} of {1}", ["{0}", "{1}"]],
    ["{} items", ["{}"]],
    ["Total: {amount:.2f}", ["{amount:.2f}"]],
    ["Hi ${user}", ["${user}"]],
    ["Hello {{name}}", ["{{name}}"]],
    ["Hello {{ user.name | upper }}", ["{{ user.name | upper }}"]],
    ["Raw {{{html}}}", ["{{{html}}}"]],
    ["%s has %d items", ["%s", "%d"]],
    ["%1$s and %2$s", ["%1$s", "%2$s"]],
    ["%5.2f%%", ["%5.2f"]],
    ["%ld bytes, %@ name", ["%ld", "%@"]],
    ["Hello %(name)s, %(count)d", ["%(name)s", "%(count)d"]],
    ["Welcome, :name!", [":name"]],
    ["/users/:id/edit", [":id"]],
    ["(:count items)", [":count"]],
    ["https://example.com/u/{id}", ["{id}"]],
  ])("finds the placeholders in %j", (text, expected) => {
    expect(found(text)).toEqual(expected);
  });

  it.each([
    ["Meet at 10:30 today"],
    ["See https://example.com:8080/path"],
    ["Write to mailto:someone@example.com"],
    ["Note: this matters"],
    ["std::vector and a::b"],
    ["100% of people"],
    ["50%off today"],
    ["100% discount"],
    ["Width 100%"],
    ["https://example.com/a%20d%2Fb"],
    ["A literal %% sign"],
    ["{count, plural, one {# item} other {# items}}"],
    ["Just prose with {braces and spaces}"],
  ])("finds none in %j", (text) => {
    expect(found(text)).toEqual([]);
  });
});

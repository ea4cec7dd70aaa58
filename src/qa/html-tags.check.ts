import { findHtmlTags } from "../markup/html";
import { describeDiff, error, multisetDiff, type QACheck } from "./issue";

/**
 * Numbers element structures: equal numbers mean the same element name holding the same
 * multiset of child structures. Children are compared as a multiset because a translation may
 * put sibling elements in another order (a sentence reorders its bold and italic words), but
 * not move one inside another. Shared by source and target so their numbers compare.
 */
class Structures {
  private readonly ids = new Map<string, number>();

  idOf(name: string, children: number[]): number {
    const key = `${name}(${children.sort((a, b) => a - b).join(",")})`;
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.ids.size));
    return id;
  }
}

/**
 * The structure of a fragment's element tree, built the way browsers recover from sloppy
 * markup (a closing tag closes the nearest open element of its name and those opened inside
 * it), so source and target are read alike. Iterative: deep nesting must not overflow the stack.
 */
function elementTree(text: string, structures: Structures): { id: number; tags: string[] } {
  const stack: { name: string; children: number[] }[] = [{ name: "", children: [] }];
  const openCount = new Map<string, number>();
  const tags: string[] = [];
  const closeTo = (depth: number) => {
    while (stack.length > depth) {
      const frame = stack.pop()!;
      openCount.set(frame.name, openCount.get(frame.name)! - 1);
      stack[stack.length - 1].children.push(structures.idOf(frame.name, frame.children));
    }
  };
  for (const tag of findHtmlTags(text)) {
    const top = stack[stack.length - 1];
    if (tag.type === "self") {
      tags.push(`<${tag.name}>`);
      top.children.push(structures.idOf(tag.name, []));
    } else if (tag.type === "open") {
      tags.push(`<${tag.name}>`);
      stack.push({ name: tag.name, children: [] });
      openCount.set(tag.name, (openCount.get(tag.name) ?? 0) + 1);
    } else if (tag.type === "close") {
      tags.push(`</${tag.name}>`);
      if (openCount.get(tag.name)) closeTo(stack.findLastIndex((frame) => frame.name === tag.name));
      else top.children.push(structures.idOf(`/${tag.name}`, []));
    }
  }
  closeTo(1);
  return { id: structures.idOf("", stack[0].children), tags };
}

/** `html_tags`: the translation has other tags than the source, or nests them differently. Attributes are not compared. */
export const checkHtmlTags: QACheck = ({ source, target, format }) => {
  if (format !== "html" && format !== "rich_text") return null;
  const structures = new Structures();
  const s = elementTree(source, structures);
  const t = elementTree(target, structures);
  const differences = describeDiff(multisetDiff(s.tags, t.tags));
  if (differences) return error("html_tags", `The HTML tags differ from the source: ${differences}.`);
  if (s.id !== t.id) {
    return error("html_tags", "The HTML tags are nested differently than in the source.");
  }
  return null;
};

// Keys that follow edits (client/src/split/align.ts): with the unit's previous segments, an
// unchanged block keeps its key, an edited one keeps its own, only new blocks get new keys.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alignKeys, blockSimilarity, SIMILARITY_THRESHOLD, splitHtml, splitMarkdown } from "../../client/src/split/index.js";

const word = fc.stringMatching(/^[a-z]{3,8}$/);
const words = fc.array(word, { minLength: 5, maxLength: 10 });
/** A block: its words and its shape (heading, list item, quote, paragraph). */
type Block = { words: string[]; shape: number };
const text = (b: Block) => b.words.join(" ");
const md = (b: Block) => {
  const s = text(b);
  return [`## ${s}`, `- ${s}`, `> ${s}`, `${s}.`][b.shape];
};
const render = (bs: Block[]) => `---\ntitle: A title\n---\n\n${bs.map(md).join("\n\n")}\n`;
const blocks = fc.uniqueArray(fc.record({ words, shape: fc.nat(3) }), { minLength: 1, maxLength: 12, selector: (b) => text(b) });
const op = fc.oneof(
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), block: fc.record({ words, shape: fc.nat(3) }) }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("move" as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant("edit" as const), at: fc.nat(), word: fc.nat(), to: word }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/** Applies one operation; answers the new list and the block it touched (inserted or edited), if any. */
function apply(bs: Block[], e: Op): { after: Block[]; touched: Block | null; edited: Block | null } {
  const after = [...bs];
  const i = e.at % bs.length;
  if (e.op === "insert") {
    after.splice(e.at % (bs.length + 1), 0, e.block);
    return { after, touched: e.block, edited: null };
  }
  if (e.op === "delete") {
    after.splice(i, 1);
    return { after, touched: null, edited: null };
  }
  if (e.op === "move") {
    after.splice(e.to % bs.length, 0, ...after.splice(i, 1));
    return { after, touched: null, edited: null };
  }
  const ws = [...bs[i].words];
  ws[e.word % ws.length] = e.to;
  after[i] = { words: ws, shape: bs[i].shape };
  return { after, touched: after[i], edited: bs[i] };
}

const unique = (bs: Block[]) => new Set(bs.map(text)).size === bs.length;
const keyed = (doc: string, previous?: { key: string; text: string }[]) => {
  const segments = splitMarkdown(doc, { previous }).segments;
  return { segments, byText: new Map(segments.filter((s) => s.field === "body").map((s) => [s.text.replace(/^> |\.$/g, ""), s.key])) };
};

describe("alignKeys through splitMarkdown(doc, { previous })", () => {
  it("after any single insert, delete, move or edit, every untouched block keeps its key and an edited block keeps its own", () => {
    fc.assert(
      fc.property(blocks, op, op, (bs, first, second) => {
        // A first change lined up too, so the previous keys are not all content keys (the steady state).
        const one = apply(bs, first);
        fc.pre(one.after.length > 0 && unique(one.after));
        const before = keyed(render(bs));
        const mid = keyed(render(one.after), before.segments);
        const two = apply(one.after, second);
        fc.pre(unique(two.after) && (two.edited === null || text(two.edited) !== text(two.touched!)));
        const now = keyed(render(two.after), mid.segments);
        for (const b of two.after) {
          const key = now.byText.get(text(b));
          expect(key).toBeDefined();
          if (b === two.touched && two.edited) expect(key).toBe(mid.byText.get(text(two.edited)));
          else if (b === two.touched) expect(mid.segments.map((s) => s.key)).not.toContain(key);
          else expect(key).toBe(mid.byText.get(text(b)));
        }
        // Front matter keeps its fixed key; keys stay unique.
        expect(now.segments[0].key).toBe("fm.title");
        expect(new Set(now.segments.map((s) => s.key)).size).toBe(now.segments.length);
      }),
      { numRuns: 300 },
    );
  });

  it("answers today's content keys without previous segments", () => {
    fc.assert(
      fc.property(blocks, (bs) => {
        const doc = render(bs);
        expect(splitMarkdown(doc, { previous: [] }).segments).toEqual(splitMarkdown(doc).segments);
      }),
    );
  });

  it("keeps an edited long paragraph's key, and its neighbours'", () => {
    const para = "The quick brown fox jumps over the lazy dog and keeps running through the forest until nightfall, ".repeat(3).trim();
    const doc = `# Title\n\n${para}\n\nLast words here.\n`;
    const before = splitMarkdown(doc).segments;
    const edited = doc.replace("lazy dog", "sleepy dog");
    const after = splitMarkdown(edited, { previous: before }).segments;
    expect(after.map((s) => s.key)).toEqual(before.map((s) => s.key));
    expect(after[1].text).toContain("sleepy");
    // Without the previous segments the edited paragraph gets a new content key.
    expect(splitMarkdown(edited).segments[1].key).not.toBe(before[1].key);
  });

  it("keeps a split paragraph's key in its larger half and a merge's in its larger part", () => {
    const big = "Install the package with npm and run the command in the folder of your site";
    const small = "It takes a minute";
    const before = splitMarkdown(`${big}. ${small}.\n`).segments;
    const split = splitMarkdown(`${big}.\n\n${small}.\n`, { previous: before }).segments;
    expect(split[0].key).toBe(before[0].key);
    expect(split[1].key).not.toBe(before[0].key);
    // Two equal halves: still one of them.
    const half = "Alpha beta gamma delta epsilon zeta eta theta";
    const other = "Iota kappa lambda mu nu xi omicron pi rho sig";
    const whole = splitMarkdown(`${half} ${other}\n`).segments;
    const halves = splitMarkdown(`${half}\n\n${other}\n`, { previous: whole }).segments;
    expect(halves.filter((s) => s.key === whole[0].key)).toHaveLength(1);

    const parts = splitMarkdown(`${small}.\n\n${big}.\n`).segments;
    const merged = splitMarkdown(`${small}. ${big}.\n`, { previous: parts }).segments;
    expect(merged.map((s) => s.key)).toEqual([parts[1].key]);
  });

  it("gives a replaced block that shares nothing with the old one a new key", () => {
    const before = splitMarkdown("Keep me here.\n\nThe old paragraph about apples.\n\nKeep me too.\n").segments;
    expect(blockSimilarity("The old paragraph about apples.", "Zyx wvu tsr qpo nml kji.")).toBeLessThan(SIMILARITY_THRESHOLD);
    const after = splitMarkdown("Keep me here.\n\nZyx wvu tsr qpo nml kji.\n\nKeep me too.\n", { previous: before }).segments;
    expect(after[0].key).toBe(before[0].key);
    expect(after[2].key).toBe(before[2].key);
    expect(before.map((s) => s.key)).not.toContain(after[1].key);
  });

  it("never gives a new block a key the unit had, even one whose text changed since", () => {
    const doc = "Brand new words.\n";
    const content = splitMarkdown(doc).segments[0];
    // The unit's segment with that key now holds another text (it was edited and kept its key).
    const previous = [
      { key: content.key, text: "Completely different sentence, nothing alike at all." },
      { key: `${content.key}.2`, text: "Also taken." },
    ];
    const [only] = alignKeys([content], previous, { threshold: 0.99 });
    expect(only.key).toBe(`${content.key}.3`);
  });

  it("keeps duplicates apart: of two equal blocks, the unedited one keeps its key", () => {
    const before = splitMarkdown("Same text here.\n\nSame text here.\n").segments;
    const after = splitMarkdown("Same text here, edited.\n\nSame text here.\n", { previous: before }).segments;
    expect(after.map((s) => s.key)).toEqual(before.map((s) => s.key));
    const moved = splitMarkdown("Other text.\n\nSame text here.\n\nSame text here, edited.\n", { previous: before }).segments;
    expect(moved.map((s) => s.key)).toEqual([moved[0].key, before[0].key, before[1].key]);
    expect(before.map((s) => s.key)).not.toContain(moved[0].key);
  });

  it("leaves front matter keys alone", () => {
    const before = splitMarkdown("---\ntitle: Hello there\n---\n\nHello there\n").segments;
    const after = splitMarkdown("---\ntitle: Hello there friend\n---\n\nHello there\n", { previous: before }).segments;
    expect(after.map((s) => s.key)).toEqual(before.map((s) => s.key));
  });

  it("lines up splitHtml's blocks too", () => {
    const before = splitHtml("<h1>Welcome to the site</h1><p>First paragraph of the page.</p><p>Second paragraph.</p>").segments;
    const after = splitHtml("<h1>Welcome to the site</h1><p>New one.</p><p>First paragraph of this page.</p><p>Second paragraph.</p>", { previous: before }).segments;
    expect(after.map((s) => s.key)).toEqual([before[0].key, after[1].key, before[1].key, before[2].key]);
    expect(before.map((s) => s.key)).not.toContain(after[1].key);
  });
});

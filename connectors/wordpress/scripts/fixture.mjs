/**
 * Writes tests/fixtures/split-cases.json: documents (WordPress block markup, hand-picked edge
 * cases of HTML parsing, seeded random tag soup and text) and edits with their previous segments,
 * each with the kit's own answer (`splitHtml` of client/src/split, through the built client/dist):
 * segments, template and the join of a translation. The kit's tests
 * (test/client/split.wordpress-fixture.test.ts at the root) check the kit still answers so, and
 * PHPUnit (tests/SplitTest.php) checks the PHP port answers the same. Run after a change of the
 * kit's splitter: `npm run fixture` (the root's `npm ci` builds client/dist).
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { joinHtml, splitHtml } from "../../../client/dist/split/index.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, "..", "tests", "fixtures", "split-cases.json");

/** mulberry32: a small seeded generator, so the file is the same at every run. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(50);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const int = (n) => Math.floor(rnd() * n);

const block = (name, inner, attrs = "") => `<!-- wp:${name}${attrs ? ` ${attrs}` : ""} -->\n${inner}\n<!-- /wp:${name} -->`;
const POST = [
  block("heading", '<h2 class="wp-block-heading">Getting started</h2>'),
  block("paragraph", "<p>The first paragraph explains the idea.</p>"),
  block("paragraph", '<p>The second one has <strong>bold words</strong>, <em>emphasis</em> and a <a href="https://example.com/a?b=1&amp;c=2">link</a>.</p>'),
  block(
    "list",
    '<ul class="wp-block-list"><!-- wp:list-item -->\n<li>First item</li>\n<!-- /wp:list-item -->\n\n<!-- wp:list-item -->\n<li>Second item</li>\n<!-- /wp:list-item --></ul>',
  ),
  block("quote", '<blockquote class="wp-block-quote"><!-- wp:paragraph -->\n<p>A quoted line.</p>\n<!-- /wp:paragraph --><cite>Someone</cite></blockquote>'),
  block(
    "image",
    '<figure class="wp-block-image size-large"><img src="/a.jpg" alt="An alt text" class="wp-image-5"/><figcaption class="wp-element-caption">A caption</figcaption></figure>',
    '{"id":5,"sizeSlug":"large"}',
  ),
  block("code", '<pre class="wp-block-code"><code>npm install &lt;p&gt;</code></pre>'),
  block("table", '<figure class="wp-block-table"><table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>One</td><td>1</td></tr></tbody></table></figure>'),
  block(
    "buttons",
    '<div class="wp-block-buttons"><!-- wp:button -->\n<div class="wp-block-button"><a class="wp-block-button__link wp-element-button">Click me</a></div>\n<!-- /wp:button --></div>',
  ),
  block("html", '<script>var p = "<p>x</p>";</script>'),
  block("paragraph", "<p>The first paragraph explains the idea.</p>"),
].join("\n\n");

const EDGES = [
  "",
  "plain text without tags",
  "<p>One</p>",
  "<P>Upper case</P><H1 CLASS=x>Heading</H1>",
  "<p>&nbsp;</p><p>&nbsp</p><p>&#160;</p><p>&#xA0;</p><p>&Tab;&NewLine;</p><p>&amp;</p><p>&#65279;</p><p>&ZeroWidthSpace;</p><p>&#32</p><p> \u00a0 </p><p>\u3000</p><p>\u0085</p>",
  "<p>a</p>\n<!---->\n<!-->\n<!--->\n<!-- x --!>\n<p>b</p>",
  "<p>x<!-- c -->y</p>",
  "<![CDATA[ <p>not a block</p> ]]><p>after</p>",
  "<!DOCTYPE html><!doctor><p>t</p>",
  "<?php echo 1; ?><p>after pi</p>",
  "<p title='a > b'>quoted gt</p><p title=\"x\">dq</p><p title=x>nq</p><p hidden>bare</p>",
  "<p>first<p>second<div>third</div>",
  "<ul><li>One<li>Two <b>bold</li><li>Three</ul>",
  "<table><tr><td>a<td>b<tr><th>c</table>",
  "<dl><dt>Term<dd>Definition<dt>Another</dl>",
  "<select><option>One<option>Two</select>",
  "<p>stray</p></p><p>next</p>",
  "text</br>more<p>x</br>y</p>",
  "<p>unclosed at the end",
  "<p>in a tag <b class=",
  "<p>ends in a comment <!-- open",
  "<p>ends in cdata <![CDATA[ open",
  "<p>ends <!doctype",
  "<p>ends <!",
  "<p>ends </",
  "<p>ends </b",
  "<p>a</>b</p>",
  "<p>x</ p>y</p>",
  "<title>Title &amp; more</title><textarea><p>kept</p></textarea><p>after</p>",
  "<style>p{}</style><script>if (a < b) {}</script><p>ok</p><script>never closed <p>x</p>",
  "<xmp><p>raw</p></xmp><iframe><p>raw</p></iframe><noembed>n</noembed><noframes>n</noframes><p>after</p>",
  "<plaintext><p>all text</p>",
  "<svg><title>Svg title</title><desc>d</desc><p>in svg</p></svg><p>after svg</p>",
  "<svg><foreignObject><p>in foreign object</p></foreignObject></svg>",
  "<math><mi>x</mi><![CDATA[<p>c</p>]]></math><p>after math</p>",
  "<p>in <svg><rect/></svg> svg</p><p>self <br/> closing</p>",
  "<form><form><p>nested form</p></form></form>",
  "<image src=x><p>image alias</p>",
  "<pre><p>in pre</p></pre><code><p>in code</p></code><template><p>t</p></template>",
  "<li>x<pre><p>y</p></pre></li>",
  "<blockquote>quote <p>inner</p></blockquote>",
  "<p>Ünïcödé — “quotes” 😀 and 中文文本</p><h3>Ελληνικά</h3>",
  "<p>Same text</p><p>Same text</p><p>Same  text</p><p>Same\ntext</p>",
  "<p>nul \u0000 inside</p>",
  "<p>a</p>   \n\t  <p>b</p>",
  "<p><img src=x></p><p> <br> </p><p><b> </b></p>",
  "<h1>a<h2>b</h1>c</h2>",
  "<a href=x><a href=y>nested links</a></a><p><a>link in p</a></p>",
  "<button>One<button>Two</button><label>L</label><legend>G</legend><summary>S</summary><address>A</address><caption>C</caption>",
  "<p>a<td>b</td>c</p>",
  "<option>o1<optgroup>g<option>o2</optgroup>",
  "<p>x</P >y</p\n>",
  '<p =a>odd attribute</p><p a="unterminated>x</p>',
];

const SOUP_TOKENS = [
  "<p>",
  "</p>",
  "<li>",
  "</li>",
  "<td>",
  "<b>",
  "</b>",
  "<pre>",
  "<!--",
  "-->",
  "<script>",
  "</script>",
  "a b",
  " ",
  "\n",
  "<h1 class=x>",
  "</h1>",
  "&amp;",
  "&nbsp;",
  "<ul>",
  "</ul>",
  "<div>",
  "</div>",
  "<!-- wp:paragraph -->",
  "<title>",
  "</title>",
  "<svg>",
  "</svg>",
  "<![CDATA[",
  "]]>",
  "<br>",
  "</br>",
  "<",
  ">",
  "/",
  "'",
  '"',
  "=",
  "é",
  "😀",
  "<!doctype html>",
  "<table>",
  "<tr>",
  "<th>",
  "<dt>",
  "<dd>",
  "<option>",
  "<select>",
  "--!>",
  "<?x",
  "</ x>",
  "<textarea>",
  "</textarea>",
];
const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho"];
const sentence = () => Array.from({ length: 3 + int(6) }, () => pick(words)).join(" ");

function caseOf(name, doc, previous) {
  const split = splitHtml(doc, previous ? { previous } : {});
  const translations = Object.fromEntries(split.segments.map((s) => [s.key, `[${s.key}] ${s.text}`]));
  return {
    name,
    doc,
    ...(previous ? { previous } : {}),
    segments: split.segments.map((s) => ({ key: s.key, text: s.text, kind: s.kind })),
    parts: split.parts,
    problems: split.problems ?? [],
    joined: joinHtml(split, translations),
  };
}

const cases = [];
cases.push(caseOf("a WordPress post in block markup", POST));
EDGES.forEach((doc, i) => cases.push(caseOf(`edge ${i}`, doc)));
for (let i = 0; i < 300; i++) {
  cases.push(caseOf(`tag soup ${i}`, Array.from({ length: int(40) }, () => pick(SOUP_TOKENS)).join("")));
}
for (let i = 0; i < 60; i++) {
  const chars = Array.from({ length: int(120) }, () => (rnd() < 0.3 ? pick(["<", ">", "&", "/", "!", "-", "p", " ", "\n", "=", '"']) : String.fromCodePoint(32 + int(0x2ff)))).join(
    "",
  );
  cases.push(caseOf(`random text ${i}`, chars));
}

// Edits: a post of paragraphs, split; then edited (insert, delete, move, edit one word, split or
// merge a paragraph), split again with the first split's segments as `previous`; then once more
// (the steady state, where the previous keys are not all content keys).
const render = (ps) =>
  ps
    .map((p, i) =>
      i % 3 === 0 ? block("paragraph", `<p>${p}</p>`) : i % 3 === 1 ? block("heading", `<h3 class="wp-block-heading">${p}</h3>`) : block("list", `<ul><li>${p}</li></ul>`),
    )
    .join("\n\n");
function edit(ps) {
  const after = [...ps];
  const i = int(ps.length);
  const op = int(6);
  if (op === 0) after.splice(int(ps.length + 1), 0, sentence());
  else if (op === 1 && ps.length > 1) after.splice(i, 1);
  else if (op === 2) after.splice(int(ps.length), 0, ...after.splice(i, 1));
  else if (op === 3) {
    const ws = after[i].split(" ");
    ws[int(ws.length)] = pick(words);
    after[i] = ws.join(" ");
  } else if (op === 4) {
    const ws = after[i].split(" ");
    const at = 1 + int(Math.max(1, ws.length - 1));
    after.splice(i, 1, ws.slice(0, at).join(" "), ws.slice(at).join(" ") || pick(words));
  } else if (i + 1 < ps.length) after.splice(i, 2, `${ps[i]} ${ps[i + 1]}`);
  return after;
}
for (let i = 0; i < 120; i++) {
  const ps = Array.from({ length: 1 + int(9) }, sentence);
  const first = splitHtml(render(ps));
  const one = edit(ps);
  const second = splitHtml(render(one), { previous: first.segments });
  cases.push(
    caseOf(
      `edit ${i}, first`,
      render(one),
      first.segments.map((s) => ({ key: s.key, text: s.text })),
    ),
  );
  cases.push(
    caseOf(
      `edit ${i}, steady`,
      render(edit(one)),
      second.segments.map((s) => ({ key: s.key, text: s.text })),
    ),
  );
}
// Every block edited (one gap with no unchanged block in it): the compare window and the order of similar pairs decide.
for (let i = 0; i < 6; i++) {
  const ps = Array.from({ length: 30 }, (_, k) => `${sentence()} number ${k}`);
  const edited = ps.map((p) => p.replace(/^\w+/, pick(words)).replace(/number (\d+)/, (_, n) => `number ${n} changed`));
  const order = i % 2 ? edited.reverse() : edited;
  const prev = splitHtml(ps.map((p) => `<p>${p}</p>`).join("\n")).segments.map((s) => ({ key: s.key, text: s.text }));
  cases.push(caseOf(`edit everything ${i}`, order.map((p) => `<p>${p}</p>`).join("\n"), prev));
}
// Texts beyond 256 distinct code points (the PHP port's second distance routine), and long ones.
const wide = (n, from) => Array.from({ length: n }, (_, k) => String.fromCodePoint(from + ((k * 7) % 400))).join("");
const cjk = [wide(300, 0x4e00), wide(280, 0x4f00), wide(150, 0x5000)];
const cjkEdited = [cjk[0].slice(0, 250) + wide(30, 0x5200), cjk[1], cjk[2]];
cases.push(
  caseOf(
    "many distinct code points, edited",
    cjkEdited.map((p) => `<p>${p}</p>`).join("\n"),
    splitHtml(cjk.map((p) => `<p>${p}</p>`).join("\n")).segments.map((s) => ({ key: s.key, text: s.text })),
  ),
);
const long = Array.from({ length: 600 }, () => pick(words)).join(" ");
cases.push(
  caseOf(
    "a long paragraph, edited at its end",
    `<p>${long} omega</p><p>${sentence()}</p>`,
    splitHtml(`<p>${long}</p>`).segments.map((s) => ({ key: s.key, text: s.text })),
  ),
);

writeFileSync(OUT, `${JSON.stringify({ generator: "connectors/wordpress/scripts/fixture.mjs", cases }, null, 1)}\n`);
console.log(`${cases.length} cases written to ${OUT}`);

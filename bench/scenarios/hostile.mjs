/**
 * j. Hostile JSON (issue 23): the worst shapes a body under 10 MB can take, sent raw to
 *    PUT /v1/units and, as the middle of three units, to PUT /v1/units/batch. Each shape must be
 *    refused (single: 422; batch: 200 with that unit alone `ok: false`) in well under a second.
 *    Prints each shape's time and answer; the goal is the second (ratio to 1,000 ms ≤ 0.5×).
 */
import { createSite } from "../client.mjs";
import { Report, time } from "../measure.mjs";

const BASE = "https://api.bench";
const GOAL_MS = 1_000;

const deep = (n) => "[".repeat(n) + "]".repeat(n);
const SHAPES = [
  ["4,000,000 nested arrays (8 MB)", () => `{"a":${deep(4_000_000)}}`],
  ["4,000,000 nested arrays, unclosed (4 MB)", () => `{"a":${"[".repeat(4_000_000)}}`],
  ["array of 500,000 zeros (1 MB)", () => `{"a":[${"0,".repeat(499_999)}0]}`],
  ["array of 4,500,000 zeros (9 MB)", () => `{"a":[${"0,".repeat(4_499_999)}0]}`],
  ["object of 100,000 keys (1.1 MB)", () => `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":0`).join(",")}}`],
  ["object of 700,000 keys (9.5 MB)", () => `{${Array.from({ length: 700_000 }, (_, i) => `"k${i}":0`).join(",")}}`],
  ["string of 1,500,000 \\u0000 escapes (9 MB)", () => `{"a":"${"\\u0000".repeat(1_500_000)}"}`],
  ['string of 4,500,000 \\" escapes (9 MB)', () => `{"a":"${'\\"'.repeat(4_500_000)}"}`],
];

const unitText = (key, metadata) => `{"external_key":"${key}","adapter":"wordpress","segments":[{"key":"a","text":"Hello"}],"metadata":${metadata}}`;

async function send(rt, key, path, body) {
  const res = await rt.mf.dispatchFetch(`${BASE}${path}`, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
  return { status: res.status, json: await res.json() };
}

export async function hostileScenario(rt, { runs = 3 } = {}) {
  const site = await createSite(rt.mf, { languages: ["de"] });
  const report = new Report(
    "j. Hostile JSON: the worst shapes under 10 MB, single and in a batch (measured on the text before parsing)",
    `times from Node around dispatchFetch (body upload included); goal: refused in well under ${GOAL_MS} ms`,
  );
  let worst = 0;
  let n = 0;
  for (const [name, make] of SHAPES) {
    const metadata = make();
    const single = unitText(`hostile:${n}`, metadata);
    const batch = `{"units":[${unitText(`hostile:${n}:a`, "{}")},${unitText(`hostile:${n}:b`, metadata)},${unitText(`hostile:${n}:c`, "{}")}]}`;
    n++;
    for (const [where, path, body] of [
      ["PUT /v1/units", "/v1/units", single],
      ["PUT /v1/units/batch", "/v1/units/batch", batch],
    ]) {
      const samples = [];
      let answer;
      for (let r = 0; r < runs; r++) {
        const t = await time(() => send(rt, site.key, path, body));
        samples.push(t.ms);
        answer = t.value;
      }
      const detail =
        path === "/v1/units"
          ? `${answer.status} ${answer.json.detail}`
          : `${answer.status} ${answer.json.results ? answer.json.results.map((r) => (r.ok ? "ok" : `refused: ${r.error}`)).join(" | ") : answer.json.detail}`;
      if (path === "/v1/units" ? answer.status < 400 || answer.status >= 500 : answer.status !== 200 && answer.status !== 422) throw new Error(`${where} ${name}: ${detail}`);
      const median = report.timing(`${where}: ${name}`, samples);
      report.figure(`  answer (${(body.length / 1e6).toFixed(1)} MB sent)`, detail.slice(0, 150));
      worst = Math.max(worst, median);
    }
  }
  report.ratio(`slowest shape / ${GOAL_MS} ms`, worst, GOAL_MS, 0.5);
  return [report];
}

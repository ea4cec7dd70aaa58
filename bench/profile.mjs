/**
 * A CPU profile of first pushes (scenario a), by function self time:
 *   node bench/profile.mjs [pushes] [--http] [--tree name] [--callers name]
 * With --job, one delta job over 20,000 segments × 2 languages instead (the real runJobs, a
 * zero-latency engine; what scenarios d and h run; PROFILE_LANGS=de,fr,es for d's three).
 * Starts the bench runtime with a V8 inspector and drives the pushes of scenario a: by default
 * the staged object-side push (SiteObject.pushBatch), with --http the whole PUT
 * /v1/units/batch (the Worker's parsing, validation and RPC included). --tree prints the call
 * tree below every function of that name, with inclusive times (native SQLite time shows as
 * `exec` under the function that ran the statement). --inclusive prints the functions with the
 * most inclusive time (a function's samples and its callees', each sample counted once per name).
 */
process.env.BENCH_INSPECTOR_PORT ??= "9231";
const { startRuntime } = await import("./runtime.mjs");
const { call, createSite } = await import("./client.mjs");
const { batchBody } = await import("./data.mjs");

const args = process.argv.slice(2);
const http = args.includes("--http");
/** --job: one delta job over 20,000 segments × 2 languages (BenchSiteObject.runJob, zero-latency engine) instead of pushes. */
const job = args.includes("--job");
const tree = args.includes("--tree") ? args[args.indexOf("--tree") + 1] : undefined;
/** --callers name: the self time of every function of that name (e.g. exec, next), by its callers 4 levels up. */
const callers = args.includes("--callers") ? args[args.indexOf("--callers") + 1] : undefined;
/** --inclusive: functions by inclusive time (what a function and everything it calls costs). */
const inclusiveView = args.includes("--inclusive");
const pushes = Number(args.find((a) => /^\d+$/.test(a)) ?? 6);

const rt = await startRuntime();
const port = process.env.BENCH_INSPECTOR_PORT;
const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
await new Promise((r) => ws.addEventListener("open", r, { once: true }));
let id = 0;
const pending = new Map();
ws.addEventListener("message", (e) => {
  const msg = JSON.parse(e.data);
  if (msg.id && pending.has(msg.id)) {
    pending.get(msg.id)(msg.result ?? msg.error);
    pending.delete(msg.id);
  }
});
const send = (method, params = {}) =>
  new Promise((r) => {
    pending.set(++id, r);
    ws.send(JSON.stringify({ id, method, params }));
  });

const spec = { prefix: "post:", units: 100, segmentsPerUnit: 50 };
const body = JSON.stringify(batchBody(spec.prefix, spec.units, spec.segmentsPerUnit));
/** One first push per fresh site (or one job per seeded site), prepared untimed. */
const runs = [];
for (let i = 0; job && i < 2; i++) {
  const site = await createSite(rt.mf, { languages: (process.env.PROFILE_LANGS ?? "de,fr").split(",") });
  const stub = rt.site(site.id);
  await stub.seed({ prefix: "post:", units: i === 0 ? 20 : 400, segmentsPerUnit: 50, translations: "none" });
  await call(rt.mf, "POST", "/v1/jobs", { key: site.key, body: { type: "delta", confirm: true } });
  runs.push(() => stub.runJob());
}
for (let i = 0; !job && i < pushes + 1; i++) {
  const site = await createSite(rt.mf, { languages: ["de", "fr", "es"] });
  const stub = rt.site(site.id);
  if (!http) await stub.stageBatch(spec);
  runs.push(http ? () => call(rt.mf, "PUT", "/v1/units/batch", { key: site.key, body }) : () => stub.pushStaged());
}
await runs[0](); // warm-up
await send("Profiler.enable");
await send("Profiler.setSamplingInterval", { interval: 100 });
await send("Profiler.start");
const t0 = performance.now();
for (const run of runs.slice(1)) await run();
const ms = (performance.now() - t0) / (runs.length - 1);
const { profile } = await send("Profiler.stop");

const total = profile.samples.length;
const counts = new Map();
for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
/** Time the samples cover (the profiler samples only while the isolate runs code: idle waits between turns are not in it). */
const sampledMs = (profile.endTime - profile.startTime) / 1000;
const idleSamples = profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").reduce((s, n) => s + (counts.get(n.id) ?? 0), 0);
const pct = (n) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
const name = (f) => `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;

const self = new Map();
for (const node of profile.nodes) self.set(name(node.callFrame), (self.get(name(node.callFrame)) ?? 0) + (counts.get(node.id) ?? 0));
console.log(`${job ? "1 job (20,000 segments × 2 languages)" : `${pushes} ${http ? "PUT /v1/units/batch" : "staged pushes"}`}, ${ms.toFixed(0)} ms each; self time by function:`);
console.log(`  profile: ${total} samples over ${sampledMs.toFixed(0)} ms, ${idleSamples} of them idle`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(` ${pct(v)}  ${k}`);

if (tree) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const inclusive = (n) => (counts.get(n.id) ?? 0) + (n.children ?? []).reduce((s, c) => s + inclusive(byId.get(c)), 0);
  const print = (n, depth) => {
    const v = inclusive(n);
    if (v / total < 0.003 || depth > 6) return;
    console.log(`${"  ".repeat(depth)}${pct(v)}  ${name(n.callFrame)} (self ${pct(counts.get(n.id) ?? 0).trim()})`);
    for (const c of (n.children ?? []).map((c) => byId.get(c)).sort((a, b) => inclusive(b) - inclusive(a))) print(c, depth + 1);
  };
  console.log(`\ncall tree below ${tree} (inclusive):`);
  for (const n of profile.nodes) if (n.callFrame.functionName === tree) print(n, 0);
}
if (inclusiveView) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const byName = new Map();
  for (const n of profile.nodes) {
    const v = counts.get(n.id) ?? 0;
    if (!v) continue;
    // Each name once per sample, however often it recurs on the stack.
    const seen = new Set();
    for (let p = n; p; p = parent.get(p.id)) seen.add(name(p.callFrame));
    for (const k of seen) byName.set(k, (byName.get(k) ?? 0) + v);
  }
  console.log("\ninclusive time by function:");
  for (const [k, v] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(` ${pct(v)}  ${k}`);
}
if (callers) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const by = new Map();
  let all = 0;
  for (const n of profile.nodes) {
    if (n.callFrame.functionName !== callers) continue;
    const v = counts.get(n.id) ?? 0;
    if (!v) continue;
    all += v;
    const chain = [];
    for (let p = parent.get(n.id); p && chain.length < 4; p = parent.get(p.id)) chain.push(name(p.callFrame));
    const key = chain.join(" < ");
    by.set(key, (by.get(key) ?? 0) + v);
  }
  console.log(`\nself time of ${callers} (${pct(all).trim()}) by its callers:`);
  for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(` ${pct(v)}  ${k}`);
}
ws.close();
await rt.dispose();

/**
 * A CPU profile of first pushes (scenario a's object side), by function self time:
 *   node bench/profile.mjs [pushes]
 * Starts the bench runtime with a V8 inspector and drives the staged pushes of scenario a.
 */
process.env.BENCH_INSPECTOR_PORT ??= "9231";
const { startRuntime } = await import("./runtime.mjs");
const { createSite } = await import("./client.mjs");

const rt = await startRuntime();
const port = process.env.BENCH_INSPECTOR_PORT;
const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
await new Promise((r) => ws.addEventListener("open", r, { once: true }));
let id = 0;
const pending = new Map();
ws.addEventListener("message", (e) => {
  const msg = JSON.parse(e.data);
  if (msg.id && pending.has(msg.id)) pending.get(msg.id)(msg.result ?? msg.error), pending.delete(msg.id);
});
const send = (method, params = {}) => new Promise((r) => (pending.set(++id, r), ws.send(JSON.stringify({ id, method, params }))));

const spec = { prefix: "post:", units: 100, segmentsPerUnit: 50 };
const pushes = Number(process.argv[2] ?? 6);
const sites = [];
for (let i = 0; i < pushes + 1; i++) {
  const s = rt.site((await createSite(rt.mf, { languages: ["de", "fr", "es"] })).id);
  await s.stageBatch(spec);
  sites.push(s);
}
await sites[0].pushStaged(); // warm-up
await send("Profiler.enable");
await send("Profiler.setSamplingInterval", { interval: 100 });
await send("Profiler.start");
const t0 = performance.now();
for (const s of sites.slice(1)) await s.pushStaged();
const ms = (performance.now() - t0) / pushes;
const { profile } = await send("Profiler.stop");
const self = new Map();
const total = profile.samples.length;
const counts = new Map();
for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
for (const node of profile.nodes) {
  const f = node.callFrame;
  const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (counts.get(node.id) ?? 0));
}
console.log(`${pushes} pushes, ${ms.toFixed(0)} ms each; self time by function:`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${((100 * v) / total).toFixed(1).padStart(6)}%  ${k}`);
ws.close();
await rt.dispose();

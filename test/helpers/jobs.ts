import { runDurableObjectAlarm } from "cloudflare:test";
import type { client } from "./api";
import { stubOf } from "./site";

/** Runs the site object's alarms until the job has finished (no waiting on wall-clock alarms). */
export async function runJob(c: ReturnType<typeof client>, siteId: number, jobId: number, maxAlarms = 200) {
  const stub = stubOf(siteId);
  for (let i = 0; i < maxAlarms; i++) {
    const job = (await c.get(`/v1/jobs/${jobId}`)).body;
    if (!["queued", "running"].includes(job.status)) return job;
    await runDurableObjectAlarm(stub);
  }
  throw new Error(`job ${jobId} did not finish`);
}

/** Creates a job (confirming it) and runs it to the end. */
export async function job(c: ReturnType<typeof client>, siteId: number, body: Record<string, unknown> = {}) {
  const res = await c.post("/v1/jobs", { confirm: true, ...body });
  if (res.status !== 202) throw new Error(`job: ${res.status} ${JSON.stringify(res.body)}`);
  return runJob(c, siteId, res.body.id);
}

export async function allResults(c: ReturnType<typeof client>, query = "") {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await c.get(`/v1/results?limit=500${query}${cursor ? `&cursor=${cursor}` : ""}`);
    if (res.status !== 200) throw new Error(`results: ${res.status} ${JSON.stringify(res.body)}`);
    out.push(...res.body.results);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

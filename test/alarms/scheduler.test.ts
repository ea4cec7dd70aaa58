// The site object's one alarm (src/site/alarms/scheduler.ts): timed needs register the time they are
// next due, the alarm is always set to the earliest, and when it fires the needs due by then
// run, each answering its own next time. Times in the first test lie hours ahead, so no alarm
// fires on its own while it runs (this project lets alarms fire, JOB_ALARM_DELAY_MS = 0).
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FAILED_NEED_RETRY_MS, type Need } from "../../src/site/alarms/scheduler";
import type { SiteObject } from "../../src/site/object";
import { client, createSite, unit } from "../helpers/api";
import { stubOf } from "../helpers/site";

const HOUR = 3_600_000;

describe("one alarm scheduler", () => {
  it("two needs due at different times: the alarm follows the earliest, each runs when due, a re-registered need moves, a cancelled one goes", async () => {
    await runInDurableObject(stubOf("scheduler-two-needs"), async (o: SiteObject, state) => {
      const t0 = Date.now();
      const ran: Need[] = [];
      const record = (need: Need, next: number | null) => async () => {
        ran.push(need);
        return next;
      };

      await o.alarms.schedule("jobs", t0 + HOUR);
      await o.alarms.schedule("retention", t0 + 3 * HOUR);
      expect(await state.storage.getAlarm()).toBe(t0 + HOUR);

      // The alarm fires (here before its time, as runDurableObjectAlarm does): only the earliest need is due.
      await o.alarms.fire({
        memory_share: record("memory_share", null),
        jobs: record("jobs", null),
        retention: record("retention", null),
        memory_index: record("memory_index", null),
        memory_merge: record("memory_merge", null),
      });
      expect(ran).toEqual(["jobs"]);
      expect(o.alarms.dueAt("jobs")).toBeNull();
      expect(await state.storage.getAlarm()).toBe(t0 + 3 * HOUR);

      // Registered again: retention moves to its new time; `onlyEarlier` never pushes a need back.
      await o.alarms.schedule("retention", t0 + 2 * HOUR);
      expect(await state.storage.getAlarm()).toBe(t0 + 2 * HOUR);
      await o.alarms.schedule("retention", t0 + 5 * HOUR, { onlyEarlier: true });
      expect(await state.storage.getAlarm()).toBe(t0 + 2 * HOUR);

      // A need answers its own next time.
      await o.alarms.fire({
        memory_share: record("memory_share", null),
        jobs: record("jobs", null),
        retention: record("retention", t0 + 4 * HOUR),
        memory_index: record("memory_index", null),
        memory_merge: record("memory_merge", null),
      });
      expect(ran).toEqual(["jobs", "retention"]);
      expect(await state.storage.getAlarm()).toBe(t0 + 4 * HOUR);

      // A need registered while it runs (a job created meanwhile) keeps that registration, whatever the run answers.
      await o.alarms.schedule("jobs", t0 + HOUR);
      await o.alarms.fire({
        memory_share: record("memory_share", null),
        jobs: async () => {
          await o.alarms.schedule("jobs", t0 + 1.5 * HOUR);
          return null;
        },
        retention: record("retention", null),
        memory_index: record("memory_index", null),
        memory_merge: record("memory_merge", null),
      });
      expect(o.alarms.dueAt("jobs")).toBe(t0 + 1.5 * HOUR);
      expect(await state.storage.getAlarm()).toBe(t0 + 1.5 * HOUR);

      // A registration that changes nothing while the need runs (a job polled meanwhile) leaves the run's answer standing.
      await o.alarms.schedule("jobs", t0 + HOUR);
      await o.alarms.fire({
        memory_share: record("memory_share", null),
        jobs: async () => {
          await o.alarms.schedule("jobs", t0 + 5 * HOUR, { onlyEarlier: true });
          return t0 + 2 * HOUR;
        },
        retention: record("retention", null),
        memory_index: record("memory_index", null),
        memory_merge: record("memory_merge", null),
      });
      expect(o.alarms.dueAt("jobs")).toBe(t0 + 2 * HOUR);

      // A handler that throws is tried again later, not lost.
      await o.alarms.fire({
        memory_share: record("memory_share", null),
        jobs: async () => {
          throw new Error("a bug");
        },
        retention: record("retention", null),
        memory_index: record("memory_index", null),
        memory_merge: record("memory_merge", null),
      });
      expect(o.alarms.dueAt("jobs")).toBeGreaterThanOrEqual(t0 + FAILED_NEED_RETRY_MS);
      expect(o.alarms.dueAt("jobs")).toBeLessThan(t0 + HOUR);

      // Cancelled needs go, and with the last one the alarm.
      await o.alarms.cancel("jobs");
      expect(await state.storage.getAlarm()).toBe(t0 + 4 * HOUR);
      await o.alarms.cancel("retention");
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });

  it("a job and retention in one object: the job runs on its alarm at once, then the alarm waits for retention's time; an alarm delivered twice changes nothing", async () => {
    const site = await createSite({ target_languages: [{ code: "de" }] });
    const c = client(site.key);
    const stub = stubOf(site.siteId);
    expect((await c.put("/v1/units", unit("page:1", [{ key: "a", text: "Kept page" }]))).status).toBe(200);
    expect((await c.put("/v1/units", unit("page:2", [{ key: "a", text: "Deleted page" }]))).status).toBe(200);
    expect((await c.del("/v1/units/page:2")).status).toBe(204);
    const retentionAt = await runInDurableObject(stub, (o: SiteObject) => o.alarms.dueAt("retention"));
    // 30 days after the deletion.
    expect(retentionAt).toBeGreaterThan(Date.now() + 29 * 24 * HOUR);
    expect(await runInDurableObject(stub, (_o: SiteObject, state) => state.storage.getAlarm())).toBe(retentionAt);

    const created = await c.post("/v1/jobs", { confirm: true });
    expect(created.status).toBe(202);
    let job = created.body;
    for (let i = 0; i < 400 && (job.status === "queued" || job.status === "running"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      job = await runInDurableObject(stub, (o: SiteObject) => o.store.one<{ status: string }>("SELECT status FROM jobs WHERE id = ?", created.body.id)!);
    }
    expect(job.status).toBe("succeeded");
    const after = await runInDurableObject(stub, async (o: SiteObject, state) => ({
      needs: o.store.all("SELECT need, due_at FROM alarms ORDER BY need"),
      alarm: await state.storage.getAlarm(),
    }));
    expect(after).toEqual({ needs: [{ need: "retention", due_at: retentionAt }], alarm: retentionAt });

    // At least once: the same alarm delivered again runs the due needs again, harmlessly.
    await runInDurableObject(stub, (o: SiteObject) => o.alarm());
    const again = await runInDurableObject(stub, async (o: SiteObject, state) => ({
      needs: o.store.all("SELECT need, due_at FROM alarms ORDER BY need"),
      alarm: await state.storage.getAlarm(),
      jobs: o.store.all("SELECT id, status, done_segments, slices FROM jobs"),
      results: o.store.one<{ n: number }>("SELECT count(*) AS n FROM results")!.n,
    }));
    expect(again).toEqual({
      needs: [{ need: "retention", due_at: retentionAt }],
      alarm: retentionAt,
      jobs: [{ id: created.body.id, status: "succeeded", done_segments: 1, slices: 1 }],
      results: 1,
    });
  });
});

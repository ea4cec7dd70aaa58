/**
 * Cancel with a reason (docs/runbook.md "A hot site or a runaway job"): the operator's
 * `POST /admin/v1/sites/{site_id}/jobs/{job_id}/cancel {reason}` keeps the reason on the job
 * (`cancel_reason`, an extension of JobOut), which the connector reads and the dashboard shows;
 * audited with the operator's name and the reason. Without a body there is no reason.
 */
import { describe, expect, it } from "vitest";
import { admin, client, createSite, request, unit } from "../helpers/api";
import { dash, person } from "../helpers/dashboard";
import { operator } from "../helpers/operator";

const REASON = "Cancelled by support: this job was retranslating the whole site after a settings change; the characters done are credited.";

async function queued() {
  const site = await createSite();
  const c = client(site.key);
  expect((await c.put("/v1/units/batch", { units: [unit("home", [{ key: "t", text: "Good morning" }])] })).status).toBe(200);
  const job = async () => {
    const res = await request("POST", "/v1/jobs", { key: site.key, body: { confirm: true, force: true } });
    expect(res.status).toBe(202);
    expect(res.body.cancel_reason).toBeNull();
    return res.body.id as number;
  };
  return { site, c, job };
}

describe("an operator's cancel with a reason", () => {
  it("is kept on the job: the connector reads it, the dashboard shows it, the audit log names the operator and the reason", async () => {
    const { site, c, job } = await queued();
    const id = await job();
    const alice = operator("alice");
    const cancelled = await alice("POST", `/admin/v1/sites/${site.siteId}/jobs/${id}/cancel`, { reason: `  ${REASON} ` });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id, status: "cancelled", cancel_reason: REASON, finished_at: expect.any(String) });

    // The connector's view.
    expect((await c.get(`/v1/jobs/${id}`)).body).toMatchObject({ status: "cancelled", cancel_reason: REASON });
    expect((await c.get("/v1/jobs")).body.find((j: { id: number }) => j.id === id).cancel_reason).toBe(REASON);

    // The dashboard's site page, for any member.
    const { cookie } = await person(site.orgId, "editor");
    const page = await dash("GET", `/dashboard/sites/${site.siteId}`, { cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<p class="small cancel-reason"><span class="muted">Reason:</span> ${REASON}</p>`);

    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit.find((a: { action: string }) => a.action === "job.cancel")).toMatchObject({
      actor: "admin:alice",
      action: "job.cancel",
      target: `site:${site.siteId}`,
      detail: { job_id: id, reason: REASON },
    });

    // Cancelling it again (a finished job) answers it unchanged: the first reason stays.
    const again = await admin("POST", `/admin/v1/sites/${site.siteId}/jobs/${id}/cancel`, { reason: "another reason" });
    expect(again.body).toMatchObject({ status: "cancelled", cancel_reason: REASON });
  });

  it("without a body, or by the connector or a person, a cancel carries no reason; a blank or long reason is a 422 naming it", async () => {
    const { site, c, job } = await queued();
    const bare = await job();
    const noBody = await admin("POST", `/admin/v1/sites/${site.siteId}/jobs/${bare}/cancel`);
    expect(noBody).toMatchObject({ status: 200, body: { status: "cancelled", cancel_reason: null } });
    const byConnector = await job();
    expect((await c.post(`/v1/jobs/${byConnector}/cancel`)).body).toMatchObject({ status: "cancelled", cancel_reason: null });
    const audit = (await admin("GET", `/admin/v1/audit?organization_id=${site.orgId}`)).body.items;
    expect(audit.find((a: { action: string }) => a.action === "job.cancel").detail).toEqual({ job_id: bare });

    const open = await job();
    for (const [reason, rule] of [
      ["   ", "reason must have at least 1 character"],
      ["x".repeat(301), "reason must have at most 300 characters"],
    ]) {
      const res = await admin("POST", `/admin/v1/sites/${site.siteId}/jobs/${open}/cancel`, { reason });
      expect(res.status).toBe(422);
      expect(res.body.detail).toContain(rule);
    }
    expect((await c.get(`/v1/jobs/${open}`)).body.status).toBe("queued");
    expect((await admin("POST", `/admin/v1/sites/${site.siteId}/jobs/${open}/cancel`, { reason: 5 })).status).toBe(422);
  });
});

import type { auditOf } from "../../ops/organizations.ops";
import { DataTable } from "../components/DataTable";
import { Empty, Layout, type OrgNav, Pager, Time, type Viewer } from "./layout";

/** A page of the audit log as the operation answers it. */
export type AuditView = Awaited<ReturnType<typeof auditOf>>;

export function AuditPage(p: { nav: OrgNav; viewer: Viewer; data: AuditView; actors: Record<string, string>; cursor: string }) {
  const base = `/dashboard/organizations/${p.nav.organizationId}/audit`;
  return (
    <Layout title={`Audit log · ${p.nav.organization}`} viewer={p.viewer} org={p.nav}>
      <h1>Audit log</h1>
      <p class="muted">Every change made in the dashboard or by the operator, newest first.</p>
      <DataTable
        columns={["When", "Who", "What", "On", "Details"]}
        rows={p.data.items}
        row={(e) => (
          <tr>
            <td>
              <Time at={e.at} />
            </td>
            <td>{p.actors[e.actor] ?? (e.actor === "admin" ? "operator (admin API)" : e.actor)}</td>
            <td>
              <code>{e.action}</code>
            </td>
            <td>
              <code>{e.target}</code>
            </td>
            <td class="small">
              {e.detail
                ? Object.entries(e.detail)
                    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
                    .join("; ")
                : ""}
            </td>
          </tr>
        )}
        empty={<Empty title="Nothing recorded yet." />}
      />
      <Pager next={p.data.next_cursor} href={(c) => `${base}?cursor=${c}`} first={p.cursor ? base : null} />
    </Layout>
  );
}

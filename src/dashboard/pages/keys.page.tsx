import type { ApiKey } from "../../api/admin.schemas";
import { Card } from "../components/Card";
import { DataTable } from "../components/DataTable";
import { PostButton } from "../components/PostButton";
import { Badge, Empty, Layout, type SiteNav, Time, type Viewer } from "./layout";

export function KeysPage(p: { nav: SiteNav; viewer: Viewer; keys: ApiKey[]; created?: { name: string; key: string } | null; notice?: string | null; error?: string | null }) {
  const base = `/dashboard/sites/${p.nav.siteId}/keys`;
  return (
    <Layout title={`API keys · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>API keys</h1>
      <p class="muted">The website's connector authenticates with a key. Give each website or environment its own, so you can revoke one without touching the others.</p>
      {p.created ? (
        <Card id="new-key" class="created" title={`Your new key “${p.created.name}”`}>
          <p>
            <strong>Copy it now: it is shown only once.</strong> Paste it into the connector's settings on your website.
          </p>
          <label for="key-value">API key</label>
          <input id="key-value" class="mono" readonly value={p.created.key} />
        </Card>
      ) : null}
      <Card id="create" title="Create a key">
        <form method="post" action={base} class="inline">
          <label for="name">Name</label>
          <input id="name" name="name" required maxlength={200} placeholder="Production website" />
          <button type="submit">Create key</button>
        </form>
      </Card>
      <Card id="list" title="Keys">
        <DataTable
          columns={["Name", "Starts with", "Created", "Last used", "State"]}
          actions
          rows={p.keys}
          row={(k) => (
            <tr>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>
                <Time at={k.created_at} />
              </td>
              <td>
                <Time at={k.last_used_at} />
              </td>
              <td>{k.revoked_at ? <Badge state="cancelled" label="Revoked" /> : <Badge state="ok" label="Active" />}</td>
              <td>
                {k.revoked_at ? (
                  <span class="muted small">
                    revoked <Time at={k.revoked_at} />
                  </span>
                ) : (
                  <PostButton action={`${base}/${k.id}/revoke`} kind="danger" label={`Revoke key ${k.name}`}>
                    Revoke
                  </PostButton>
                )}
              </td>
            </tr>
          )}
          empty={
            <Empty title="No keys yet.">
              <p>Create one above and paste it into the connector on your website.</p>
            </Empty>
          }
        />
        <p class="muted small">A revoked key stops working within a minute everywhere.</p>
      </Card>
    </Layout>
  );
}

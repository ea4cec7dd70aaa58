import { Badge, Empty, Layout, Time, type SiteNav, type Viewer } from "./layout";

export interface KeyView {
  id: number;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function KeysPage(p: { nav: SiteNav; viewer: Viewer; keys: KeyView[]; created?: { name: string; key: string } | null; notice?: string | null; error?: string | null }) {
  const base = `/dashboard/sites/${p.nav.siteId}/keys`;
  return (
    <Layout title={`API keys · ${p.nav.siteName}`} viewer={p.viewer} site={p.nav} notice={p.notice} error={p.error}>
      <h1>API keys</h1>
      <p class="muted">The website's connector authenticates with a key. Give each website or environment its own, so you can revoke one without touching the others.</p>
      {p.created ? (
        <section class="card created" aria-labelledby="new-key">
          <h2 id="new-key">Your new key “{p.created.name}”</h2>
          <p>
            <strong>Copy it now: it is shown only once.</strong> Paste it into the connector's settings on your website.
          </p>
          <label for="key-value">API key</label>
          <input id="key-value" class="mono" readonly value={p.created.key} />
        </section>
      ) : null}
      <section class="card" aria-labelledby="create">
        <h2 id="create">Create a key</h2>
        <form method="post" action={base} class="inline">
          <label for="name">Name</label>
          <input id="name" name="name" required maxlength={200} placeholder="Production website" />
          <button type="submit">Create key</button>
        </form>
      </section>
      <section class="card" aria-labelledby="list">
        <h2 id="list">Keys</h2>
        {p.keys.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {p.keys.map((k) => (
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
                      <form method="post" action={`${base}/${k.id}/revoke`}>
                        <button type="submit" class="danger" aria-label={`Revoke key ${k.name}`}>
                          Revoke
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty title="No keys yet.">
            <p>Create one above and paste it into the connector on your website.</p>
          </Empty>
        )}
        <p class="muted small">A revoked key stops working within a minute everywhere.</p>
      </section>
    </Layout>
  );
}

import type { Role } from "../../control/people";
import { Empty, Layout, Time, type OrgNav, type Viewer } from "./layout";

export function MembersPage(p: {
  nav: OrgNav;
  viewer: Viewer & { userId: number };
  members: { userId: number; email: string; role: string; since: string }[];
  invitations: { id: number; email: string; role: string; createdAt: string; expiresAt: string }[];
  invitable: Role[];
  created?: { email: string; role: string; url: string } | null;
  notice?: string | null;
  error?: string | null;
}) {
  const base = `/dashboard/organizations/${p.nav.organizationId}/members`;
  const owner = p.nav.role === "owner";
  // The last owner cannot be removed (the organization always keeps one), so no button is offered.
  const owners = p.members.filter((m) => m.role === "owner").length;
  return (
    <Layout title={`Members · ${p.nav.organization}`} viewer={p.viewer} org={p.nav} notice={p.notice} error={p.error}>
      <h1>Members</h1>
      <p class="muted">
        <strong>Editors</strong> work on sites, jobs and the review queue. <strong>Admins</strong> also change settings, API keys and the glossary, and invite editors and admins.{" "}
        <strong>Owners</strong> also invite owners, remove members, read the audit log and delete sites.
      </p>
      {p.created ? (
        <section class="card created" aria-labelledby="new-invite">
          <h2 id="new-invite">Invitation for {p.created.email}</h2>
          <p>
            <strong>Copy this link and send it to them yourself: it is shown only once</strong> and works once, for 7 days.
          </p>
          <label for="invite-url">Invitation link</label>
          <input id="invite-url" class="mono" readonly value={p.created.url} />
        </section>
      ) : null}
      {p.invitable.length ? (
        <section class="card" aria-labelledby="invite">
          <h2 id="invite">Invite someone</h2>
          <form method="post" action={`${base}/invite`} class="filters">
            <div>
              <label for="email">Email</label>
              <input id="email" name="email" type="email" required maxlength={254} />
            </div>
            <div>
              <label for="role">Role</label>
              <select id="role" name="role">
                {p.invitable.map((r) => (
                  <option value={r} selected={r === "editor"}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
            <div class="filter-actions">
              <button type="submit">Create invitation link</button>
            </div>
          </form>
        </section>
      ) : null}
      <section class="card" aria-labelledby="people">
        <h2 id="people">People ({p.members.length})</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Member since</th>
              {owner ? (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {p.members.map((m) => (
              <tr>
                <td>
                  {m.email}
                  {m.userId === p.viewer.userId ? <span class="muted"> (you)</span> : null}
                </td>
                <td>{m.role}</td>
                <td>
                  <Time at={m.since} />
                </td>
                {owner ? (
                  <td>
                    {m.role === "owner" && owners === 1 ? (
                      <span class="muted small">the only owner</span>
                    ) : (
                    <form method="post" action={`${base}/${m.userId}/remove`}>
                      <button type="submit" class="danger" aria-label={`Remove ${m.email}`}>
                        Remove
                      </button>
                    </form>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section class="card" aria-labelledby="pending">
        <h2 id="pending">Open invitations</h2>
        {p.invitations.length ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {p.invitations.map((i) => (
                <tr>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>
                    <Time at={i.expiresAt} />
                  </td>
                  <td>
                    {p.invitable.includes(i.role as Role) ? (
                      <form method="post" action={`${base}/invitations/${i.id}/revoke`}>
                        <button type="submit" class="secondary" aria-label={`Withdraw the invitation for ${i.email}`}>
                          Withdraw
                        </button>
                      </form>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty title="No open invitations." />
        )}
      </section>
      {owner ? (
        <section class="card danger-zone" aria-labelledby="danger">
          <h2 id="danger">Delete this organization</h2>
          <p>
            Erases every site of {p.nav.organization} with its content, translations, keys and glossary, and removes its members and invitations. Usage records stay for billing.
            Type the organization's name, <strong>{p.nav.organization}</strong>, to confirm.
          </p>
          <form method="post" action={`/dashboard/organizations/${p.nav.organizationId}/erase`} class="inline">
            <label for="confirm_name">Organization name</label>
            <input id="confirm_name" name="confirm_name" required autocomplete="off" />
            <button type="submit" class="danger">
              Delete organization
            </button>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}

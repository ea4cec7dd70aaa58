import type { Role } from "../../control/people";
import { Empty, Layout, Time, type OrgNav, type Viewer } from "./layout";

export function MembersPage(p: {
  nav: OrgNav;
  viewer: Viewer & { userId: number };
  members: { userId: number; email: string; role: string; since: string }[];
  invitations: { id: number; email: string; role: string; createdAt: string; expiresAt: string; mailedAt: string | null; mailStatus: string | null }[];
  invitable: Role[];
  requireTwoFactor: boolean;
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
      {p.invitable.length ? (
        <section class="card" aria-labelledby="invite">
          <h2 id="invite">Invite someone</h2>
          <p class="muted small">The invitation goes by mail to the address: only its owner can open it. It works once, for 7 days.</p>
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
              <button type="submit">Send invitation</button>
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
                <th scope="col">Mail</th>
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
                    {i.mailStatus === "retrying" ? "Sending failed; tried again within 15 minutes" : i.mailedAt ? "Sent " : "Not sent"}
                    {i.mailStatus !== "retrying" && i.mailedAt ? <Time at={i.mailedAt} /> : null}
                  </td>
                  <td>
                    <Time at={i.expiresAt} />
                  </td>
                  <td>
                    {p.invitable.includes(i.role as Role) ? (
                      <form method="post" action={`${base}/invitations/${i.id}/resend`}>
                        <button type="submit" class="secondary" aria-label={`Send the invitation for ${i.email} again`}>
                          Resend
                        </button>
                      </form>
                    ) : null}
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
        <section class="card" aria-labelledby="security">
          <h2 id="security">Two-factor sign-in</h2>
          <p>
            {p.requireTwoFactor
              ? "Required: every member signs in with a code from an authenticator app. Members without it are led to set it up before anything else."
              : "Not required: members choose for themselves."}
          </p>
          <form method="post" action={`/dashboard/organizations/${p.nav.organizationId}/two-factor`}>
            <input type="hidden" name="required" value={p.requireTwoFactor ? "0" : "1"} />
            <button type="submit" class={p.requireTwoFactor ? "secondary" : undefined}>
              {p.requireTwoFactor ? "Stop requiring two-factor sign-in" : "Require two-factor sign-in for every member"}
            </button>
          </form>
        </section>
      ) : null}
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

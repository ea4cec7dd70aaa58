import type { Role } from "../../control/people.control";
import { Card } from "../components/Card";
import { ConfirmDelete } from "../components/ConfirmDelete";
import { DataTable } from "../components/DataTable";
import { PostButton } from "../components/PostButton";
import { Empty, Layout, type OrgNav, Time, type Viewer } from "./layout";

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
        <Card id="invite" title="Invite someone">
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
        </Card>
      ) : null}
      <Card id="people" title={`People (${p.members.length})`}>
        <DataTable
          columns={["Email", "Role", "Member since"]}
          actions={owner}
          rows={p.members}
          row={(m) => (
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
                    <PostButton action={`${base}/${m.userId}/remove`} kind="danger" label={`Remove ${m.email}`}>
                      Remove
                    </PostButton>
                  )}
                </td>
              ) : null}
            </tr>
          )}
        />
      </Card>
      <Card id="pending" title="Open invitations">
        <DataTable
          columns={["Email", "Role", "Mail", "Expires"]}
          actions
          rows={p.invitations}
          row={(i) => (
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
                  <PostButton action={`${base}/invitations/${i.id}/revoke`} kind="secondary" label={`Withdraw the invitation for ${i.email}`}>
                    Withdraw
                  </PostButton>
                ) : null}
                {p.invitable.includes(i.role as Role) ? (
                  <PostButton action={`${base}/invitations/${i.id}/resend`} kind="secondary" label={`Send the invitation for ${i.email} again`}>
                    Resend
                  </PostButton>
                ) : null}
              </td>
            </tr>
          )}
          empty={<Empty title="No open invitations." />}
        />
      </Card>
      {owner ? (
        <Card id="security" title="Two-factor sign-in">
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
        </Card>
      ) : null}
      {owner ? (
        <ConfirmDelete what="organization" name={p.nav.organization} action={`/dashboard/organizations/${p.nav.organizationId}/erase`}>
          Erases every site of {p.nav.organization} with its content, translations, keys and glossary, and removes its members and invitations. Usage records stay for billing.
        </ConfirmDelete>
      ) : null}
    </Layout>
  );
}

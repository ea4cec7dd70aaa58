import type { Role } from "../../control/people";
import { Layout, Time, type Viewer } from "./layout";

const ROLE_TEXT: Record<Role, string> = {
  editor: "an editor (sites, jobs and the review queue)",
  admin: "an admin (also settings, API keys, the glossary and inviting people)",
  owner: "an owner (everything, including members and the audit log)",
};

export function InvitationPage(props: {
  token: string;
  viewer?: Viewer | null;
  invitation: { organization: string; email: string; role: Role; expiresAt: string; hasAccount: boolean };
  error?: string | null;
  /** Where to go once joined (a dashboard path). */
  next?: string;
}) {
  const inv = props.invitation;
  return (
    <Layout title="Join an organization" viewer={props.viewer} error={props.error}>
      <section class="narrow card">
        <h1>Join {inv.organization}</h1>
        <p>
          You are invited as {ROLE_TEXT[inv.role]}, with the email <strong>{inv.email}</strong>. The link works once, until <Time at={inv.expiresAt} />.
        </p>
        <form method="post" action={`/dashboard/invitations/${props.token}`} class="stack">
          <input type="hidden" name="next" value={props.next ?? ""} />
          {inv.hasAccount ? (
            <p>You already have an account with this email: accepting adds the organization to it.</p>
          ) : (
            <>
              <input type="hidden" name="email" value={inv.email} autocomplete="username" />
              <label for="password">Choose a password</label>
              <input id="password" name="password" type="password" autocomplete="new-password" minlength={10} maxlength={200} required aria-describedby="password-hint" />
              <p id="password-hint" class="muted small">
                At least 10 characters. A passphrase of a few words works well.
              </p>
            </>
          )}
          <button type="submit">{inv.hasAccount ? "Accept invitation" : "Create account and join"}</button>
        </form>
      </section>
    </Layout>
  );
}

export function InvitationGonePage(props: { viewer?: Viewer | null }) {
  return (
    <Layout title="Invitation not valid" viewer={props.viewer}>
      <section class="narrow card">
        <h1>This invitation link does not work any more</h1>
        <p>It was used already, withdrawn, or it expired (links are valid for 7 days). Ask an owner or admin of the organization for a new one.</p>
        <p>
          <a href="/dashboard">Go to sign-in</a>
        </p>
      </section>
    </Layout>
  );
}

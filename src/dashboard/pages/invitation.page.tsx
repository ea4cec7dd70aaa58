import type { Role } from "../../control/people.control";
import { Layout, Time, type Viewer } from "./layout";

const ROLE_TEXT: Record<Role, string> = {
  editor: "an editor (sites, jobs and the review queue)",
  admin: "an admin (also settings, API keys, the glossary and inviting people)",
  owner: "an owner (everything, including members and the audit log)",
};

/**
 * One link, four situations (the rule is `acceptInvitation`'s; this page only says it):
 * a new email chooses a password; an email with an account signs in first (and comes back
 * here) and then accepts; the right account, signed in, accepts; anyone signed in as another
 * email is told so and can only sign out.
 */
export function InvitationPage(props: {
  token: string;
  viewer?: Viewer | null;
  invitation: { organization: string; email: string; role: Role; expiresAt: string; hasAccount: boolean };
  error?: string | null;
  notice?: string | null;
  /** Where to go once joined (a dashboard path). */
  next?: string;
}) {
  const inv = props.invitation;
  // Back to this link after signing in or out: its token in the fragment, as the mail has it (dashboard/one-time-links.tsx).
  const here = `/dashboard/invitations${props.next ? `?next=${encodeURIComponent(props.next)}` : ""}#${props.token}`;
  const signedInAs = props.viewer?.email ?? null;
  const situation = signedInAs ? (signedInAs.toLowerCase() === inv.email ? "accept" : "other") : inv.hasAccount ? "sign-in" : "new";
  return (
    <Layout title="Join an organization" viewer={props.viewer} error={props.error} notice={props.notice}>
      <section class="narrow card">
        <h1>Join {inv.organization}</h1>
        <p>
          You are invited as {ROLE_TEXT[inv.role]}, with the email <strong>{inv.email}</strong>. The link works once, until <Time at={inv.expiresAt} />.
        </p>
        {situation === "new" ? (
          <form method="post" action="/dashboard/invitations" class="stack">
            <input type="hidden" name="token" value={props.token} />
            <input type="hidden" name="next" value={props.next ?? ""} />
            <input type="hidden" name="email" value={inv.email} autocomplete="username" />
            <label for="password">Choose a password</label>
            <input id="password" name="password" type="password" autocomplete="new-password" minlength={10} maxlength={200} required aria-describedby="password-hint" />
            <p id="password-hint" class="muted small">
              At least 10 characters. A passphrase of a few words works well.
            </p>
            <button type="submit">Create account and join</button>
          </form>
        ) : situation === "sign-in" ? (
          <>
            <p>
              <strong>{inv.email}</strong> already has an account. Sign in with it to accept the invitation: you come back here and choose whether to join.
            </p>
            <form method="post" action="/dashboard/sign-in" class="stack">
              <input type="hidden" name="next" value={here} />
              <label for="email">Email</label>
              <input id="email" name="email" type="email" autocomplete="username" required value={inv.email} />
              <label for="password">Password</label>
              <input id="password" name="password" type="password" autocomplete="current-password" required />
              <button type="submit">Sign in to accept</button>
            </form>
          </>
        ) : situation === "accept" ? (
          <form method="post" action="/dashboard/invitations" class="stack">
            <input type="hidden" name="token" value={props.token} />
            <input type="hidden" name="next" value={props.next ?? ""} />
            <p>
              You are signed in as {signedInAs}: accepting adds {inv.organization} to your account.
            </p>
            <button type="submit">Accept invitation</button>
          </form>
        ) : (
          <>
            <p>
              You are signed in as <strong>{signedInAs}</strong>, so you cannot accept an invitation for {inv.email}. Only {inv.email} can accept it: sign out, then open the link
              again{inv.hasAccount ? ` and sign in as ${inv.email}` : ""}.
            </p>
            <form method="post" action="/dashboard/sign-out">
              <input type="hidden" name="next" value={here} />
              <button type="submit" class="secondary">
                Sign out
              </button>
            </form>
          </>
        )}
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

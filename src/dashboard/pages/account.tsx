import { Layout, type Viewer } from "./layout";

export function AccountPage(props: { viewer: Viewer; error?: string | null; notice?: string | null }) {
  return (
    <Layout title="Your account" viewer={props.viewer} error={props.error} notice={props.notice}>
      <section class="narrow card">
        <h1>Your account</h1>
        <p>
          Signed in as <strong>{props.viewer.email}</strong>.
        </p>
        <h2>Change password</h2>
        <form method="post" action="/dashboard/account/password" class="stack">
          <input type="hidden" name="email" value={props.viewer.email} autocomplete="username" />
          <label for="current_password">Current password</label>
          <input id="current_password" name="current_password" type="password" autocomplete="current-password" required />
          <label for="new_password">New password</label>
          <input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength={10} maxlength={200} required aria-describedby="pw-hint" />
          <p id="pw-hint" class="muted small">
            At least 10 characters. Changing it signs you out everywhere else.
          </p>
          <button type="submit">Change password</button>
        </form>
      </section>
    </Layout>
  );
}

import { Layout } from "./layout";

export function SignInPage(props: { email?: string; error?: string | null; notice?: string | null; next?: string; signUp?: boolean }) {
  return (
    <Layout title="Sign in" error={props.error} notice={props.notice}>
      <section class="narrow card">
        <h1>Sign in to Transync</h1>
        <p class="muted">Manage your sites' translations, API keys and review queue.</p>
        <form method="post" action="/dashboard/sign-in" class="stack">
          <input type="hidden" name="next" value={props.next ?? ""} />
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={props.email ?? ""} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Sign in</button>
        </form>
        <p>
          <a href="/dashboard/forgot">Forgot your password?</a>
        </p>
        {props.signUp ? (
          <>
            <p>
              No account yet? <a href="/dashboard/sign-up">Sign up</a>
            </p>
            <p class="muted small">
              Signed up but not confirmed your address yet? Sign-in works once it is. <a href="/dashboard/verify/resend">Send the confirmation mail again</a>
            </p>
          </>
        ) : (
          <p class="muted small">No account yet? You join through an invitation link from an owner or admin of your organization.</p>
        )}
      </section>
    </Layout>
  );
}

export function TooManyAttemptsPage(props: { retryAfter: number }) {
  return (
    <Layout title="Too many attempts" error={`Too many sign-in attempts. Wait ${props.retryAfter} seconds, then try again.`}>
      <section class="narrow card">
        <h1>Please wait a minute</h1>
        <p>To protect accounts, the dashboard accepts at most 10 sign-in attempts a minute from one address or for one email. You can try again in {props.retryAfter} seconds.</p>
        <p>
          <a href="/dashboard">Back to sign-in</a>
        </p>
      </section>
    </Layout>
  );
}

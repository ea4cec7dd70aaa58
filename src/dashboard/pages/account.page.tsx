import type { SessionInfo } from "../../control/sessions.control";
import { OPTIONAL_WORDS, type OptionalKind } from "../../mail/message";
import { Layout, Time, type Viewer } from "./layout";

/** A User-Agent as a person would name it: "Firefox on Linux". */
export function browserName(ua: string | null): string {
  if (!ua) return "Unknown browser";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrome\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : /curl\//.test(ua)
            ? "curl"
            : "A browser";
  const os = /Windows/.test(ua) ? "Windows" : /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS" : /Mac OS X/.test(ua) ? "macOS" : /Linux/.test(ua) ? "Linux" : null;
  return os ? `${browser} on ${os}` : browser;
}

export function AccountPage(props: {
  viewer: Viewer;
  sessions: SessionInfo[];
  twoFactor: { on: boolean; recoveryLeft: number };
  mail: Record<OptionalKind, boolean>;
  error?: string | null;
  notice?: string | null;
}) {
  const others = props.sessions.filter((s) => !s.current).length;
  return (
    <Layout title="Your account" viewer={props.viewer} error={props.error} notice={props.notice}>
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{props.viewer.email}</strong>.
      </p>
      <section class="card" aria-labelledby="sessions">
        <h2 id="sessions">Where you are signed in</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.sessions.map((s) => (
              <tr>
                <td>
                  {browserName(s.userAgent)}
                  {s.current ? <strong> (this one)</strong> : null}
                </td>
                <td>
                  <Time at={s.createdAt} />
                </td>
                <td>
                  <Time at={s.lastUsedAt} />
                </td>
                <td>
                  {s.current ? null : (
                    <form method="post" action={`/dashboard/account/sessions/${s.id}/end`}>
                      <button type="submit" class="secondary" aria-label={`Sign out ${browserName(s.userAgent)}, signed in ${s.createdAt.slice(0, 16)}`}>
                        Sign out
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {others ? (
          <form method="post" action="/dashboard/account/sessions/end-others">
            <button type="submit" class="danger">
              Sign out everywhere else ({others})
            </button>
          </form>
        ) : null}
      </section>

      <section class="card" aria-labelledby="two-factor">
        <h2 id="two-factor">Two-factor sign-in</h2>
        {props.twoFactor.on ? (
          <>
            <p>
              <strong>On.</strong> Signing in asks for a code from your authenticator app after your password. Recovery codes left: {props.twoFactor.recoveryLeft} of 10.
            </p>
            <form method="post" action="/dashboard/account/two-factor/off" class="inline">
              <label for="off-code">Current code from the app, or a recovery code</label>
              <input id="off-code" name="code" autocomplete="one-time-code" required maxlength={20} />
              <label for="off-password">Your password</label>
              <input id="off-password" name="password" type="password" autocomplete="current-password" required maxlength={1000} />
              <button type="submit" class="danger">
                Turn off
              </button>
            </form>
            <p>
              <a href="/dashboard/account/two-factor">Set up again</a> (a new app or new recovery codes).
            </p>
          </>
        ) : (
          <>
            <p>
              <strong>Off.</strong> Protect your account with a code from an authenticator app in addition to your password.
            </p>
            <p>
              <a class="button" href="/dashboard/account/two-factor">
                Set up two-factor sign-in
              </a>
            </p>
          </>
        )}
      </section>

      <section class="card" aria-labelledby="mail">
        <h2 id="mail">Mail</h2>
        <form method="post" action="/dashboard/account/mail" class="stack">
          <fieldset>
            <legend>Mail me when</legend>
            {(Object.keys(OPTIONAL_WORDS) as OptionalKind[]).map((k) => (
              <label class="choice">
                <input type="checkbox" name="mail" value={k} checked={props.mail[k]} /> {OPTIONAL_WORDS[k]}
              </label>
            ))}
          </fieldset>
          <p class="muted small">Security mails (password reset, address confirmation, changes to two-factor sign-in) always go.</p>
          <button type="submit">Save mail settings</button>
        </form>
      </section>

      <section class="card" aria-labelledby="password">
        <h2 id="password">Change password</h2>
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

      <section class="card" aria-labelledby="delete-account">
        <h2 id="delete-account">Delete my account</h2>
        <p>
          Your sign-in, sessions, memberships and the mails sent to you are deleted at once; the audit log keeps that a user acted, without your address. The only owner of an
          organization makes another member owner first (or erases the organization).
        </p>
        <form method="post" action="/dashboard/account/delete" class="stack">
          <label for="confirm_email">Type your address to confirm</label>
          <input id="confirm_email" name="confirm_email" type="email" autocomplete="off" required />
          <button type="submit" class="danger">
            Delete my account
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** Pages of accounts: forgotten password, one-time links, the second sign-in step, sign-up, verification and the local mailbox. */
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { Layout, Time, type Viewer } from "./layout";

function Narrow(props: { title: string; viewer?: Viewer | null; notice?: string | null; error?: string | null; children?: Child }) {
  return (
    <Layout title={props.title} viewer={props.viewer} notice={props.notice} error={props.error}>
      <section class="narrow card">
        <h1>{props.title}</h1>
        {props.children}
      </section>
    </Layout>
  );
}

const PasswordField = (p: { id: string; label: string }) => (
  <>
    <label for={p.id}>{p.label}</label>
    <input id={p.id} name={p.id} type="password" autocomplete="new-password" minlength={10} maxlength={200} required aria-describedby={`${p.id}-hint`} />
    <p id={`${p.id}-hint`} class="muted small">
      At least 10 characters.
    </p>
  </>
);

// ------------------------------------------------------------------ forgot password

export function ForgotPage(p: { email?: string; error?: string | null }) {
  return (
    <Narrow title="Forgot your password?" error={p.error}>
      <p>Enter the address you sign in with. If it has an account, we mail it a link to choose a new password.</p>
      <form method="post" action="/dashboard/forgot" class="stack">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength={254} value={p.email ?? ""} />
        <button type="submit">Mail me a link</button>
      </form>
      <p>
        <a href="/dashboard">Back to sign-in</a>
      </p>
    </Narrow>
  );
}

export function ForgotSentPage() {
  return (
    <Narrow title="Check your mail">
      <p>
        If that address has an account, a link to choose a new password is on its way. It works once, for 1 hour. Nothing arrives? Check the spam folder, or ask again in a few
        minutes.
      </p>
      <p>
        <a href="/dashboard">Back to sign-in</a>
      </p>
    </Narrow>
  );
}

/** The token of a one-time link, carried from page to page in a hidden field (never in a URL). */
const TokenField = (p: { token: string }) => <input type="hidden" name="token" value={p.token} />;

/**
 * The page a one-time link opens (`/dashboard/reset#<token>` …). The token is in the link's
 * fragment, which the browser never sends: /dashboard-link.js (the page's only script, allowed
 * by its CSP) puts it in the field and continues at once. Without JavaScript the person pastes
 * the code the mail prints under the link. Continuing only looks the link up; nothing changes
 * before the next page's form.
 */
export function LinkCodePage(p: { title: string; action: string; error?: string | null }) {
  return (
    <Narrow title={p.title} error={p.error}>
      <form method="post" action={p.action} class="stack" data-link-code>
        <label for="token">Code from the mail</label>
        <input id="token" name="token" class="mono" required maxlength={300} autocomplete="off" aria-describedby="token-hint" />
        <p id="token-hint" class="muted small">
          Your browser fills this in from the mail's link and continues by itself. If the field stays empty, copy the code printed under the link in the mail and paste it here.
        </p>
        <button type="submit">Continue</button>
      </form>
      <script src="/dashboard-link.js"></script>
    </Narrow>
  );
}

export function ResetPage(p: { token: string; error?: string | null }) {
  return (
    <Narrow title="Choose a new password" error={p.error}>
      <form method="post" action="/dashboard/reset" class="stack">
        <TokenField token={p.token} />
        <PasswordField id="new_password" label="New password" />
        <p class="muted small">Saving it signs you out on every device; then sign in with the new password.</p>
        <button type="submit">Save the new password</button>
      </form>
    </Narrow>
  );
}

/** A link that was used, has expired or never existed: said plainly, with the way on. */
export function LinkGonePage(p: { detail: string; again: { href: string; label: string } }) {
  return (
    <Narrow title="This link does not work any more" error={p.detail}>
      <p>
        <a href={p.again.href}>{p.again.label}</a>
      </p>
    </Narrow>
  );
}

// ------------------------------------------------------------------ sign-in's second step

export function SecondStepPage(p: { error?: string | null }) {
  return (
    <Narrow title="Enter your sign-in code" error={p.error}>
      <p>Open your authenticator app and enter the 6-digit code it shows for Transync. Lost your phone? Enter one of your recovery codes instead.</p>
      <form method="post" action="/dashboard/sign-in/code" class="stack">
        <label for="code">Code</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength={20} />
        <button type="submit">Sign in</button>
      </form>
      <p>
        <a href="/dashboard">Start again</a>
      </p>
    </Narrow>
  );
}

// ------------------------------------------------------------------ the account page's two-factor parts

export function TwoFactorSetupPage(p: { viewer: Viewer; setup: string; secretGrouped: string; qrSvg: string; required?: boolean; again?: boolean; error?: string | null }) {
  const svg = p.qrSvg.replace("<svg ", '<svg role="img" aria-label="QR code to add Transync to your authenticator app" width="220" height="220" ');
  return (
    <Narrow
      title="Set up two-factor sign-in"
      viewer={p.viewer}
      error={p.error}
      notice={p.required ? "An organization you belong to requires two-factor sign-in. Set it up to continue." : null}
    >
      <ol>
        <li>Open an authenticator app (for example 1Password, Google Authenticator, Aegis or Microsoft Authenticator).</li>
        <li>Scan this QR code, or type the setup key below.</li>
        <li>Enter the 6-digit code the app shows, to confirm.</li>
      </ol>
      <div class="qr">{raw(svg)}</div>
      <p>
        Setup key:{" "}
        <code class="mono" id="setup-key">
          {p.secretGrouped}
        </code>
      </p>
      <form method="post" action="/dashboard/account/two-factor" class="stack">
        <input type="hidden" name="setup" value={p.setup} />
        <label for="code">Code from the app</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength={10} />
        {p.again ? (
          <>
            <p class="muted small">Two-factor sign-in is on: to replace it, confirm it is you.</p>
            <label for="current_code">Code from your current app, or a recovery code</label>
            <input id="current_code" name="current_code" autocomplete="one-time-code" required maxlength={20} />
            <label for="password">Your password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required maxlength={1000} />
          </>
        ) : null}
        <button type="submit">{p.again ? "Replace two-factor sign-in" : "Turn on two-factor sign-in"}</button>
      </form>
    </Narrow>
  );
}

export function RecoveryCodesPage(p: { viewer: Viewer; codes: string[] }) {
  return (
    <Narrow title="Two-factor sign-in is on" viewer={p.viewer}>
      <p>
        <strong>Save these recovery codes now: they are shown only once.</strong> Each works once, in place of a code from the app, if you lose your phone.
      </p>
      <ul class="mono recovery-codes">
        {p.codes.map((c) => (
          <li>{c}</li>
        ))}
      </ul>
      <p>
        <a href="/dashboard/account">Back to your account</a>
      </p>
    </Narrow>
  );
}

// ------------------------------------------------------------------ sign-up

export function SignUpPage(p: { values?: { email: string; name: string }; error?: string | null }) {
  return (
    <Narrow title="Create your Transync account" error={p.error}>
      <p class="muted">Keep your website's translations in step: sign up, confirm your address and choose your password, then create your organization and first site.</p>
      <form method="post" action="/dashboard/sign-up" class="stack">
        <label for="name">Your name</label>
        <input id="name" name="name" autocomplete="name" required maxlength={100} value={p.values?.name ?? ""} />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="email" required maxlength={254} value={p.values?.email ?? ""} aria-describedby="email-hint" />
        <p id="email-hint" class="muted small">
          We mail this address a link; you choose your password on its page.
        </p>
        <button type="submit">Sign up</button>
      </form>
      <p>
        Already have an account? <a href="/dashboard">Sign in</a>
      </p>
    </Narrow>
  );
}

export function CheckMailPage(p: { viewer?: Viewer | null; resent?: boolean }) {
  return (
    <Narrow title="Confirm your address" viewer={p.viewer} notice={p.resent ? "If that address has an account waiting for confirmation, a new link is on its way." : null}>
      <p>We sent a link to your address. Follow it to confirm the address and choose your password; then sign in. It works once, for 24 hours.</p>
      {p.viewer ? (
        <>
          <p>Until then your account can do nothing else. No mail? Check the spam folder, or send a new link.</p>
          <form method="post" action="/dashboard/verify/resend">
            <button type="submit" class="secondary">
              Send a new link
            </button>
          </form>
        </>
      ) : (
        <>
          <p>No mail? Check the spam folder, or send a new link:</p>
          <form method="post" action="/dashboard/verify/resend" class="stack">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required maxlength={254} />
            <button type="submit" class="secondary">
              Send a new link
            </button>
          </form>
        </>
      )}
    </Narrow>
  );
}

/**
 * A verification link's page: confirming is choosing the password, so the account's only
 * password is the mailbox owner's (whoever signed up). Nothing happens until the form is sent.
 */
export function VerifyPage(p: { token: string; email: string; name: string; error?: string | null }) {
  return (
    <Narrow title="Confirm your address" error={p.error}>
      <p>
        Confirm that <strong>{p.email}</strong> is yours by choosing the password of its Transync account. Confirming signs out every session of the account; then sign in with this
        password.
      </p>
      <form method="post" action="/dashboard/verify" class="stack">
        <TokenField token={p.token} />
        <input type="hidden" name="email" value={p.email} autocomplete="username" />
        <label for="name">Your name</label>
        <input id="name" name="name" autocomplete="name" required maxlength={100} value={p.name} />
        <PasswordField id="password" label="Choose a password" />
        <button type="submit">Confirm and save the password</button>
      </form>
      <p class="muted small">Did not sign up? Leave this page: nobody can use the account until a password is chosen here.</p>
    </Narrow>
  );
}

/** The link mailed when a pause began: it signs the owner in once, with the password (and a code), pause or not. */
export function UnlockPage(p: { token: string; email: string; twoFactor: boolean; error?: string | null }) {
  return (
    <Narrow title="Sign in with your link" error={p.error}>
      <p>
        After too many wrong tries, signing in to <strong>{p.email}</strong> was paused. This link signs you in once, pause or not.
      </p>
      <form method="post" action="/dashboard/unlock" class="stack">
        <TokenField token={p.token} />
        <input type="hidden" name="email" value={p.email} autocomplete="username" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength={1000} />
        {p.twoFactor ? (
          <>
            <label for="code">Code from your authenticator app, or a recovery code</label>
            <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength={20} />
          </>
        ) : null}
        <button type="submit">Sign in</button>
      </form>
      <p>
        <a href="/dashboard/forgot">Forgot your password? Choose a new one</a> (it ends the pause too).
      </p>
    </Narrow>
  );
}

export function NewOrganizationPage(p: { viewer: Viewer; error?: string | null; notice?: string | null }) {
  return (
    <Narrow title="Create your organization" viewer={p.viewer} error={p.error} notice={p.notice}>
      <p>An organization holds your sites, their keys, members and billing. You are its owner.</p>
      <form method="post" action="/dashboard/organizations" class="stack">
        <label for="org-name">Organization name</label>
        <input id="org-name" name="name" required maxlength={200} placeholder="Acme Inc." />
        <button type="submit">Create organization</button>
      </form>
    </Narrow>
  );
}

export function NewSitePage(p: {
  viewer: Viewer;
  organizationId: number;
  organization: string;
  engines: string[];
  adapters: readonly string[];
  first: boolean;
  error?: string | null;
  values?: Record<string, string>;
}) {
  const rows = [0, 1, 2, 3, 4];
  return (
    <Layout title="Add a site" viewer={p.viewer} error={p.error}>
      <section class="card narrow-wide">
        <h1>{p.first ? "Your first site" : `Add a site to ${p.organization}`}</h1>
        <p class="muted">A site is one website whose content Transync translates. You can change every setting later.</p>
        <form method="post" action={`/dashboard/organizations/${p.organizationId}/sites`} class="stack">
          <label for="site-name">Site name</label>
          <input id="site-name" name="name" required maxlength={200} placeholder="www.example.com" value={p.values?.name ?? ""} />
          <label for="source">Source language (the website's own)</label>
          <input id="source" name="source_language" required maxlength={15} placeholder="en" value={p.values?.source_language ?? "en"} />
          <fieldset>
            <legend>Target languages (up to 5 here, more in the settings)</legend>
            {rows.map((i) => (
              <div class="filters">
                <div>
                  <label for={`t${i}_code`}>Language {i + 1}</label>
                  <input id={`t${i}_code`} name={`t${i}_code`} maxlength={15} placeholder={["de", "fr", "es", "it", "ja"][i]} value={p.values?.[`t${i}_code`] ?? ""} />
                </div>
                <div>
                  <label for={`t${i}_engine`}>Engine for language {i + 1}</label>
                  <select id={`t${i}_engine`} name={`t${i}_engine`}>
                    {p.engines.map((e) => (
                      <option value={e} selected={(p.values?.[`t${i}_engine`] ?? p.engines[0]) === e}>
                        {e}
                      </option>
                    ))}
                  </select>
                </div>
              </div>
            ))}
          </fieldset>
          <fieldset>
            <legend>Adapters (your website's system)</legend>
            <div class="choices">
              {p.adapters.map((a) => (
                <label class="choice">
                  <input type="checkbox" name="adapters" value={a} checked /> {a}
                </label>
              ))}
            </div>
          </fieldset>
          <button type="submit">Create site</button>
        </form>
      </section>
    </Layout>
  );
}

export function FirstKeyPage(p: { viewer: Viewer; siteId: number; siteName: string; apiKey: string; apiBase: string; sourceLanguage: string; languages: string[] }) {
  const curl = `curl -X POST ${p.apiBase}/v1/handshake \\
  -H "Authorization: Bearer ${p.apiKey}" \\
  -H "Content-Type: application/json" \\
  -d '${JSON.stringify({ connector_version: "quickstart/1", source_language: p.sourceLanguage, languages: p.languages })}'`;
  return (
    <Layout title={`${p.siteName} is ready`} viewer={p.viewer}>
      <section class="card created">
        <h1>{p.siteName} is ready</h1>
        <p>
          <strong>Copy your API key now: it is shown only once.</strong> Paste it into the connector on your website.
        </p>
        <label for="key-value">API key</label>
        <input id="key-value" class="mono" readonly value={p.apiKey} />
        <h2>Quick start</h2>
        <p>Introduce your connector with a handshake; it tells Transync which languages the website has:</p>
        <label for="quickstart">Handshake (copy and run in a terminal)</label>
        <textarea id="quickstart" class="mono" readonly rows={5}>
          {curl}
        </textarea>
        <p>
          Then push content with <code>PUT /v1/units/batch</code> and start a job. The API reference is at <a href="/docs">/docs</a>. Translating needs a plan that covers the site:
          until then jobs answer <code>402 site_not_covered</code>.
        </p>
        <p>
          <a href={`/dashboard/sites/${p.siteId}`}>Go to the site</a>
        </p>
      </section>
    </Layout>
  );
}

// ------------------------------------------------------------------ the local mailbox

export interface OutboxMail {
  id: number;
  kind: string;
  to: string;
  subject: string;
  text: string;
  createdAt: string;
}

export function DevMailPage(p: { mails: OutboxMail[]; viewer?: Viewer | null }) {
  return (
    <Layout title="Local mailbox" viewer={p.viewer}>
      <h1>Local mailbox</h1>
      <p class="muted">DEV_MAILBOX is on: mails are kept here instead of being sent. Newest first; links in them work on this server.</p>
      {p.mails.length ? (
        p.mails.map((m) => (
          <article class="card mail" aria-labelledby={`mail-${m.id}`}>
            <h2 id={`mail-${m.id}`}>{m.subject}</h2>
            <p class="muted small">
              To <strong class="mail-to">{m.to}</strong> · {m.kind} · <Time at={m.createdAt} /> · <a href={`/dashboard/dev/mail/${m.id}/html`}>HTML part</a>
            </p>
            <pre class="mail-text">{m.text}</pre>
          </article>
        ))
      ) : (
        <p>No mail yet.</p>
      )}
    </Layout>
  );
}

/** Every mail the service sends, as plain sentences (message.ts makes the text and HTML parts). */
import { type Block, compose, type Mail, quoted } from "./message";

/**
 * One-time links carry their token after `#`, which browsers never send to a server, so no
 * request line (and no request log) holds it; the page reads it with a small script. Without
 * JavaScript the page asks for the code, printed here (docs/decisions.md, one-time tokens).
 */
const codeBlocks = (link: string): Block[] => {
  const code = link.split("#")[1];
  return code ? ["If the page asks for the code from this mail, copy this one:", { code }] : [];
};

export const invitationMail = (to: string, p: { organization: string; role: string; link: string; expiresAt: string }): Mail =>
  compose("invitation", to, `You are invited to ${quoted(p.organization)} on Transync`, [
    `You are invited to join ${p.organization} on Transync as ${p.role === "admin" ? "an admin" : `an ${p.role}`}.`,
    { link: p.link, label: "Accept the invitation" },
    ...codeBlocks(p.link),
    `The link works once and until ${p.expiresAt.slice(0, 16).replace("T", " ")} UTC. If you did not expect this mail, ignore it: nothing happens without you.`,
  ]);

export const verifyMail = (to: string, p: { link: string }): Mail =>
  compose("verify", to, "Confirm your email address for Transync", [
    "Someone signed up for Transync with this address. If it was you, confirm the address and choose your password:",
    { link: p.link, label: "Confirm and choose a password" },
    ...codeBlocks(p.link),
    "The link works once, for 24 hours. If it was not you, ignore this mail: nobody can use an account with this address until a password is chosen through this link, and nothing else was shared with whoever signed up.",
  ]);

export const alreadyRegisteredMail = (to: string, p: { signIn: string; forgot: string }): Mail =>
  compose("already_registered", to, "You already have a Transync account", [
    "Someone (probably you) tried to sign up to Transync with this address, but it already has an account. No new account was made.",
    { link: p.signIn, label: "Sign in" },
    { link: p.forgot, label: "Forgot your password? Choose a new one" },
    "If this was not you, ignore this mail: your account is unchanged.",
  ]);

export const resetMail = (to: string, p: { link: string }): Mail =>
  compose("reset", to, "Choose a new Transync password", [
    "Someone (probably you) asked to reset the password of the Transync account with this address.",
    { link: p.link, label: "Choose a new password" },
    ...codeBlocks(p.link),
    "The link works once, for 1 hour. Choosing a new password signs you out everywhere else. If you did not ask, ignore this mail: your password stays as it is.",
  ]);

export const twoFactorMail = (to: string, p: { on: boolean; account: string }): Mail =>
  compose("two_factor", to, p.on ? "Two-factor sign-in is now on for your Transync account" : "Two-factor sign-in was turned off for your Transync account", [
    p.on
      ? "Two-factor sign-in was turned on: from now on, signing in asks for a code from your authenticator app after your password. Keep your recovery codes somewhere safe."
      : "Two-factor sign-in was turned off: signing in now asks only for your password.",
    { link: p.account, label: "Review your account" },
    "If this was not you, change your password at once and contact your organization's owner.",
  ]);

export const twoFactorChangedMail = (to: string, p: { account: string }): Mail =>
  compose("two_factor", to, "Two-factor sign-in was set up again for your Transync account", [
    "Two-factor sign-in was set up again: a new authenticator app and new recovery codes replace the earlier ones, and every other session was signed out.",
    { link: p.account, label: "Review your account" },
    "If this was not you, change your password at once and contact your organization's owner.",
  ]);

export const lockoutMail = (to: string, p: { what: "password" | "code"; until: string; link: string; forgot: string }): Mail =>
  compose(
    "lockout",
    to,
    "Sign-in to your Transync account is paused",
    p.what === "password"
      ? [
          `Someone tried to sign in to your Transync account with a wrong password 10 times in a row from one network, so signing in from that network is paused until ${p.until} (UTC). Signing in from anywhere else works as usual.`,
          "If it was you, this link signs you in once, pause or not:",
          { link: p.link, label: "Sign in now" },
          ...codeBlocks(p.link),
          "The link works once, for 24 hours. If it was not you, your account is safe: the password was not guessed. If your password is short or used elsewhere, choose a new one:",
          { link: p.forgot, label: "Choose a new password" },
        ]
      : [
          `Someone signed in to your Transync account with your password, then entered a wrong two-factor code 10 times in a row, so the code step is paused until ${p.until} (UTC).`,
          "If it was not you, someone knows your password: choose a new one now (it also ends the pause).",
          { link: p.forgot, label: "Choose a new password" },
          "If it was you, this link signs you in once with your password and a code, pause or not:",
          { link: p.link, label: "Sign in now" },
          ...codeBlocks(p.link),
          "The link works once, for 24 hours.",
        ],
  );

export const jobFinishedMail = (to: string, p: { site: string; jobId: number; status: string; done: number; total: number; held: number; link: string }): Mail =>
  compose("job_finished", to, `Job #${p.jobId} on ${quoted(p.site)} ${p.status === "succeeded" ? "finished" : p.status}`, [
    `The job #${p.jobId} you started on ${p.site} ${p.status === "succeeded" ? "finished" : `ended: ${p.status}`}. ${p.done} of ${p.total} segments were translated${p.held ? `, ${p.held} of them held back for review` : ""}.`,
    { link: p.link, label: "Open the site" },
    "You get this mail because you started the job in the dashboard. Turn these mails off on your account page.",
  ]);

export const digestMail = (to: string, p: { sites: { name: string; count: number; link: string }[]; account: string }): Mail =>
  compose("review_digest", to, `Translations wait for review on ${p.sites.length === 1 ? quoted(p.sites[0].name) : `${p.sites.length} sites`}`, [
    "These translations were held back by quality checks and wait for a decision in the review queue:",
    ...p.sites.map((s) => ({ link: s.link, label: `${s.name}: ${s.count} waiting` })),
    `You get this daily digest as a member of these sites. Turn it off on your account page: ${p.account}`,
  ]);

export const usageMail = (to: string, p: { organization: string; percent: 80 | 100; used: number; included: number; month: string; link: string }): Mail =>
  compose("usage", to, `${quoted(p.organization)} has used ${p.percent} % of this month's included volume`, [
    `${p.organization} has translated ${p.used.toLocaleString("en-US")} characters in ${p.month}, ${p.percent} % of the ${p.included.toLocaleString("en-US")} its plan includes.` +
      (p.percent === 100 ? " Characters beyond it are billed as overage after the month." : ""),
    { link: p.link, label: "See the usage" },
    "You get this mail as an owner of the organization, once a month for each threshold. Turn it off on your account page.",
  ]);

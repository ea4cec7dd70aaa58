/**
 * A mail as this service writes it: always a text and an HTML part, plain wording, links
 * under the dashboard's address. Templates (templates.ts) build these; send.ts delivers them.
 */

/** Kinds of mail. Security mails always go; the others follow the person's preferences (`/dashboard/account`). */
export const SECURITY_KINDS = ["invitation", "verify", "reset", "already_registered", "two_factor", "lockout"] as const;
export const OPTIONAL_KINDS = ["job_finished", "review_digest", "usage", "billing"] as const;
export type MailKind = (typeof SECURITY_KINDS)[number] | (typeof OPTIONAL_KINDS)[number];
export type OptionalKind = (typeof OPTIONAL_KINDS)[number];

export const OPTIONAL_WORDS: Record<OptionalKind, string> = {
  job_finished: "A job I started in the dashboard has finished",
  review_digest: "Daily digest of translations waiting in the review queue",
  usage: "The organization has used 80 % or 100 % of its monthly volume (owners)",
  billing: "Billing problems: a payment failed or the subscription is inactive (owners)",
};

export interface Mail {
  kind: MailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** C0 (line breaks included), DEL, C1, U+2028, U+2029: never in a subject, whatever the names held before the rule. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/gu;

/**
 * A person's or a customer's text (an organization's or a site's name) as a subject carries it:
 * control characters made spaces, at most 60 characters, in quotes, so it never reads as the
 * service's own words nor starts a header.
 */
export function quoted(value: string, max = 60): string {
  const clean = [...value.replace(CONTROLS, " ").replace(/\s+/g, " ").trim()];
  return `"${clean.length > max ? `${clean.slice(0, max - 1).join("")}…` : clean.join("")}"`;
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A paragraph, or a button-like link with its label. */
export type Block = string | { link: string; label: string } | { code: string };

/** Builds both parts from the same blocks, so the text and HTML always say the same. */
export function compose(kind: MailKind, to: string, rawSubject: string, blocks: Block[]): Mail {
  const subject = rawSubject.replace(CONTROLS, " ");
  const text = `${blocks.map((b) => (typeof b === "string" ? b : "link" in b ? `${b.label}:\n${b.link}` : b.code)).join("\n\n")}\n\n-- \nTransync\n`;
  const body = blocks
    .map((b) =>
      typeof b === "string"
        ? `<p>${escapeHtml(b)}</p>`
        : "link" in b
          ? `<p><a href="${escapeHtml(b.link)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(b.label)}</a></p><p style="color:#555;font-size:13px">Or open this address: ${escapeHtml(b.link)}</p>`
          : `<pre style="background:#f3f4f6;padding:12px;border-radius:6px">${escapeHtml(b.code)}</pre>`,
    )
    .join("\n");
  const html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111;max-width:560px;margin:0 auto;padding:16px">${body}<p style="color:#555;font-size:13px">— Transync</p></body></html>`;
  return { kind, to, subject, text, html };
}

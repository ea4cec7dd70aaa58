// The Document Service middleware: after every document action on a translated content type it
// queues what the service must hear (store.ts), and never fails or slows the editor's action on
// the service's account (nothing here calls the service).
// - source locale: create, update, publish → push the unit; delete → delete the unit;
// - a target locale published (publish, or create/update with status published) → `approved`
//   for its results waiting for review, with the editor's version of the fields;
// - a target locale's draft discarded or the locale deleted → `rejected`.
import { unitKey } from "./fields";
import { isOwnAction, type Sync } from "./sync";

interface ActionContext {
  uid: string;
  action: string;
  params: { documentId?: string; locale?: string | string[]; status?: string };
}

// biome-ignore lint/suspicious/noExplicitAny: Strapi's instance.
type Strapi = any;

export function documentMiddleware(strapi: Strapi, sync: Sync) {
  return async (ctx: ActionContext, next: () => Promise<unknown>) => {
    const result = await next();
    if (!sync.types.has(ctx.uid) || isOwnAction()) return result;
    try {
      if (await onAction(strapi, sync, ctx, result as { documentId?: string } | null)) sync.soon();
    } catch (error) {
      strapi.log.error(`transync: a ${ctx.action} of ${ctx.uid} could not be queued for the service: ${(error as Error).message}`);
    }
    return result;
  };
}

/** Queues what the service must hear of one action; answers whether anything was queued. */
async function onAction(strapi: Strapi, sync: Sync, ctx: ActionContext, result: { documentId?: string } | null): Promise<boolean> {
  const { action, params, uid } = ctx;
  if (!["create", "update", "publish", "delete", "discardDraft"].includes(action)) return false;
  const documentId = params.documentId ?? result?.documentId;
  if (!documentId) return false;
  let queued = false;
  const locales = await sync.locales();
  const asked = params.locale === undefined ? [locales.defaultLocale] : params.locale === "*" ? [locales.source, ...locales.targets] : [params.locale].flat();
  const unit = unitKey(uid, documentId);
  const publishing = action === "publish" || ((action === "create" || action === "update") && params.status === "published");
  if (asked.includes(locales.source)) {
    if (action === "delete") await sync.store.enqueue("delete", unit, uid, documentId);
    else if (action !== "discardDraft") await sync.store.enqueue("push", unit, uid, documentId);
    if (action === "delete") return true; // the unit goes, and its results with it
    queued = action !== "discardDraft";
  }
  const reviewer = editorName(strapi);
  for (const locale of asked) {
    if (locale === locales.source || !locales.targets.includes(locale)) continue;
    const language = locales.language(locale);
    if (publishing) {
      const published = await strapi.documents(uid).findOne({ documentId, locale, status: "published" });
      if (!published) continue;
      const fields = Object.fromEntries([...(sync.types.get(uid)?.fields ?? [])].map((f) => [f.name, published[f.name] ?? null]));
      await sync.store.enqueue("review", unit, uid, documentId, { language, outcome: "approved", fields, reviewer }, language);
      queued = true;
    } else if (action === "discardDraft" || action === "delete") {
      await sync.store.enqueue("review", unit, uid, documentId, { language, outcome: "rejected", reviewer }, language);
      queued = true;
    }
  }
  return queued;
}

/** The signed-in admin's name, when the action comes from the admin panel. */
function editorName(strapi: Strapi): string | undefined {
  const user = strapi.requestContext?.get?.()?.state?.user;
  if (!user) return undefined;
  return user.username || [user.firstname, user.lastname].filter(Boolean).join(" ") || undefined;
}

// Which content types and fields are translated: the configured ones, checked against the
// project's schemas, or by default every localized string, text, richtext and blocks
// attribute of every i18n-enabled `api::` type.
import { ConfigError, type TransyncConfig } from "./config";

export type FieldKind = "plain" | "markdown" | "blocks";

export interface TrackedField {
  name: string;
  kind: FieldKind;
}

export interface TrackedType {
  uid: string;
  kind: "collectionType" | "singleType";
  draftAndPublish: boolean;
  fields: TrackedField[];
  titleField: string | null;
}

interface Attribute {
  type: string;
  pluginOptions?: { i18n?: { localized?: boolean } };
}
export interface ContentTypeSchema {
  uid: string;
  kind: "collectionType" | "singleType";
  options?: { draftAndPublish?: boolean };
  pluginOptions?: { i18n?: { localized?: boolean } };
  attributes: Record<string, Attribute>;
}

const KIND_OF: Record<string, FieldKind> = { string: "plain", text: "plain", richtext: "markdown", blocks: "blocks" };

const localizedType = (ct: ContentTypeSchema) => ct.pluginOptions?.i18n?.localized === true;
const localizedField = (a: Attribute) => a.pluginOptions?.i18n?.localized === true;

function titleOf(ct: ContentTypeSchema, fields: TrackedField[], configured?: string): string | null {
  if (configured) return configured;
  for (const name of ["title", "name"]) if (ct.attributes[name]?.type === "string") return name;
  return fields.find((f) => f.kind === "plain")?.name ?? null;
}

/** The tracked types by uid; throws a ConfigError naming a configured type or field the project does not have. */
export function resolveTypes(config: TransyncConfig, schemas: Record<string, ContentTypeSchema>): Map<string, TrackedType> {
  const out = new Map<string, TrackedType>();
  const add = (ct: ContentTypeSchema, names: string[] | undefined, configuredTitle: string | undefined, where: string) => {
    const fields: TrackedField[] = [];
    if (names) {
      for (const name of names) {
        const attribute = ct.attributes[name];
        if (!attribute) throw new ConfigError(`${where}.fields`, `names "${name}", which ${ct.uid} does not have`);
        const kind = KIND_OF[attribute.type];
        if (!kind) throw new ConfigError(`${where}.fields`, `names "${name}" of type ${attribute.type}: only string, text, richtext and blocks fields are translated`);
        if (!localizedField(attribute)) throw new ConfigError(`${where}.fields`, `names "${name}", which is not localized (enable "localized" on the field in ${ct.uid})`);
        fields.push({ name, kind });
      }
    } else {
      for (const [name, attribute] of Object.entries(ct.attributes)) {
        const kind = KIND_OF[attribute.type];
        if (kind && localizedField(attribute)) fields.push({ name, kind });
      }
    }
    if (configuredTitle && !ct.attributes[configuredTitle]) throw new ConfigError(`${where}.titleField`, `names "${configuredTitle}", which ${ct.uid} does not have`);
    out.set(ct.uid, { uid: ct.uid, kind: ct.kind, draftAndPublish: ct.options?.draftAndPublish !== false, fields, titleField: titleOf(ct, fields, configuredTitle) });
  };
  if (config.contentTypes) {
    for (const [uid, settings] of Object.entries(config.contentTypes)) {
      const where = `contentTypes["${uid}"]`;
      const ct = schemas[uid];
      if (!ct) throw new ConfigError(where, "is not a content type of this project");
      if (!localizedType(ct)) throw new ConfigError(where, "is not localized: enable Internationalization on the content type");
      add(ct, settings.fields, settings.titleField, where);
    }
  } else {
    for (const ct of Object.values(schemas)) if (ct.uid.startsWith("api::") && localizedType(ct)) add(ct, undefined, undefined, `contentTypes["${ct.uid}"]`);
  }
  return out;
}

/**
 * A unit's key: the content type's uid with every run of characters outside [a-z0-9] as `_`
 * (`api::article.article` → `api_article_article`, a key type that `prefix` filters accept),
 * a colon, and the document id.
 */
export function unitKey(uid: string, documentId: string): string {
  return `${uid.toLowerCase().replace(/[^a-z0-9]+/g, "_")}:${documentId}`;
}

/** The entry's page in Strapi's admin (the content manager, in the source locale). */
export function adminPath(type: TrackedType, documentId: string, locale: string): string {
  const kind = type.kind === "singleType" ? "single-types" : "collection-types";
  const id = type.kind === "singleType" ? "" : `/${documentId}`;
  return `/admin/content-manager/${kind}/${type.uid}${id}?plugins[i18n][locale]=${encodeURIComponent(locale)}`;
}

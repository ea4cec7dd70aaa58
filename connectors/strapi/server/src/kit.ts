// @transync/client (and htmlparser2, which blocks.ts reads translated HTML with) are ES modules
// and this plugin is CommonJS (Strapi requires strapi-server.js): their types come in with
// resolution-mode "import", their code through one dynamic import() each.
type KitModule = typeof import("@transync/client", { with: { "resolution-mode": "import" }});
export type ParseDocument = typeof import("htmlparser2", { with: { "resolution-mode": "import" }})["parseDocument"];
export type Kit = KitModule & { parseDocument: ParseDocument };
export type Schemas = import("@transync/client", { with: { "resolution-mode": "import" }}).Schemas;
export type TransyncClient = import("@transync/client", { with: { "resolution-mode": "import" }}).TransyncClient;

let loaded: Promise<Kit> | undefined;
/** The kit's module (with htmlparser2's parseDocument), imported once. */
export function loadKit(): Promise<Kit> {
  loaded ??= Promise.all([import("@transync/client"), import("htmlparser2")]).then(([kit, html]) => ({ ...kit, parseDocument: html.parseDocument }));
  return loaded;
}

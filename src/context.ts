import type { SiteSettings } from "./control/sites";

/** Hono's type parameter for this app: bindings and per-request variables. */
export interface App {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The authenticated site (public API only). */
    site: SiteSettings;
    keyId: number;
  };
}

import type { Clock } from "./clock";
import type { HashPassword } from "./control/passwords.control";
import type { SiteSettings } from "./control/sites.control";

/** Hono's type parameter for this app: bindings and per-request variables. */
export interface App {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The service's clock (createApp's): handlers pass `c.var.clock()` to the operations as `at`. */
    clock: Clock;
    /** Hashes a new dashboard password at the app's cost (createApp's; production's is PBKDF2_ITERATIONS). */
    hashPassword: HashPassword;
    /** The authenticated site (public API only). */
    site: SiteSettings;
    keyId: number;
    /** The calling key's prefix (`tsk_` + 6), the most of a key a log line may carry. */
    keyPrefix: string;

    /** Who called the admin API: `admin` (ADMIN_TOKEN) or `admin:<name>` (ADMIN_TOKENS). */
    adminActor: import("./ops/actor").Actor;
  };
}

/** Who performs an operation, as the audit log names them. */
export type Actor = "admin" | `admin:${string}` | `user:${number}` | `key:${number}`;

/** The operator, through the admin API's single token (ADMIN_TOKEN); a named operator's token (ADMIN_TOKENS) acts as `admin:<name>`. */
export const OPERATOR: Actor = "admin";

/** A connector, through the public API with a site key (its id). */
export const keyActor = (keyId: number): Actor => `key:${keyId}`;

/** A signed-in person of the dashboard. */
export const userActor = (userId: number): Actor => `user:${userId}`;

/** The site an operation works on, as both doors have it at hand (the admin API loads it, the dashboard's access check too). */
export interface SiteRef {
  id: number;
  organizationId: number;
}

/**
 * The organization memory's address: one object per organization, by name (docs/decisions.md "How
 * sharing works"). Its methods answer plain data, so the stub's answers have exactly these types.
 */
import type { OrgMemoryObject } from "./object";

type OrgMemoryMethods = { [K in keyof OrgMemoryObject]: OrgMemoryObject[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never };
export type OrgMemoryApi = Pick<OrgMemoryMethods, "share" | "lookup" | "targets" | "holdsOthers" | "version" | "entriesBySite" | "removeSite" | "erase">;

export const orgMemoryName = (organizationId: number) => `org:${organizationId}`;

export function orgMemory(env: Env, organizationId: number): OrgMemoryApi {
  return env.ORG_MEMORY.getByName(orgMemoryName(organizationId)) as unknown as OrgMemoryApi;
}

/**
 * The bench's Worker: the production Worker and SiteObject unchanged, plus the bench-only
 * Durable Object classes and one bench-only route, POST /__bench/floor/batch?object=…, which
 * hands the same body as PUT /v1/units/batch to a FloorObject (the floor with the same
 * transport: HTTP, JSON parse, one RPC, inserts).
 */
import app from "../src/index";
import type { FloorObject } from "./floor.object";

export * from "../src/index";
export { FloorObject } from "./floor.object";
export { BenchSiteObject } from "./site.object";

interface BenchEnv extends Env {
  FLOOR: DurableObjectNamespace<FloorObject>;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/__bench/floor/batch") return app.fetch(request, env, ctx);
    const body = JSON.parse(await request.text()) as { units: Parameters<FloorObject["insertBatch"]>[0] };
    const floor = (env as BenchEnv).FLOOR.getByName(url.searchParams.get("object") ?? "floor");
    const rows = await floor.insertBatch(body.units);
    return Response.json({ rows });
  },
} satisfies ExportedHandler<Env>;

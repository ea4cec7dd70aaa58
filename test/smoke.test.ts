import { env, exports } from "cloudflare:workers";
import { it, expect } from "vitest";
it("works", async () => {
  const r = await exports.default.fetch("https://x/");
  expect(await r.text()).toBe("hi");
  const stub = env.SITE.getByName("1");
  expect(await stub.ping()).toBe("pong");
  const row = await env.DB.prepare("select count(*) as n from organizations").first();
  expect(row).toEqual({ n: 0 });
});

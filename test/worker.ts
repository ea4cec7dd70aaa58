/**
 * The test pool's Worker (vitest.config.ts `main`): src/index.ts's handlers and site object,
 * built with the tests' clock and sleep (helpers/seams.ts) instead of production's.
 */
import { createWorker, SiteObject as ProductionSiteObject } from "../src/index";

export { OrgMemoryObject } from "../src/index";

import { TEST_DEPS } from "./helpers/seams";

export default createWorker(TEST_DEPS);

export class SiteObject extends ProductionSiteObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, TEST_DEPS);
  }
}

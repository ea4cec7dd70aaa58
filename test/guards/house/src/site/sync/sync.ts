// Runs back up inside site/: sync/ is below jobs/.
import { jobName } from "../jobs/runner";

export const syncName = `sync after ${jobName}`;

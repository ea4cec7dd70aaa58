// Runs back up: control/ is below ops/.
import { opsName } from "../ops/keys";

export const controlName = `control of ${opsName}`;

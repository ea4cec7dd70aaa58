// A room no floor names.
import { LIMIT } from "../limits";

export const lost = LIMIT;

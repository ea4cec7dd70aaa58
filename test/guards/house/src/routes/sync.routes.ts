// One door importing another.
import { page } from "../dashboard/page";

export const route = `route beside ${page}`;

// A circle: one.ts and two.ts import each other.
import { two } from "./two";

export const one = () => `one, then ${two.name}`;
